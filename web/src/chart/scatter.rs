//! The scatter chart (the fleet: one dot per host): x on a log-2 scale as the ladder's is, y
//! linear from zero, each dot's area from a third figure and its colour from a group.

use std::rc::Rc;

use yew::prelude::*;

use super::model::{BOTTOM, LEFT, RIGHT, XFormat, format_number, view_width};
use super::scale::{Scale, linear_ticks};
use crate::theme::{CHART_FONT, Palette};

/// One dot: where, how big (`None`: the figure is unknown, drawn small and hollow), which group.
#[derive(Debug, Clone, PartialEq)]
pub struct Dot {
    pub x: f64,
    pub y: f64,
    pub size: Option<f64>,
    pub group: usize,
    /// The tooltip: what the dot is and its figures.
    pub label: String,
}

/// A group of dots: its legend entry and its colour in the palette.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub label: String,
    pub color: usize,
}

#[derive(Debug, Properties, PartialEq)]
pub struct ScatterProps {
    pub id: AttrValue,
    pub title: AttrValue,
    pub x_label: AttrValue,
    pub y_label: AttrValue,
    pub x_format: XFormat,
    /// What a dot's size stands for, for the legend.
    pub size_label: AttrValue,
    pub groups: Rc<Vec<Group>>,
    pub dots: Rc<Vec<Dot>>,
    pub palette: Palette,
    /// Called with a dot's index when it is clicked.
    #[prop_or_default]
    pub on_pick: Option<Callback<usize>>,
    #[prop_or(400.0)]
    pub height: f64,
    /// Dots drawn over the others as rings in the text's colour, e.g. the visitor's own hosts
    /// among the cloud shelf's types, with their legend entry.
    #[prop_or_default]
    pub highlights: Rc<Vec<Dot>>,
    #[prop_or_default]
    pub highlight_label: AttrValue,
}

const MIN_R: f64 = 3.0;
const MAX_R: f64 = 13.0;
/// A legend entry's width; past [`ONE_LINE_ITEMS`] entries the legend wraps in rows of as many
/// as fit, and the size's legend takes a row of its own under them.
const ITEM_W: f64 = 130.0;
const ONE_LINE_ITEMS: usize = 3;

/// Where legend entry `i` of `items` goes, the y of the size's legend, and the plot's top.
fn legend_layout(i: usize, items: usize, view_w: f64) -> ((f64, f64), f64, f64) {
    if items <= ONE_LINE_ITEMS {
        return ((LEFT + i as f64 * ITEM_W, 40.0), 40.0, 56.0);
    }
    let per_row = (((view_w - LEFT - RIGHT) / ITEM_W) as usize).max(1);
    let rows = items.div_ceil(per_row);
    let at = (LEFT + (i % per_row) as f64 * ITEM_W, 40.0 + (i / per_row) as f64 * 18.0);
    (at, 40.0 + rows as f64 * 18.0, 56.0 + rows as f64 * 18.0)
}

/// A dot's radius: its area grows with its size, the largest size gets [`MAX_R`].
fn radius(size: Option<f64>, largest: f64) -> f64 {
    match size {
        Some(s) if largest > 0.0 && s > 0.0 => (MAX_R * (s / largest).sqrt()).max(MIN_R),
        _ => MIN_R,
    }
}

#[function_component(ScatterChart)]
pub fn scatter_chart(props: &ScatterProps) -> Html {
    let p = props.palette;
    let view_w = view_width();
    let height = props.height;
    let items = props.groups.len() + usize::from(!props.highlights.is_empty());
    let (_, size_y, top) = legend_layout(0, items, view_w);
    let plot_bottom = height - BOTTOM;
    // A dot needs both figures; hosts missing one are in the table only.
    let drawn = |d: &Dot| d.x > 0.0 && d.x.is_finite() && d.y.is_finite();
    let dots: Vec<&Dot> = props.dots.iter().chain(props.highlights.iter()).filter(|d| drawn(d)).collect();
    let (x0, x1) = dots.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), d| (a.min(d.x), b.max(d.x)));
    let (x0, x1) = if x0.is_finite() { (x0 / 2.0, x1 * 2.0) } else { (1_048_576.0, 67_108_864.0) };
    let y1 = dots.iter().map(|d| d.y).fold(0.0, f64::max).max(1.0) * 1.15;
    let xs = Scale { d0: x0, d1: x1, r0: LEFT + MAX_R, r1: view_w - RIGHT - MAX_R, log: true };
    let ys = Scale { d0: 0.0, d1: y1, r0: plot_bottom, r1: top, log: false };
    let largest = dots.iter().filter_map(|d| d.size).fold(0.0, f64::max);

    let x_ticks = (x0.log2().ceil() as i32..=x1.log2().floor() as i32).map(|e| f64::from(e).exp2());
    let grid_x = x_ticks.map(|v| {
        let x = xs.map(v);
        html! {
            <g>
                <line x1={x.to_string()} x2={x.to_string()} y1={top.to_string()} y2={plot_bottom.to_string()} stroke={p.grid} />
                <text x={x.to_string()} y={(plot_bottom + 16.0).to_string()} text-anchor="middle" font-size="11" fill={p.muted}>{ props.x_format.format(v) }</text>
            </g>
        }
    });
    let grid_y = linear_ticks(0.0, y1, 5.0).into_iter().map(|t| {
        let y = ys.map(t);
        html! {
            <g>
                <line x1={LEFT.to_string()} x2={(view_w - RIGHT).to_string()} y1={y.to_string()} y2={y.to_string()} stroke={p.grid} />
                <text x={(LEFT - 8.0).to_string()} y={(y + 4.0).to_string()} text-anchor="end" font-size="11" fill={p.muted}>{ format_number(t) }</text>
            </g>
        }
    });
    let circles = props.dots.iter().enumerate().filter(|(_, d)| drawn(d)).map(|(i, d)| {
        let color = props.groups.get(d.group).map_or(p.muted, |g| p.color(g.color));
        let onclick = props.on_pick.clone().map(|pick| Callback::from(move |_: MouseEvent| pick.emit(i)));
        html! {
            <circle class="dot" cx={format!("{:.1}", xs.map(d.x))} cy={format!("{:.1}", ys.map(d.y))} r={format!("{:.1}", radius(d.size, largest))}
                fill={if d.size.is_some() { color } else { "none" }} fill-opacity="0.55" stroke={color} stroke-width="1.5" {onclick}>
                <title>{ d.label.clone() }</title>
            </circle>
        }
    });
    let rings = props.highlights.iter().filter(|d| drawn(d)).map(|d| {
        html! {
            <circle class="dot highlight" cx={format!("{:.1}", xs.map(d.x))} cy={format!("{:.1}", ys.map(d.y))} r={MAX_R.to_string()}
                fill="none" stroke={p.text} stroke-width="3">
                <title>{ d.label.clone() }</title>
            </circle>
        }
    });
    let ring_legend = (!props.highlights.is_empty()).then(|| {
        let ((x, y), _, _) = legend_layout(props.groups.len(), items, view_w);
        html! {
            <g>
                <circle cx={(x + 6.0).to_string()} cy={(y - 4.0).to_string()} r="6" fill="none" stroke={p.text} stroke-width="2.5" />
                <text x={(x + 16.0).to_string()} y={y.to_string()} font-size="11.5" fill={p.text}>{ props.highlight_label.clone() }</text>
            </g>
        }
    });
    let legend = props.groups.iter().enumerate().map(|(i, g)| {
        let ((x, y), _, _) = legend_layout(i, items, view_w);
        html! {
            <g>
                <circle cx={(x + 6.0).to_string()} cy={(y - 4.0).to_string()} r="6" fill={p.color(g.color)} fill-opacity="0.55" stroke={p.color(g.color)} />
                <text x={(x + 16.0).to_string()} y={y.to_string()} font-size="11.5" fill={p.text}>{ g.label.clone() }</text>
            </g>
        }
    });
    let (size_x, size_anchor) = if items <= ONE_LINE_ITEMS { (view_w - RIGHT, "end") } else { (LEFT, "start") };
    html! {
        <div class="chart">
            <svg id={props.id.clone()} xmlns="http://www.w3.org/2000/svg" viewBox={format!("0 0 {view_w} {height}")} role="img"
                aria-label={format!("{}: {} against {}, one dot per host; the table lists the same numbers.", props.title, props.y_label, props.x_label)}
                font-family={CHART_FONT}>
                <rect x="0" y="0" width={view_w.to_string()} height={height.to_string()} fill={p.background} />
                <text x={LEFT.to_string()} y="18" font-size="14" font-weight="600" fill={p.text}>{ props.title.clone() }</text>
                <g class="legend">
                    { for legend }
                    { for ring_legend }
                    <text x={size_x.to_string()} y={size_y.to_string()} text-anchor={size_anchor} font-size="11" fill={p.muted}>{ props.size_label.clone() }</text>
                </g>
                <g class="axes">
                    { for grid_y }
                    { for grid_x }
                    <line x1={LEFT.to_string()} x2={LEFT.to_string()} y1={top.to_string()} y2={plot_bottom.to_string()} stroke={p.axis} />
                    <line x1={LEFT.to_string()} x2={(view_w - RIGHT).to_string()} y1={plot_bottom.to_string()} y2={plot_bottom.to_string()} stroke={p.axis} />
                    <text x={((LEFT + view_w - RIGHT) / 2.0).to_string()} y={(height - 8.0).to_string()} text-anchor="middle" font-size="12" fill={p.muted}>{ format!("{} (log scale)", props.x_label) }</text>
                    <text transform={format!("translate(15 {}) rotate(-90)", (top + plot_bottom) / 2.0)} text-anchor="middle" font-size="12" fill={p.muted}>{ props.y_label.clone() }</text>
                </g>
                <g class="dots">{ for circles }{ for rings }</g>
            </svg>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_legend_wraps_and_a_short_one_stays_on_one_line() {
        assert_eq!(legend_layout(2, 3, 760.0), ((LEFT + 2.0 * ITEM_W, 40.0), 40.0, 56.0));
        // Nine entries, five to a row of 760 px: two rows, the size's legend and the plot below.
        assert_eq!(legend_layout(6, 9, 760.0), ((LEFT + ITEM_W, 58.0), 76.0, 92.0));
    }

    #[test]
    fn a_dots_area_grows_with_its_size() {
        assert_eq!(radius(Some(40.0), 40.0), MAX_R);
        assert!((radius(Some(10.0), 40.0) - MAX_R / 2.0).abs() < 1e-9);
        assert_eq!(radius(None, 40.0), MIN_R);
        assert_eq!(radius(Some(0.001), 40.0), MIN_R);
    }
}
