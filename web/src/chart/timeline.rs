//! Values over time (the watched ladder points): a linear time axis, a log value axis, shaded
//! spans (the disturbed intervals), and a strip under the plot for a share per span (the steal).

use std::rc::Rc;

use yew::prelude::*;

use super::model::{BOTTOM, LEFT, RIGHT, Series, format_number, view_width};
use super::scale::{Scale, linear_ticks, log_ticks};
use crate::theme::{CHART_FONT, Palette};

/// A span of time: shaded in the plot when `marked`, its `share` (0-1) drawn in the strip.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub x0: f64,
    pub x1: f64,
    pub marked: bool,
    pub share: Option<f64>,
}

#[derive(Debug, Properties, PartialEq)]
pub struct TimelineProps {
    pub id: AttrValue,
    pub title: AttrValue,
    pub y_label: AttrValue,
    /// Each series' points: x in seconds from the start.
    pub series: Rc<Vec<Series>>,
    pub spans: Rc<Vec<Span>>,
    /// What the shading means, and what the strip's share is.
    pub marked_label: AttrValue,
    pub share_label: AttrValue,
    pub palette: Palette,
}

fn clock(seconds: f64) -> String {
    let s = seconds.round().max(0.0) as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

#[function_component(Timeline)]
pub fn timeline(props: &TimelineProps) -> Html {
    let p = props.palette;
    let view_w = view_width();
    let legend_y = 36.0;
    let top = legend_y + 14.0;
    let plot_bottom = 300.0;
    let strip = (plot_bottom + 30.0, plot_bottom + 80.0);
    let height = strip.1 + BOTTOM;
    let points = props.series.iter().flat_map(|s| s.points.iter()).filter(|pt| pt.y.is_finite() && pt.y > 0.0);
    let (x1, y_lo, y_hi) = points
        .fold((0.0f64, f64::INFINITY, f64::NEG_INFINITY), |(x, lo, hi), pt| (x.max(pt.x), lo.min(pt.y), hi.max(pt.y)));
    let x1 = props.spans.iter().map(|s| s.x1).fold(x1, f64::max).max(1.0);
    let (y0, y1) = if y_lo.is_finite() { (y_lo / 1.25, (y_hi * 1.25).max(y_lo * 4.0)) } else { (1.0, 100.0) };
    let xs = Scale { d0: 0.0, d1: x1, r0: LEFT, r1: view_w - RIGHT, log: false };
    let ys = Scale { d0: y0, d1: y1, r0: plot_bottom, r1: top, log: true };
    let share_max = props.spans.iter().filter_map(|s| s.share).fold(0.0f64, f64::max).max(0.05);
    let ss = Scale { d0: 0.0, d1: share_max, r0: strip.1, r1: strip.0, log: false };

    let shading = props.spans.iter().filter(|s| s.marked).map(|s| {
        let (a, b) = (xs.map(s.x0), xs.map(s.x1));
        html! { <rect class="marked" x={a.to_string()} y={top.to_string()} width={(b - a).max(1.0).to_string()} height={(plot_bottom - top).to_string()} fill={p.band} /> }
    });
    let y_grid = log_ticks(y0, y1, 7).into_iter().map(|t| {
        let y = ys.map(t);
        html! {
            <g>
                <line x1={LEFT.to_string()} x2={(view_w - RIGHT).to_string()} y1={y.to_string()} y2={y.to_string()} stroke={p.grid} />
                <text x={(LEFT - 8.0).to_string()} y={(y + 4.0).to_string()} text-anchor="end" font-size="11" fill={p.muted}>{ format_number(t) }</text>
            </g>
        }
    });
    let x_grid = linear_ticks(0.0, x1, 6.0).into_iter().map(|t| {
        let x = xs.map(t);
        html! {
            <g>
                <line x1={x.to_string()} x2={x.to_string()} y1={top.to_string()} y2={strip.1.to_string()} stroke={p.grid} />
                <text x={x.to_string()} y={(strip.1 + 16.0).to_string()} text-anchor="middle" font-size="11" fill={p.muted}>{ clock(t) }</text>
            </g>
        }
    });
    let lines = props.series.iter().map(|s| {
        let color = p.color(s.color);
        let pts: Vec<_> = s.points.iter().filter(|pt| pt.y.is_finite() && pt.y > 0.0).collect();
        let d: String = pts
            .iter()
            .enumerate()
            .map(|(i, pt)| format!("{}{:.1},{:.1}", if i == 0 { "M" } else { " L" }, xs.map(pt.x), ys.map(pt.y)))
            .collect();
        html! {
            <g class="series">
                <path d={d} fill="none" stroke={color} stroke-width="1.8" stroke-linejoin="round" />
                { for pts.iter().map(|pt| html! {
                    <circle cx={format!("{:.1}", xs.map(pt.x))} cy={format!("{:.1}", ys.map(pt.y))} r="2.4" fill={color}>
                        <title>{ format!("{} at {}: {} ns", s.label, clock(pt.x), format_number(pt.y)) }</title>
                    </circle>
                }) }
            </g>
        }
    });
    let bars = props.spans.iter().filter_map(|s| {
        let share = s.share?;
        let (a, b) = (xs.map(s.x0), xs.map(s.x1));
        let y = ss.map(share);
        Some(html! {
            <rect class="share" x={a.to_string()} y={y.to_string()} width={(b - a - 1.0).max(1.0).to_string()} height={(strip.1 - y).max(0.5).to_string()} fill={p.marker}>
                <title>{ format!("{} from {}: {:.1}%", props.share_label, clock(s.x0), share * 100.0) }</title>
            </rect>
        })
    });
    let item_w = (view_w - LEFT - RIGHT) / (props.series.len() + 1).max(2) as f64;
    let legend = props.series.iter().enumerate().map(|(i, s)| {
        let x = LEFT + i as f64 * item_w;
        html! {
            <g>
                <line x1={x.to_string()} x2={(x + 16.0).to_string()} y1={(legend_y - 4.0).to_string()} y2={(legend_y - 4.0).to_string()} stroke={p.color(s.color)} stroke-width="3" />
                <text x={(x + 22.0).to_string()} y={legend_y.to_string()} font-size="11.5" fill={p.text}>{ s.label.clone() }</text>
            </g>
        }
    });
    let marked_x = LEFT + props.series.len() as f64 * item_w;
    html! {
        <div class="chart">
            <svg id={props.id.clone()} xmlns="http://www.w3.org/2000/svg" viewBox={format!("0 0 {view_w} {height}")} role="img"
                aria-label={format!("{}: {} against time, log scale, with {} shaded and {} in the strip below; the table below lists the same numbers", props.title, props.y_label, props.marked_label, props.share_label)} font-family={CHART_FONT}>
                <rect x="0" y="0" width={view_w.to_string()} height={height.to_string()} fill={p.background} />
                <text x={LEFT.to_string()} y="18" font-size="14" font-weight="600" fill={p.text}>{ props.title.clone() }</text>
                { for legend }
                <rect x={marked_x.to_string()} y={(legend_y - 10.0).to_string()} width="14" height="10" fill={p.band} />
                <text x={(marked_x + 20.0).to_string()} y={legend_y.to_string()} font-size="11.5" fill={p.text}>{ props.marked_label.clone() }</text>
                { for shading }
                { for y_grid }
                { for x_grid }
                <line x1={LEFT.to_string()} x2={LEFT.to_string()} y1={top.to_string()} y2={plot_bottom.to_string()} stroke={p.axis} />
                <line x1={LEFT.to_string()} x2={(view_w - RIGHT).to_string()} y1={plot_bottom.to_string()} y2={plot_bottom.to_string()} stroke={p.axis} />
                { for lines }
                <text transform={format!("translate(15 {}) rotate(-90)", (top + plot_bottom) / 2.0)} text-anchor="middle" font-size="12" fill={p.muted}>{ format!("{} (log scale)", props.y_label) }</text>
                <line x1={LEFT.to_string()} x2={(view_w - RIGHT).to_string()} y1={strip.1.to_string()} y2={strip.1.to_string()} stroke={p.axis} />
                { for bars }
                <text x={(LEFT - 8.0).to_string()} y={(strip.0 + 4.0).to_string()} text-anchor="end" font-size="11" fill={p.muted}>{ format!("{:.0}%", share_max * 100.0) }</text>
                <text x={(LEFT + 4.0).to_string()} y={(strip.0 - 4.0).to_string()} font-size="11" fill={p.muted}>{ props.share_label.clone() }</text>
                <text x={((LEFT + view_w - RIGHT) / 2.0).to_string()} y={(height - 8.0).to_string()} text-anchor="middle" font-size="12" fill={p.muted}>{ "time since the watch began (m:ss)" }</text>
            </svg>
        </div>
    }
}
