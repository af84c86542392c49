//! What a ladder holds beside its main curve, drawn for the browser's run and for loaded
//! reports alike: the other patterns' curves, the levels the core named, memory-level
//! parallelism, and streaming bandwidth.

use std::rc::Rc;

use memwall_core::size::format_bytes;
use memwall_report::{Ladder, Parallelism};
use yew::prelude::*;

use super::names::curve_label;
use crate::chart::{LineChart, Point, Series, XFormat};
use crate::reports::to_points;
use crate::theme::Palette;

/// The ladder's extra curves (page-local, page-stride, sequential, other page sizes), dashed,
/// in the color of the run they belong to.
pub fn extra_series(label: &str, color: usize, ladder: &Ladder) -> Vec<Series> {
    ladder
        .curves
        .iter()
        .filter(|c| !c.points.is_empty())
        .map(|c| Series {
            label: curve_label(label, &c.pattern, &c.huge_pages),
            color,
            dashed: true,
            points: to_points(&c.points),
        })
        .collect()
}

/// One run's memory-level parallelism, for [`ParallelismChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct ParallelismRun {
    pub label: String,
    pub color: usize,
    pub parallelism: Parallelism,
}

#[derive(Debug, Properties, PartialEq)]
pub struct ParallelismProps {
    pub id: AttrValue,
    pub runs: Rc<Vec<ParallelismRun>>,
    pub palette: Palette,
}

/// ns per load against the number of interleaved chases: it falls until the core runs out of
/// misses it can keep in flight (the knee, named under the chart).
#[function_component(ParallelismChart)]
pub fn parallelism_chart(props: &ParallelismProps) -> Html {
    if props.runs.is_empty() {
        return html! {};
    }
    let series: Vec<Series> = props
        .runs
        .iter()
        .map(|r| Series {
            label: format!("{} at {}", r.label, format_bytes(r.parallelism.bytes)),
            color: r.color,
            dashed: false,
            points: r
                .parallelism
                .points
                .iter()
                .map(|p| Point { x: f64::from(p.chains), y: p.ns_per_load, lo: None, hi: None })
                .collect(),
        })
        .collect();
    let knees = props.runs.iter().map(|r| {
        let knee = match r.parallelism.knee_chains {
            Some(k) => format!("knee at {k} chases: about {k} misses in flight per core"),
            None => "no knee in range: more chases still paid at the end".to_string(),
        };
        html! { <li>{ format!("{}: {knee}; {:.1}x faster than one chase at best", r.label, r.parallelism.max_speedup) }</li> }
    });
    html! {
        <div class="parallelism">
            <LineChart id={props.id.clone()} title="Memory-level parallelism: ns per load against chases in flight" x_label="independent chases" y_label="ns per load" y_unit="ns"
                x_format={XFormat::Count} series={Rc::new(series)} palette={props.palette} height={300.0} />
            <ul class="knees">{ for knees }</ul>
        </div>
    }
}

/// One report's one-thread bandwidth, for [`BandwidthChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct BandwidthRun {
    pub label: String,
    pub color: usize,
    pub points: Vec<crate::overlay::BandwidthPoint>,
}

#[derive(Debug, Properties, PartialEq)]
pub struct BandwidthProps {
    pub id: AttrValue,
    pub runs: Rc<Vec<BandwidthRun>>,
    pub palette: Palette,
}

/// One thread's streaming read (solid) and copy (dashed) in GB/s against the working set:
/// latency's other face, drawn beside the ladder.
#[function_component(BandwidthChart)]
pub fn bandwidth_chart(props: &BandwidthProps) -> Html {
    if props.runs.is_empty() {
        return html! {};
    }
    let mut series = Vec::new();
    for r in props.runs.iter() {
        let one = &r.points;
        let line = |name: &str, dashed: bool, gb: &dyn Fn(&crate::overlay::BandwidthPoint) -> f64| Series {
            label: format!("{} {name}", r.label),
            color: r.color,
            dashed,
            points: one.iter().map(|p| Point { x: p.bytes as f64, y: gb(p), lo: None, hi: None }).collect(),
        };
        series.push(line("read", false, &|p| p.read_gb_per_s));
        series.push(line("copy", true, &|p| p.copy_gb_per_s));
    }
    html! {
        <LineChart id={props.id.clone()} title="Streaming bandwidth, one thread" x_label="working set" y_label="GB/s (10^9 bytes/s)" y_unit="GB/s"
            x_format={XFormat::Bytes} series={Rc::new(series)} palette={props.palette} log_y={false} height={320.0} />
    }
}
