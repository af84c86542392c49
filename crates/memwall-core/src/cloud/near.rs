//! Which instance types of the shelf have curves closest to a host's own: `memwall cloud --near
//! REPORT.json`, and the page placing a visitor among the shelf.
//!
//! The distance is the root mean square of the differences in log latency, taken at the shelf
//! curve's sizes, the report's curve interpolated there (straight between its two neighbouring
//! sizes, in log size and log latency, as the ladder's chart draws it). A distance `d` means the
//! two curves sit a factor of about `e^d` apart, size for size (0.095 is 10%, 0.405 is 50%); it
//! weighs a 2x gap in L1 as much as one in DRAM, as a log-latency chart shows them.

use memwall_report::{LadderPoint, Report};

use super::ShelfHost;
use crate::explain::{CurveView, Evidence};
use crate::ladder::Pattern;
use crate::size::format_bytes;

/// Fewer shared sizes than this and a type is not ranked: two points say nothing of a curve's
/// shape (three place one step between two treads).
pub const MIN_SHARED_SIZES: usize = 3;

/// The report's curve the shelf's are compared with, and how like theirs it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// "random on THP", as the reader labels its curves.
    pub label: String,
    /// Why the comparison is not like for like, when it is not.
    pub caution: Option<String>,
    /// (bytes, ns per load): the curve's medians (the shelf keeps each size's median).
    pub points: Vec<(u64, f64)>,
}

/// One instance type ranked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nearest {
    /// The type's index among the shelf's hosts.
    pub index: usize,
    /// The RMS of log-latency differences (see the module's documentation).
    pub distance: f64,
    /// How many of the shelf curve's sizes fell within the report's curve.
    pub sizes: usize,
}

/// The shelf ranked against one report, nearest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Near {
    pub compared: Compared,
    pub ranked: Vec<Nearest>,
    /// Types left out: fewer than [`MIN_SHARED_SIZES`] of their sizes within the report's curve.
    pub left_out: usize,
}

/// Why a report cannot be placed among the shelf.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NearError {
    #[error("the report has no latency ladder to compare")]
    NoLadder,
    #[error("the report's ladder has no random or page-local curve to compare (it has {0})")]
    NoComparableCurve(String),
}

/// The report's curve most like the shelf's (a random chase on huge pages): random on huge pages
/// where it has one; else page-local (no page walks either, the caches and DRAM alone), on huge
/// pages first; else random on small pages, with a caution.
pub fn compared_curve(report: &Report) -> Result<Compared, NearError> {
    let ladder = report.ladder.as_ref().ok_or(NearError::NoLadder)?;
    let evidence = Evidence::of(ladder, &[], None);
    let curves = &evidence.curves;
    let find = |pattern: Pattern, huge: bool| curves.iter().find(|c| c.pattern == pattern && c.huge == huge);
    let pick =
        |c: &CurveView<'_>, caution: Option<String>| Compared { label: c.label(), caution, points: medians(c.points) };
    if let Some(c) = find(Pattern::Random, true) {
        return Ok(pick(c, None));
    }
    if let Some(c) = find(Pattern::PageLocal, true).or_else(|| find(Pattern::PageLocal, false)) {
        return Ok(pick(c, None));
    }
    if let Some(c) = find(Pattern::Random, false) {
        let caution = "the report has no random curve on huge pages and no page-local one: random on small pages \
                       pays page walks past the TLB's reach that the shelf's huge pages do not, so its large sizes \
                       read slower than the same machine would on the shelf (memwall run measures random on THP)";
        return Ok(pick(c, Some(caution.to_string())));
    }
    let had: Vec<String> = curves.iter().map(CurveView::label).collect();
    Err(NearError::NoComparableCurve(if had.is_empty() { "none".into() } else { had.join(", ") }))
}

fn medians(points: &[LadderPoint]) -> Vec<(u64, f64)> {
    points.iter().filter(|p| p.ns_per_load.median > 0.0).map(|p| (p.bytes, p.ns_per_load.median)).collect()
}

/// `own`'s log latency at `bytes`, straight between its neighbours in log size; `None` outside it.
fn log_ns_at(own: &[(u64, f64)], bytes: u64) -> Option<f64> {
    let after = own.iter().position(|&(b, _)| b >= bytes)?;
    let (b1, ns1) = own[after];
    if b1 == bytes {
        return Some(ns1.ln());
    }
    let (b0, ns0) = own[after.checked_sub(1)?];
    let t = ((bytes as f64).ln() - (b0 as f64).ln()) / ((b1 as f64).ln() - (b0 as f64).ln());
    Some(ns0.ln() + t * (ns1.ln() - ns0.ln()))
}

/// The distance of a shelf curve from `own` (see the module's documentation), and over how many
/// of the shelf's sizes; `None` where fewer than [`MIN_SHARED_SIZES`] fall within `own`.
pub fn distance(shelf: &[(u64, f64)], own: &[(u64, f64)]) -> Option<(f64, usize)> {
    let gaps: Vec<f64> = shelf.iter().filter_map(|&(bytes, ns)| Some(ns.ln() - log_ns_at(own, bytes)?)).collect();
    if gaps.len() < MIN_SHARED_SIZES {
        return None;
    }
    let mean_square = gaps.iter().map(|g| g * g).sum::<f64>() / gaps.len() as f64;
    Some((mean_square.sqrt(), gaps.len()))
}

/// Every type of `hosts` ranked by its distance from `report`'s compared curve, nearest first.
pub fn near(report: &Report, hosts: &[ShelfHost]) -> Result<Near, NearError> {
    Ok(rank(compared_curve(report)?, hosts))
}

/// Every type of `hosts` ranked by its distance from `compared`, nearest first.
pub fn rank(compared: Compared, hosts: &[ShelfHost]) -> Near {
    let mut ranked: Vec<Nearest> = hosts
        .iter()
        .enumerate()
        .filter_map(|(index, h)| {
            distance(&h.entry.latency, &compared.points).map(|(distance, sizes)| Nearest { index, distance, sizes })
        })
        .collect();
    ranked.sort_by(|a, b| a.distance.total_cmp(&b.distance));
    let left_out = hosts.len() - ranked.len();
    Near { compared, ranked, left_out }
}

impl Near {
    /// What was compared with what, in one sentence.
    pub fn describe(&self, report_name: &str) -> String {
        let span = match (self.compared.points.first(), self.compared.points.last()) {
            (Some(a), Some(b)) => format!(" ({} to {})", format_bytes(a.0), format_bytes(b.0)),
            _ => String::new(),
        };
        format!(
            "compared: {report_name}'s {} curve{span} with each type's random chase on huge pages; distance: the RMS of \
             log-latency differences at the type's sizes (0.10 is ~10% apart size for size)",
            self.compared.label
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{ladder, point};
    use memwall_report::{Curve, Host, Source};

    fn own_report(pages: &str, extra: Vec<Curve>) -> Report {
        let points = [(16u64 << 10, 1.2), (256 << 10, 4.0), (4 << 20, 14.0), (64 << 20, 90.0), (1 << 30, 110.0)]
            .into_iter()
            .map(|(b, ns)| point(b, ns))
            .collect();
        let mut report = Report::new(Source::Native, 0, Host::default());
        report.ladder = Some(ladder("random-cycle", pages, points, extra));
        report
    }

    #[test]
    fn a_curve_scaled_by_one_point_one_is_nearer_than_one_scaled_by_one_point_five() {
        let report = own_report("thp", vec![]);
        let own = compared_curve(&report).unwrap();
        assert_eq!((own.label.as_str(), own.caution.as_ref()), ("random on THP", None));
        let scaled = |k: f64| own.points.iter().map(|&(b, ns)| (b, ns * k)).collect::<Vec<_>>();
        let (near, sizes) = distance(&scaled(1.1), &own.points).unwrap();
        let (far, _) = distance(&scaled(1.5), &own.points).unwrap();
        assert_eq!(sizes, 5);
        assert!((near - 1.1f64.ln()).abs() < 1e-9 && (far - 1.5f64.ln()).abs() < 1e-9, "{near} {far}");
        assert!(near < far);
        // A curve below the report's is as far as one above it by the same factor.
        let (below, _) = distance(&scaled(1.0 / 1.1), &own.points).unwrap();
        assert!((below - near).abs() < 1e-9);
    }

    #[test]
    fn sizes_between_the_reports_are_interpolated_in_log_size_and_latency() {
        let own = [(1 << 20, 10.0), (4 << 20, 40.0)];
        // 2 MiB is halfway in log size: the geometric mean, 20 ns.
        assert!((log_ns_at(&own, 2 << 20).unwrap() - 20f64.ln()).abs() < 1e-12);
        assert_eq!(log_ns_at(&own, 8 << 20), None);
        assert_eq!(log_ns_at(&own, 512 << 10), None);
        // Two shared sizes are too few to rank a type.
        assert_eq!(distance(&[(1 << 20, 10.0), (4 << 20, 40.0), (64 << 20, 90.0)], &own), None);
    }

    #[test]
    fn the_curve_compared_is_the_most_like_the_shelfs() {
        let local = |pages: &str| Curve {
            pattern: "page-local".into(),
            huge_pages: pages.into(),
            chains: 1,
            points: own_report("off", vec![]).ladder.unwrap().points,
        };
        let with_local = own_report("off", vec![local("off"), local("thp")]);
        let picked = compared_curve(&with_local).unwrap();
        assert_eq!((picked.label.as_str(), picked.caution), ("page-local on THP", None));
        let small_only = compared_curve(&own_report("off", vec![])).unwrap();
        assert_eq!(small_only.label, "random on 4 KiB pages");
        assert!(small_only.caution.unwrap().contains("page walks"));
        let mut no_ladder = own_report("off", vec![]);
        no_ladder.ladder = None;
        assert_eq!(compared_curve(&no_ladder), Err(NearError::NoLadder));
        let mut sequential = own_report("off", vec![]);
        sequential.ladder.as_mut().unwrap().pattern = "sequential".into();
        assert!(matches!(compared_curve(&sequential), Err(NearError::NoComparableCurve(_))));
    }
}
