//! An open report as the ladder page draws it beside this browser's run: its curves, the caches
//! it declares, the levels read from it, its memory-level parallelism and bandwidth, and no more.
//!
//! Reports are read (parsed, checked, read again by the core) in the second module, which holds
//! them; the first view gets this much of each, as text. Reading the whole report schema with
//! serde in the first view cost about as much code as the ladder page itself.

use memwall_core::ladder;
use memwall_report::{ChainsPoint, Parallelism, Source};

use crate::chart::{Marker, Point};
use crate::reports::{LoadedReport, cache_markers};

/// One curve of a report's ladder: the main one (`name` empty), or another pattern or page size.
#[derive(Debug, Clone, PartialEq)]
pub struct OverlayCurve {
    pub name: String,
    pub points: Vec<Point>,
}

/// One thread's streaming bandwidth at one working set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BandwidthPoint {
    pub bytes: u64,
    pub read_gb_per_s: f64,
    pub copy_gb_per_s: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Overlay {
    pub id: u32,
    pub label: String,
    pub source: Source,
    /// The caches the host declares, as chart markers.
    pub caches: Vec<Marker>,
    /// The levels the core read from the ladder, as chart markers.
    pub levels: Vec<Marker>,
    /// Empty when the report has no ladder.
    pub curves: Vec<OverlayCurve>,
    pub parallelism: Option<Parallelism>,
    pub bandwidth: Vec<BandwidthPoint>,
    /// Measured in this browser and added from the ladder page: that page draws it as its own run.
    pub from_this_page: bool,
}

impl Overlay {
    /// What the legend calls it: "host (native)".
    pub fn name(&self) -> String {
        format!("{} ({})", self.label, self.source.name())
    }
}

/// What the ladder page calls a run it added (see [`Overlay::from_this_page`]).
pub const THIS_PAGE: &str = "measured in this browser";

/// Labels and names go between tabs and newlines; neither may appear inside one.
fn clean(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

fn points(points: &[Point]) -> String {
    let lohi = |v: Option<f64>| v.map_or("-".to_string(), |v| v.to_string());
    points.iter().map(|p| format!("{}:{}:{}:{}", p.x, p.y, lohi(p.lo), lohi(p.hi))).collect::<Vec<_>>().join(",")
}

/// The ladder page's part of `r`, as lines of tab-separated fields.
pub fn encode(r: &LoadedReport) -> String {
    let report = &r.report;
    let mut lines = vec![format!(
        "report\t{}\t{}\t{}\t{}",
        r.id,
        report.source.name(),
        u8::from(r.origin == THIS_PAGE),
        clean(&r.label)
    )];
    for m in cache_markers(&report.host) {
        lines.push(format!("cache\t{}\t{}", m.x, clean(&m.label)));
    }
    if let Some(ladder) = &report.ladder {
        for m in crate::ladder::markers::level_markers(ladder) {
            lines.push(format!("level\t{}\t{}", m.x, clean(&m.label)));
        }
        lines.push(format!("curve\t\t{}", points(&crate::reports::to_points(&ladder.points))));
        for c in ladder.curves.iter().filter(|c| !c.points.is_empty()) {
            let name = crate::ladder::names::curve_name(&c.pattern, &c.huge_pages);
            lines.push(format!("curve\t{}\t{}", clean(&name), points(&crate::reports::to_points(&c.points))));
        }
        if let Some(p) = &ladder.parallelism {
            let chains: Vec<String> = p.points.iter().map(|c| format!("{}:{}", c.chains, c.ns_per_load)).collect();
            lines.push(format!("chains\t{}\t{}", p.bytes, chains.join(",")));
        }
    }
    if let Some(b) = &report.bandwidth {
        let one: Vec<String> = b
            .points
            .iter()
            .filter(|p| p.threads == 1)
            .map(|p| format!("{}:{}:{}", p.bytes, p.read_gb_per_s, p.copy_gb_per_s))
            .collect();
        lines.push(format!("bandwidth\t{}", one.join(",")));
    }
    lines.join("\n")
}

fn numbers(item: &str) -> Result<Vec<Option<f64>>, String> {
    item.split(':')
        .map(|n| if n == "-" { Ok(None) } else { n.parse().map(Some).map_err(|_| format!("bad number '{n}'")) })
        .collect()
}

fn list(field: &str) -> impl Iterator<Item = &str> {
    field.split(',').filter(|s| !s.is_empty())
}

fn number(v: Option<&Option<f64>>) -> Result<f64, String> {
    v.copied().flatten().ok_or_else(|| "a number is missing".to_string())
}

/// Reads what [`encode`] wrote, for every report, in order.
pub fn decode(text: &str) -> Result<Vec<Overlay>, String> {
    let mut overlays: Vec<Overlay> = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let field = |i: usize| fields.get(i).copied().ok_or_else(|| format!("short line '{line}'"));
        if fields[0] == "report" {
            overlays.push(Overlay {
                id: field(1)?.parse().map_err(|_| format!("bad id in '{line}'"))?,
                source: if field(2)? == Source::Browser.name() { Source::Browser } else { Source::Native },
                from_this_page: field(3)? == "1",
                label: field(4)?.to_string(),
                caches: Vec::new(),
                levels: Vec::new(),
                curves: Vec::new(),
                parallelism: None,
                bandwidth: Vec::new(),
            });
            continue;
        }
        let overlay = overlays.last_mut().ok_or("a line before any report")?;
        match fields[0] {
            "cache" | "level" => {
                let x = field(1)?.parse().map_err(|_| format!("bad size in '{line}'"))?;
                let marker = Marker { x, label: field(2)?.to_string() };
                if fields[0] == "cache" { overlay.caches.push(marker) } else { overlay.levels.push(marker) }
            }
            "curve" => {
                let points = list(field(2)?)
                    .map(|p| {
                        let n = numbers(p)?;
                        Ok(Point {
                            x: number(n.first())?,
                            y: number(n.get(1))?,
                            lo: n.get(2).copied().flatten(),
                            hi: n.get(3).copied().flatten(),
                        })
                    })
                    .collect::<Result<_, String>>()?;
                overlay.curves.push(OverlayCurve { name: field(1)?.to_string(), points });
            }
            "chains" => {
                let bytes = field(1)?.parse().map_err(|_| format!("bad size in '{line}'"))?;
                let points = list(field(2)?)
                    .map(|p| {
                        let n = numbers(p)?;
                        Ok(ChainsPoint {
                            chains: number(n.first())? as u32,
                            ns_per_load: number(n.get(1))?,
                            ns_per_load_median: None,
                        })
                    })
                    .collect::<Result<_, String>>()?;
                overlay.parallelism = Some(ladder::parallelism_from(bytes, points));
            }
            "bandwidth" => {
                overlay.bandwidth = list(field(1)?)
                    .map(|p| {
                        let n = numbers(p)?;
                        Ok(BandwidthPoint {
                            bytes: number(n.first())? as u64,
                            read_gb_per_s: number(n.get(1))?,
                            copy_gb_per_s: number(n.get(2))?,
                        })
                    })
                    .collect::<Result<_, String>>()?;
            }
            other => return Err(format!("unknown line '{other}'")),
        }
    }
    Ok(overlays)
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use memwall_report::{Report, Untrusted};

    use super::*;

    fn corpus(name: &str) -> Report {
        let path = format!("{}/../crates/memwall-report/tests/corpus/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut report = Report::from_untrusted_json(&text).unwrap_or_else(|e: Untrusted| panic!("{path}: {e}"));
        memwall_core::explain::reread(&mut report);
        report
    }

    #[test]
    fn a_report_s_ladder_part_survives_the_trip() {
        for name in ["ok-ladder.json", "ok-groupby.json"] {
            let report = corpus(name);
            let loaded = LoadedReport {
                id: 7,
                label: "a\thost".into(),
                origin: THIS_PAGE.into(),
                report: Rc::new(report.clone()),
            };
            let back = decode(&encode(&loaded)).unwrap();
            assert_eq!(back.len(), 1);
            let o = &back[0];
            assert_eq!((o.id, o.label.as_str(), o.source, o.from_this_page), (7, "a host", report.source, true));
            assert_eq!(o.caches, cache_markers(&report.host));
            match &report.ladder {
                Some(ladder) => {
                    assert_eq!(o.curves[0].points, crate::reports::to_points(&ladder.points));
                    assert_eq!(o.curves.len(), 1 + ladder.curves.iter().filter(|c| !c.points.is_empty()).count());
                    assert_eq!(o.levels, crate::ladder::markers::level_markers(ladder));
                    assert_eq!(
                        o.parallelism.as_ref().map(|p| p.knee_chains),
                        ladder.parallelism.as_ref().map(|p| p.knee_chains)
                    );
                }
                None => assert!(o.curves.is_empty()),
            }
        }
    }

    #[test]
    fn damaged_text_is_an_error_not_a_panic() {
        assert!(decode("curve\t\t1:2:-:-").is_err());
        assert!(decode("report\tx\tnative\t0\tname").is_err());
        assert!(decode("report\t1\tnative\t0\tname\ncurve\t\t1:oops").is_err());
        assert_eq!(decode("").unwrap(), Vec::new());
    }
}
