//! A square matrix as colored cells with their values (the core-to-core latencies): the color
//! runs from the fastest cell to the slowest on a log scale, and each cell names its tier.

use std::rc::Rc;

use yew::prelude::*;

use super::model::format_number;
use crate::theme::{CHART_FONT, Palette};

/// One cell: its value (`None` on the diagonal or where nothing was measured), its tier, and
/// the tooltip.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub value: Option<f64>,
    pub tier: Option<usize>,
    pub text: String,
}

#[derive(Debug, Properties, PartialEq)]
pub struct HeatmapProps {
    pub id: AttrValue,
    pub title: AttrValue,
    /// Row and column names, in order.
    pub labels: Rc<Vec<String>>,
    /// Rows of cells, `labels.len()` by `labels.len()`.
    pub cells: Rc<Vec<Vec<Cell>>>,
    /// The tiers' names, in the order `Cell::tier` counts them.
    pub tiers: Rc<Vec<String>>,
    pub unit: AttrValue,
    pub palette: Palette,
}

/// Blue (fastest) to red (slowest), by where `v` sits between `lo` and `hi` on a log scale.
fn ramp(v: f64, lo: f64, hi: f64) -> String {
    let t = if hi > lo && v > 0.0 && lo > 0.0 { ((v / lo).ln() / (hi / lo).ln()).clamp(0.0, 1.0) } else { 0.0 };
    format!("hsl({:.0}, 70%, {:.0}%)", 215.0 * (1.0 - t), 62.0 - 12.0 * t)
}

#[function_component(Heatmap)]
pub fn heatmap(props: &HeatmapProps) -> Html {
    let p = props.palette;
    let n = props.labels.len();
    let values = props.cells.iter().flatten().filter_map(|c| c.value).filter(|v| v.is_finite());
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    // Cells shrink as CPUs are added, down to what still fits a number.
    let cell = (560.0 / n.max(1) as f64).clamp(22.0, 72.0);
    let (left, top) = (64.0, 40.0);
    let grid_w = cell * n as f64;
    let legend_top = top + grid_w + 22.0;
    let width = (left + grid_w + 16.0).max(420.0);
    let height = legend_top + props.tiers.len() as f64 * 17.0 + 8.0;
    let font = (cell * 0.3).clamp(8.0, 13.0);
    let heads = props.labels.iter().enumerate().map(|(i, label)| {
        let mid = left + (i as f64 + 0.5) * cell;
        let side = top + (i as f64 + 0.5) * cell;
        html! {
            <g>
                <text x={mid.to_string()} y={(top - 6.0).to_string()} text-anchor="middle" font-size="11" fill={p.muted}>{ label.clone() }</text>
                <text x={(left - 6.0).to_string()} y={(side + 4.0).to_string()} text-anchor="end" font-size="11" fill={p.muted}>{ label.clone() }</text>
            </g>
        }
    });
    let cells =
        props.cells.iter().enumerate().flat_map(|(r, row)| row.iter().enumerate().map(move |(c, cellv)| (r, c, cellv)));
    let cells = cells.map(|(r, c, v)| {
        let (x, y) = (left + c as f64 * cell, top + r as f64 * cell);
        let fill = v.value.filter(|v| v.is_finite()).map_or(p.grid.to_string(), |v| ramp(v, lo, hi));
        html! {
            <g class="cell" data-tier={v.tier.map(|t| (t + 1).to_string())}>
                <rect x={x.to_string()} y={y.to_string()} width={(cell - 1.0).to_string()} height={(cell - 1.0).to_string()} fill={fill}>
                    <title>{ v.text.clone() }</title>
                </rect>
                if let Some(value) = v.value {
                    <text x={(x + cell / 2.0).to_string()} y={(y + cell / 2.0 + font / 3.0).to_string()} text-anchor="middle" font-size={font.to_string()} fill="#111" pointer-events="none">{ format_number(value) }</text>
                }
            </g>
        }
    });
    let legend = props.tiers.iter().enumerate().map(|(i, name)| {
        html! {
            <text class="tier" x={left.to_string()} y={(legend_top + i as f64 * 17.0).to_string()} font-size="11.5" fill={p.text}>{ format!("tier {}: {name}", i + 1) }</text>
        }
    });
    html! {
        <div class="chart">
            // Drawn at most a little above its own size: a few CPUs' matrix must not fill the card.
            <svg id={props.id.clone()} xmlns="http://www.w3.org/2000/svg" viewBox={format!("0 0 {width} {height}")} role="img"
                style={format!("max-width:{:.0}px", width * 1.25)}
                aria-label={format!("{}; {} by {} CPUs, {}; the table below lists the same numbers", props.title, n, n, props.unit)} font-family={CHART_FONT}>
                <rect x="0" y="0" width={width.to_string()} height={height.to_string()} fill={p.background} />
                <text x="8" y="18" font-size="14" font-weight="600" fill={p.text}>{ props.title.clone() }</text>
                { for heads }
                { for cells }
                { for legend }
            </svg>
        </div>
    }
}
