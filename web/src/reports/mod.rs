//! The reports the page holds (opened files, links, this browser's runs), and how a report's
//! ladder and host turn into chart data. The pages share these; none of them owns them.

mod charts;
pub mod page;
mod tables;
mod vm_hides;

use std::rc::Rc;

use memwall_core::describe;
use memwall_report::{Host, LadderPoint, Report};

use crate::chart::{Marker, Point};
use crate::util;

/// A report the user opened, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedReport {
    /// Stable while the page lives; also picks the report's color.
    pub id: u32,
    pub label: String,
    /// "memwall-report.json", a URL, "this browser", "shared link", ...
    pub origin: String,
    pub report: Rc<Report>,
}

/// Every report open in the page, oldest first.
pub type Reports = Rc<Vec<LoadedReport>>;

/// A short name for a report: the host's name, else its CPU, else where it ran.
pub fn report_label(report: &Report) -> String {
    report
        .host
        .name
        .clone()
        .filter(|n| !n.trim().is_empty())
        .or_else(|| report.host.cpu_model.clone())
        .unwrap_or_else(|| format!("{:?} report", report.source).to_lowercase())
}

/// A ladder as chart points: the median, with min and max as the whisker.
pub fn to_points(points: &[LadderPoint]) -> Vec<Point> {
    points
        .iter()
        .map(|p| Point {
            x: p.bytes as f64,
            y: p.ns_per_load.median,
            lo: Some(p.ns_per_load.min),
            hi: Some(p.ns_per_load.max),
        })
        .collect()
}

/// Vertical lines at the data and unified caches a host declared ("L1d 48 KiB", "L2 2 MiB").
pub fn cache_markers(host: &Host) -> Vec<Marker> {
    describe::data_caches(&host.caches)
        .into_iter()
        .map(|c| Marker { x: c.size_bytes as f64, label: describe::cache_label(c) })
        .collect()
}

/// This browser as a report's host: what a page may know about the machine it runs on.
pub fn browser_host(
    name: Option<String>,
    timer_resolution_ns: Option<f64>,
    cross_origin_isolated: Option<bool>,
) -> Host {
    let navigator = util::window().navigator();
    Host {
        name,
        logical_cpus: Some(navigator.hardware_concurrency() as u32).filter(|&n| n > 0),
        timer_resolution_ns,
        user_agent: Some(util::user_agent()),
        cross_origin_isolated,
        ..Host::default()
    }
}
