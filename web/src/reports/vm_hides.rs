//! What a VM hides, from the reports' `sensitivity`, `cores` and `watch` sections: a slowdown
//! chart, a core-to-core heatmap and a stability timeline. Every figure and sentence comes from
//! the report as `memwall_core` reads it (the page reread it when it opened); nothing here is
//! derived anew. A card is drawn only when some open report has its section, and says which
//! open reports have none.

use std::rc::Rc;

use memwall_core::size::format_bytes;
use memwall_core::{cores, sensitivity, stability};
use memwall_report::{Cores, Sensitivity, Watch};
use yew::prelude::*;

use super::LoadedReport;
use super::tables::short;
use crate::chart::{Cell, Heatmap, LineChart, Marker, Point, Series, Span, Timeline, XFormat, YBand, format_number};
use crate::theme::Palette;

#[derive(Debug, Properties, PartialEq)]
pub struct SectionProps {
    /// The reports shown, whether or not they have the section.
    pub reports: Vec<LoadedReport>,
    pub palette: Palette,
}

/// "No watch section in X, Y: `memwall watch --json` writes one", or nothing when all have one.
fn missing(reports: &[LoadedReport], has: impl Fn(&LoadedReport) -> bool, section: &str, command: &str) -> Html {
    let without: Vec<&str> = reports.iter().filter(|r| !has(r)).map(|r| r.label.as_str()).collect();
    if without.is_empty() {
        return Html::default();
    }
    html! {
        <p class="muted small missing">{ format!("No {section} section in {}: ", without.join(", ")) }<code>{ command }</code>{ " writes one." }</p>
    }
}

fn percent(share: f64) -> String {
    format!("{:+.1}%", share * 100.0)
}

fn curve_label(reports: &[LoadedReport], r: &LoadedReport, c: &Sensitivity) -> String {
    if reports.len() > 1 { format!("{}: {}", short(&r.label, 14), c.workload) } else { c.workload.clone() }
}

/// What the slowdowns are of, in words.
fn basis_text(c: &Sensitivity, basis: &str) -> &'static str {
    match (&c.server_probe, basis) {
        (Some(_), _) => "the probe's wall time per run (the inverse of the rate the server gives it)",
        (None, "cpu") => "the command's CPU time",
        (None, _) => "the command's wall time",
    }
}

fn sensitivity_rows(label: &str, s: &sensitivity::Slowdowns) -> Html {
    html! {
        { for s.levels.iter().map(|l| html! {
            <tr>
                <td>{ label.to_string() }</td>
                <td>{ l.name.clone() }</td>
                <td class="num">{ format_bytes(l.pressure_bytes) }</td>
                <td class="num">{ percent(l.median) }</td>
                <td class="num">{ format!("{} to {}", percent(l.min), percent(l.max)) }</td>
                <td>{ if l.beyond_noise { "beyond noise" } else { "" } }</td>
            </tr>
        }) }
    }
}

/// Slowdown against pressure, one line per workload; each level's runs as the whisker and the
/// no-pressure runs' spread as a band around 0.
#[function_component(SensitivityCard)]
pub fn sensitivity_card(props: &SectionProps) -> Html {
    let curves: Vec<(&LoadedReport, &Sensitivity)> =
        props.reports.iter().flat_map(|r| r.report.sensitivity.iter().map(move |c| (r, c))).collect();
    if curves.is_empty() {
        return Html::default();
    }
    let mut series = Vec::new();
    let mut noise = Vec::new();
    let mut readings = Vec::new();
    let mut rows = Vec::new();
    for (k, (r, c)) in curves.iter().enumerate() {
        let label = curve_label(&props.reports, r, c);
        let Some(s) = sensitivity::slowdowns(c) else {
            readings.push(html! { <li>{ format!("{label}: no run without pressure to measure a slowdown from; nothing drawn") }</li> });
            continue;
        };
        series.push(Series {
            label: label.clone(),
            color: k,
            dashed: c.server_probe.is_some(),
            points: s
                .levels
                .iter()
                .map(|l| Point {
                    x: l.pressure_bytes as f64,
                    y: l.median * 100.0,
                    lo: Some(l.min * 100.0),
                    hi: Some(l.max * 100.0),
                })
                .collect(),
        });
        noise.push(YBand {
            y0: s.noise_lo * 100.0,
            y1: s.noise_hi * 100.0,
            label: format!("{} without pressure", short(&label, 24)),
            color: k,
        });
        if let Some(reading) = &c.reading {
            readings.push(html! {
                <li><strong>{ format!("{label}: ") }</strong>{ format!("{} (slowdowns of {})", reading.verdict, basis_text(c, &s.basis)) }</li>
            });
        }
        rows.push(sensitivity_rows(&label, &s));
    }
    // Level names over the x axis when every curve has the same levels (one host's curves).
    let levels: Vec<Vec<(String, u64)>> = curves
        .iter()
        .map(|(_, c)| c.levels.iter().skip(1).map(|l| (l.name.clone(), l.pressure_bytes)).collect())
        .collect();
    let markers: Vec<Marker> = if levels.windows(2).all(|w| w[0] == w[1]) {
        levels[0].iter().map(|(name, bytes)| Marker { x: *bytes as f64, label: name.clone() }).collect()
    } else {
        Vec::new()
    };
    html! {
        <div class="card vm-hides sensitivity">
            <LineChart id="report-sensitivity" title="Slowdown against a neighbour's cache and memory pressure" x_label="pressure (bytes the neighbour streams)"
                y_label="slowdown, %" y_unit="%" x_format={XFormat::Bytes} series={Rc::new(series)} markers={Rc::new(markers)}
                y_bands={Rc::new(noise)} palette={props.palette} log_y={false}
                empty_text="no curve with a run without pressure to measure from" />
            <p class="muted small">{ "Whiskers: the range of each level's runs; shaded: the range of the runs without pressure (the noise a slowdown must exceed). Dashed: a server, timed through its probe." }</p>
            <ul class="readings">{ for readings }</ul>
            <table class="data">
                <thead><tr><th>{ "Workload" }</th><th>{ "Level" }</th><th>{ "Pressure" }</th><th>{ "Slowdown (median)" }</th><th>{ "Runs' range" }</th><th></th></tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
            { missing(&props.reports, |r| !r.report.sensitivity.is_empty(), "sensitivity", "memwall sensitivity --json") }
        </div>
    }
}

fn cores_heatmap(palette: Palette, r: &LoadedReport, c: &Cores) -> Html {
    let labels: Vec<String> = c.cpus.iter().map(|cpu| format!("cpu{cpu}")).collect();
    let cells: Vec<Vec<Cell>> = c
        .cpus
        .iter()
        .map(|&a| {
            c.cpus
                .iter()
                .map(|&b| match cores::pair_of(c, a, b).filter(|_| a != b) {
                    Some(pair) => Cell {
                        value: Some(pair.one_way_median_ns),
                        tier: cores::tier_of(c, pair),
                        text: format!(
                            "cpu{a} to cpu{b}: {} ns one way (p10-p90 {}-{}, {} samples)",
                            format_number(pair.one_way_median_ns),
                            format_number(pair.one_way_p10_ns),
                            format_number(pair.one_way_p90_ns),
                            pair.samples
                        ),
                    },
                    None => Cell {
                        value: None,
                        tier: None,
                        text: if a == b { format!("cpu{a}") } else { format!("cpu{a} to cpu{b}: not measured") },
                    },
                })
                .collect()
        })
        .collect();
    let tiers: Vec<String> = c
        .tiers
        .iter()
        .map(|t| {
            let name = cores::tier_name(c, t);
            format!(
                "{name}, {} pair{}, groups {}",
                t.pairs,
                if t.pairs == 1 { "" } else { "s" },
                cores::groups_text(&t.groups)
            )
        })
        .collect();
    html! {
        <div class="cores-heatmap">
            <Heatmap id={format!("report-cores-{}", r.id)} title={format!("Core-to-core latency, one way: {}", r.label)}
                labels={Rc::new(labels)} cells={Rc::new(cells)} tiers={Rc::new(tiers)} unit="ns" {palette} />
            <p>{ c.topology.clone() }</p>
            <ul class="muted small">{ for c.agreement.iter().map(|s| html! { <li>{ s.clone() }</li> }) }</ul>
        </div>
    }
}

/// The core-to-core matrix of each report that has one, its tiers named.
#[function_component(CoresCard)]
pub fn cores_card(props: &SectionProps) -> Html {
    let with: Vec<(&LoadedReport, &Cores)> =
        props.reports.iter().filter_map(|r| r.report.cores.as_ref().map(|c| (r, c))).collect();
    if with.is_empty() {
        return Html::default();
    }
    html! {
        <div class="card vm-hides cores">
            { for with.iter().map(|(r, c)| cores_heatmap(props.palette, r, c)) }
            { missing(&props.reports, |r| r.report.cores.is_some(), "cores", "memwall cores --json") }
        </div>
    }
}

fn seconds_text(s: f64) -> String {
    if s >= 60.0 && s % 60.0 == 0.0 { format!("{} min", s / 60.0) } else { format!("{} s", format_number(s)) }
}

fn watch_timeline(palette: Palette, r: &LoadedReport, w: &Watch) -> Html {
    let series: Vec<Series> = w
        .points
        .iter()
        .enumerate()
        .map(|(j, point)| Series {
            label: format!("{} {}", point.level, format_bytes(point.bytes)),
            color: j,
            dashed: false,
            points: w
                .samples
                .iter()
                .filter_map(|s| {
                    let ns = s.ns_per_load.get(j).copied().flatten()?;
                    Some(Point { x: s.at_s, y: ns, lo: None, hi: None })
                })
                .collect(),
        })
        .collect();
    let disturbed = stability::disturbed(w);
    let spans: Vec<Span> = w
        .samples
        .iter()
        .zip(&disturbed)
        .map(|(s, &marked)| Span {
            x0: s.at_s,
            x1: s.at_s + w.every_s,
            marked,
            share: stability::interval_steal_share(s),
        })
        .collect();
    let unmeasured = w.samples.iter().flat_map(|s| &s.ns_per_load).filter(|ns| ns.is_none()).count();
    html! {
        <div class="watch-timeline">
            <Timeline id={format!("report-watch-{}", r.id)} title={format!("Watched points every {}: {}", seconds_text(w.every_s), r.label)}
                y_label="ns per load" series={Rc::new(series)} spans={Rc::new(spans)}
                marked_label="disturbed interval" share_label="steal, share of CPU time" {palette} />
            if let Some(s) = &w.stability { <p>{ s.verdict.clone() }</p> }
            if let Some(why) = &w.steal_unavailable { <p class="muted small">{ format!("Steal time unavailable here: {why}; no steal drawn.") }</p> }
            if unmeasured > 0 { <p class="muted small">{ format!("{unmeasured} point measurements failed and are left out of the lines.") }</p> }
            if w.interrupted { <p class="muted small">{ "The watch was stopped early (Ctrl-C): the timeline ends there." }</p> }
        </div>
    }
}

/// Each watched point's ns over time, the disturbed intervals shaded, the steal under them.
#[function_component(WatchCard)]
pub fn watch_card(props: &SectionProps) -> Html {
    let with: Vec<(&LoadedReport, &Watch)> =
        props.reports.iter().filter_map(|r| r.report.watch.as_ref().map(|w| (r, w))).collect();
    if with.is_empty() {
        return Html::default();
    }
    html! {
        <div class="card vm-hides watch">
            { for with.iter().map(|(r, w)| watch_timeline(props.palette, r, w)) }
            { missing(&props.reports, |r| r.report.watch.is_some(), "watch", "memwall watch --json") }
        </div>
    }
}
