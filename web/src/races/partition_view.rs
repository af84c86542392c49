//! How a side's rows spread over partitions, drawn from counts the core made: a shaded grid of
//! the partitions and a histogram of their sizes. The GROUP BY picture (`radix_viz.rs`) and the
//! join's build and probe sides share it.

use std::rc::Rc;

use yew::prelude::*;

use crate::theme::{CHART_FONT, Palette};
use crate::util::group_digits;

/// Cells the static grid draws at most; beyond, a cell stands for several partitions.
const MAX_GRID_CELLS: usize = 1024;

/// How many of `keys` fall in each of `partitions` partitions by `partition_of` (the GROUP BY's
/// or the join's partition function): the counts both pictures are drawn from.
pub fn count_partitions(
    keys: impl Iterator<Item = i64>,
    partitions: u32,
    partition_of: impl Fn(i64, u32) -> u32,
) -> Vec<u32> {
    let mut counts = vec![0u32; partitions as usize];
    for key in keys {
        counts[partition_of(key, partitions) as usize] += 1;
    }
    counts
}

/// A histogram of `counts` (one per partition): how many partitions hold how many `unit`.
pub fn histogram(counts: &[u32], palette: Palette, title: &str, unit: &str) -> Html {
    let (lo, hi) = counts.iter().fold((u32::MAX, 0), |(a, b), &c| (a.min(c), b.max(c)));
    if counts.is_empty() || lo > hi {
        return html! {};
    }
    let bins = 16usize.min((hi - lo + 1) as usize).max(1);
    let width = f64::from(hi - lo + 1) / bins as f64;
    let mut hist = vec![0u32; bins];
    for &c in counts {
        hist[(((c - lo) as f64 / width) as usize).min(bins - 1)] += 1;
    }
    let peak = hist.iter().copied().max().unwrap_or(1).max(1);
    let (w, h, left, bottom) = (360.0, 240.0, 44.0, 40.0);
    let bw = (w - left - 10.0) / bins as f64;
    let median = {
        let mut sorted = counts.to_vec();
        sorted.sort_unstable();
        sorted[sorted.len() / 2]
    };
    html! {
        <figure class="histogram">
            <svg viewBox={format!("0 0 {w} {h}")} role="img" font-family={CHART_FONT}
                aria-label={format!("Histogram: {unit} per partition range from {lo} to {hi}, median {median}")}>
                <text x="4" y="14" font-size="12" font-weight="600" fill={palette.text}>{ title.to_string() }</text>
                { for hist.iter().enumerate().map(|(i, &n)| {
                    let bh = (h - bottom - 24.0) * f64::from(n) / f64::from(peak);
                    let from = lo as f64 + i as f64 * width;
                    html! {
                        <rect x={(left + i as f64 * bw + 1.0).to_string()} y={(h - bottom - bh).to_string()} width={(bw - 2.0).max(1.0).to_string()} height={bh.to_string()} fill={palette.color(0)}>
                            <title>{ format!("{n} partitions hold {:.0}–{:.0} {unit}", from.ceil(), (from + width).ceil() - 1.0) }</title>
                        </rect>
                    }
                }) }
                <line x1={left.to_string()} x2={(w - 10.0).to_string()} y1={(h - bottom).to_string()} y2={(h - bottom).to_string()} stroke={palette.axis} />
                <text x={left.to_string()} y={(h - bottom + 14.0).to_string()} font-size="10.5" fill={palette.muted}>{ lo }</text>
                <text x={(w - 10.0).to_string()} y={(h - bottom + 14.0).to_string()} font-size="10.5" text-anchor="end" fill={palette.muted}>{ hi }</text>
                <text x={((left + w - 10.0) / 2.0).to_string()} y={(h - 8.0).to_string()} font-size="11" text-anchor="middle" fill={palette.muted}>{ format!("{unit} in a partition") }</text>
                <text x={(left - 6.0).to_string()} y="30" font-size="10.5" text-anchor="end" fill={palette.muted}>{ peak }</text>
                <text transform={format!("translate(12 {}) rotate(-90)", (h - bottom) / 2.0 + 10.0)} font-size="11" text-anchor="middle" fill={palette.muted}>{ "partitions" }</text>
            </svg>
            <figcaption class="muted small">{ format!("{} partitions: median {median}, smallest {lo}, largest {hi} {unit}.", counts.len()) }</figcaption>
        </figure>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub title: AttrValue,
    /// What a partition holds: "build keys", "probe rows".
    pub unit: AttrValue,
    pub counts: Rc<Vec<u32>>,
    pub palette: Palette,
}

/// One side's partitions: the grid shaded by count against the mean, and the histogram.
#[function_component(PartitionView)]
pub fn partition_view(props: &Props) -> Html {
    let counts = &props.counts;
    let per_cell = counts.len().div_ceil(MAX_GRID_CELLS).max(1);
    let cells: Vec<u64> = counts.chunks(per_cell).map(|c| c.iter().map(|&n| u64::from(n)).sum()).collect();
    let cols = (cells.len() as f64).sqrt().ceil().max(1.0) as usize;
    let rows = cells.len().div_ceil(cols).max(1);
    let total: u64 = cells.iter().sum();
    let mean = total as f64 / cells.len().max(1) as f64;
    let palette = props.palette;
    html! {
        <div class="partition-view">
            <h3>{ props.title.clone() }</h3>
            <div class="viz-grid">
                <svg viewBox={format!("0 0 {cols} {rows}")} class="partition-grid" role="img" preserveAspectRatio="none"
                    aria-label={format!("{} partitions of {} {}, shaded by how many each holds; the histogram gives the numbers.", counts.len(), group_digits(total), props.unit)}>
                    { for cells.iter().enumerate().map(|(i, &n)| {
                        let v = if mean > 0.0 { (n as f64 / mean / 2.0).min(1.0) } else { 0.0 };
                        html! { <rect x={(i % cols).to_string()} y={(i / cols).to_string()} width="0.92" height="0.92" fill={palette.color(0)}
                            opacity={format!("{:.3}", if n == 0 { 0.06 } else { 0.12 + 0.85 * v })} /> }
                    }) }
                </svg>
                { histogram(counts, palette, &format!("{} per partition", props.unit), &props.unit) }
            </div>
            if per_cell > 1 { <p class="muted small">{ format!("Each cell is {per_cell} partitions.") }</p> }
        </div>
    }
}
