//! The log-x line chart (the ladder, the partitions sweep), drawn in parts: the frame (scales and
//! ticks from the data), the axes, the overlays (steps and cache markers), the series, the
//! legend, and the readout that follows the pointer or the arrow keys.

use std::rc::Rc;

use yew::prelude::*;

use super::model::{
    BOTTOM, Band, LEFT, Marker, Point, RIGHT, Series, WIDE_W, XFormat, YBand, format_number, view_width,
};
use super::scale::{Scale, linear_ticks, log_ticks};
use crate::theme::{CHART_FONT, Palette};

#[derive(Debug, Properties, PartialEq)]
pub struct LineChartProps {
    /// DOM id of the `<svg>`, for export.
    pub id: AttrValue,
    pub title: AttrValue,
    pub x_label: AttrValue,
    pub y_label: AttrValue,
    /// Unit of y in readouts, e.g. "ns/load".
    pub y_unit: AttrValue,
    pub x_format: XFormat,
    pub series: Rc<Vec<Series>>,
    #[prop_or_default]
    pub markers: Rc<Vec<Marker>>,
    #[prop_or_default]
    pub bands: Rc<Vec<Band>>,
    /// Shaded ranges of y (a linear y axis then reaches below 0 where one does).
    #[prop_or_default]
    pub y_bands: Rc<Vec<YBand>>,
    /// Fixes the x axis (e.g. to the planned sizes, so a run grows from left to right).
    #[prop_or_default]
    pub x_range: Option<(f64, f64)>,
    pub palette: Palette,
    #[prop_or(true)]
    pub log_y: bool,
    #[prop_or(420.0)]
    pub height: f64,
    /// Shown in the plot when there are no points yet.
    #[prop_or_default]
    pub empty_text: AttrValue,
}

/// Where everything goes: the scales, the ticks and the plot's edges, from the data and the
/// drawing's width.
struct Frame {
    view_w: f64,
    height: f64,
    /// The plot's top edge (under the legend) and bottom edge (over the x labels).
    top: f64,
    plot_bottom: f64,
    xs: Scale,
    ys: Scale,
    log_y: bool,
    y_ticks: Vec<f64>,
    /// Powers of two on the x axis, from `x_exp.0` to `x_exp.1`, every `label_every`-th labelled.
    x_exp: (i32, i32),
    label_every: i32,
    /// Legend entries per row, and each entry's width.
    per_row: usize,
    item_w: f64,
    /// Every finite point of every series.
    all: Vec<Point>,
    /// Every distinct x, for the readout and keyboard navigation.
    stops: Vec<f64>,
}

impl Frame {
    fn new(props: &LineChartProps, view_w: f64) -> Self {
        let height = props.height;
        // Legend above the plot, wrapped in rows.
        let per_row = if view_w < WIDE_W { 2 } else { 3 };
        let item_w = (view_w - LEFT - RIGHT) / per_row as f64;
        let legend_rows = props.series.len().div_ceil(per_row).max(1);
        let top = 34.0 + legend_rows as f64 * 18.0;

        let all: Vec<Point> =
            props.series.iter().flat_map(|s| s.points.iter().copied()).filter(|p| p.y.is_finite()).collect();
        let (mut x0, mut x1) = props.x_range.unwrap_or_else(|| {
            let xs = all.iter().map(|p| p.x).chain(props.markers.iter().map(|m| m.x));
            xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)))
        });
        if !x0.is_finite() || !x1.is_finite() {
            (x0, x1) = (16384.0, 268_435_456.0);
        }
        if x1 <= x0 {
            (x0, x1) = (x0 / 2.0, x1 * 2.0);
        }
        // A little room either side so end points and their labels are not on the frame.
        let pad = ((x1 / x0).log2() * 0.03).max(0.15);
        let xs = Scale { d0: x0 / pad.exp2(), d1: x1 * pad.exp2(), r0: LEFT, r1: view_w - RIGHT, log: true };

        // The axis follows the medians; whiskers (min..max of the samples) are clipped to it, so
        // one disturbed sample cannot squash every line flat.
        let (y_lo, y_hi) = all
            .iter()
            .map(|p| p.y)
            .chain(props.y_bands.iter().flat_map(|b| [b.y0, b.y1]))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| (a.min(y), b.max(y)));
        let log_y = props.log_y && y_lo > 0.0 && y_lo.is_finite();
        let (yd0, yd1) = if !y_lo.is_finite() {
            (1.0, 100.0)
        } else if log_y {
            let lo = y_lo / 1.25;
            let hi = (y_hi * 1.25).max(lo * 4.0);
            (lo, hi)
        } else {
            // From 0, unless something (a slowdown that came out a speed-up) lies below it.
            let lo = if y_lo < 0.0 { y_lo * 1.1 } else { 0.0 };
            (lo, (y_hi * 1.1).max(lo + 1e-9))
        };
        let ys = Scale { d0: yd0, d1: yd1, r0: height - BOTTOM, r1: top, log: log_y };
        let y_ticks = if log_y { log_ticks(yd0, yd1, 9) } else { linear_ticks(yd0, yd1, 5.0) };

        // x ticks at powers of two; label every k-th so at most ~8 labels fit.
        let x_exp = (xs.d0.log2().ceil() as i32, xs.d1.log2().floor() as i32);
        let label_every = ((x_exp.1 - x_exp.0 + 1) as f64 / 8.0).ceil().max(1.0) as i32;

        let mut stops: Vec<f64> = all.iter().map(|p| p.x).collect();
        stops.sort_by(f64::total_cmp);
        stops.dedup_by(|a, b| (*a / *b - 1.0).abs() < 1e-9);
        Self {
            view_w,
            height,
            top,
            plot_bottom: height - BOTTOM,
            xs,
            ys,
            log_y,
            y_ticks,
            x_exp,
            label_every,
            per_row,
            item_w,
            all,
            stops,
        }
    }
}

/// Grid, tick labels, the two axis lines and the axis titles.
fn axes(f: &Frame, props: &LineChartProps) -> Html {
    let p = props.palette;
    let (view_w, top, plot_bottom) = (f.view_w, f.top, f.plot_bottom);
    let grid_y = f.y_ticks.iter().map(|&t| {
        let y = f.ys.map(t);
        html! {
            <g>
                <line x1={LEFT.to_string()} x2={(view_w - RIGHT).to_string()} y1={y.to_string()} y2={y.to_string()} stroke={p.grid} stroke-width="1" />
                <text x={(LEFT - 8.0).to_string()} y={(y + 4.0).to_string()} text-anchor="end" font-size="11" fill={p.muted}>{ format_number(t) }</text>
            </g>
        }
    });
    let grid_x = (f.x_exp.0..=f.x_exp.1).map(|e| {
        let v = f64::from(e).exp2();
        let x = f.xs.map(v);
        let labelled = (e - f.x_exp.0) % f.label_every == 0;
        html! {
            <g>
                <line x1={x.to_string()} x2={x.to_string()} y1={top.to_string()} y2={plot_bottom.to_string()} stroke={p.grid} stroke-width="1" />
                if labelled {
                    <text x={x.to_string()} y={(plot_bottom + 16.0).to_string()} text-anchor="middle" font-size="11" fill={p.muted}>{ props.x_format.format(v) }</text>
                }
            </g>
        }
    });
    html! {
        <g class="axes">
            { for grid_y }
            { for grid_x }
            <line x1={LEFT.to_string()} x2={LEFT.to_string()} y1={top.to_string()} y2={plot_bottom.to_string()} stroke={p.axis} />
            <line x1={LEFT.to_string()} x2={(view_w - RIGHT).to_string()} y1={plot_bottom.to_string()} y2={plot_bottom.to_string()} stroke={p.axis} />
            <text x={((LEFT + view_w - RIGHT) / 2.0).to_string()} y={(f.height - 8.0).to_string()} text-anchor="middle" font-size="12" fill={p.muted}>{ format!("{} (log scale)", props.x_label) }</text>
            <text transform={format!("translate(15 {}) rotate(-90)", (top + plot_bottom) / 2.0)} text-anchor="middle" font-size="12" fill={p.muted}>{ format!("{}{}", props.y_label, if f.log_y { " (log scale)" } else { "" }) }</text>
        </g>
    }
}

/// Shaded steps (under the series) and dashed cache markers.
fn bands(f: &Frame, props: &LineChartProps) -> Html {
    let p = props.palette;
    let y_bands = props.y_bands.iter().map(|b| {
        let (top, bottom) = (f.ys.map(b.y1.max(b.y0)), f.ys.map(b.y0.min(b.y1)));
        html! {
            <g class="y-band">
                <rect x={LEFT.to_string()} y={top.to_string()} width={(f.view_w - LEFT - RIGHT).to_string()} height={(bottom - top).max(1.5).to_string()} fill={p.color(b.color)} fill-opacity="0.14" />
                <text x={(f.view_w - RIGHT - 4.0).to_string()} y={(top - 3.0).to_string()} text-anchor="end" font-size="10" fill={p.color(b.color)}>{ b.label.clone() }</text>
            </g>
        }
    });
    html! {
        <g class="bands">
            { for y_bands }
            { for props.bands.iter().map(|b| {
                let (a, c) = (f.xs.map(b.x0), f.xs.map(b.x1));
                html! {
                    <g>
                        <rect x={a.to_string()} y={f.top.to_string()} width={(c - a).max(2.0).to_string()} height={(f.plot_bottom - f.top).to_string()} fill={p.band} />
                        <text x={((a + c) / 2.0).to_string()} y={(f.top + 12.0).to_string()} text-anchor="middle" font-size="10" fill={p.band_text}>{ b.label.clone() }</text>
                    </g>
                }
            }) }
        </g>
    }
}

fn markers(f: &Frame, props: &LineChartProps) -> Html {
    let p = props.palette;
    html! {
        <g class="markers">
            { for props.markers.iter().map(|m| {
                let x = f.xs.map(m.x);
                html! {
                    <g>
                        <line x1={x.to_string()} x2={x.to_string()} y1={f.top.to_string()} y2={f.plot_bottom.to_string()} stroke={p.marker} stroke-width="1.2" stroke-dasharray="4 3" />
                        <text transform={format!("translate({} {}) rotate(-90)", x - 4.0, f.top + 6.0)} text-anchor="end" font-size="10.5" fill={p.marker}>{ m.label.clone() }</text>
                    </g>
                }
            }) }
        </g>
    }
}

/// Each series: whiskers, the line, and a dot per point with its value as a tooltip.
fn series_lines(f: &Frame, props: &LineChartProps) -> Html {
    let p = props.palette;
    let (xs, ys) = (&f.xs, &f.ys);
    let lines = props.series.iter().map(|s| {
        let color = p.color(s.color);
        let mut pts: Vec<Point> = s.points.iter().copied().filter(|p| p.y.is_finite()).collect();
        pts.sort_by(|a, b| a.x.total_cmp(&b.x));
        let d: String = pts
            .iter()
            .enumerate()
            .map(|(i, pt)| format!("{}{:.1},{:.1}", if i == 0 { "M" } else { " L" }, xs.map(pt.x), ys.map(pt.y)))
            .collect();
        let whiskers = pts.iter().filter_map(|pt| {
            let (lo, hi) = (pt.lo?.max(ys.d0), pt.hi?.min(ys.d1));
            if !lo.is_finite() || !hi.is_finite() || lo >= hi {
                return None;
            }
            let x = xs.map(pt.x);
            Some(html! { <line x1={x.to_string()} x2={x.to_string()} y1={ys.map(lo).to_string()} y2={ys.map(hi).to_string()} stroke={color} stroke-opacity="0.45" stroke-width="2" /> })
        });
        let dots = pts.iter().map(|pt| {
            html! {
                <circle cx={format!("{:.1}", xs.map(pt.x))} cy={format!("{:.1}", ys.map(pt.y))} r="3.2" fill={color}>
                    <title>{ format!("{} — {}: {} {}", s.label, props.x_format.format(pt.x), format_number(pt.y), props.y_unit) }</title>
                </circle>
            }
        });
        html! {
            <g class="series">
                { for whiskers }
                <path d={d} fill="none" stroke={color} stroke-width="2.2" stroke-linejoin="round" stroke-dasharray={if s.dashed { "6 4" } else { "none" }} />
                { for dots }
            </g>
        }
    });
    html! { <g>{ for lines }</g> }
}

fn legend(f: &Frame, props: &LineChartProps) -> Html {
    let p = props.palette;
    let max_chars = ((f.item_w - 30.0) / 6.6) as usize;
    let items = props.series.iter().enumerate().map(|(i, s)| {
        let (row, col) = (i / f.per_row, i % f.per_row);
        let x = LEFT + col as f64 * f.item_w;
        let y = 36.0 + row as f64 * 18.0;
        let label: String = if s.label.chars().count() > max_chars { s.label.chars().take(max_chars.saturating_sub(1)).chain(['…']).collect() } else { s.label.clone() };
        html! {
            <g>
                <line x1={x.to_string()} x2={(x + 18.0).to_string()} y1={(y - 4.0).to_string()} y2={(y - 4.0).to_string()} stroke={p.color(s.color)} stroke-width="3" stroke-dasharray={if s.dashed { "5 3" } else { "none" }} />
                <text x={(x + 24.0).to_string()} y={y.to_string()} font-size="11.5" fill={p.text}><title>{ s.label.clone() }</title>{ label }</text>
            </g>
        }
    });
    html! { <g class="legend">{ for items }</g> }
}

/// Every series' value at the stop `hover` points to: a tooltip to draw, and the same as a
/// sentence for screen readers.
fn readout(f: &Frame, props: &LineChartProps, hover: Option<usize>) -> (Html, String) {
    let p = props.palette;
    let Some(x) = hover.and_then(|i| f.stops.get(i).copied()) else { return (Html::default(), String::new()) };
    let rows: Vec<(String, &'static str, f64)> = props
        .series
        .iter()
        .filter_map(|s| {
            s.points
                .iter()
                .filter(|pt| (pt.x / x - 1.0).abs() < 0.02 && pt.y.is_finite())
                .map(|pt| (s.label.clone(), p.color(s.color), pt.y))
                .next()
        })
        .collect();
    let gx = f.xs.map(x);
    let w = 210.0;
    let h = 24.0 + rows.len() as f64 * 16.0;
    let tx = if gx + 12.0 + w > f.view_w - RIGHT { gx - 12.0 - w } else { gx + 12.0 };
    let ty = f.top + 8.0;
    let tooltip = html! {
        <g class="readout" pointer-events="none">
            <line x1={gx.to_string()} x2={gx.to_string()} y1={f.top.to_string()} y2={f.plot_bottom.to_string()} stroke={p.axis} stroke-width="1" />
            <rect x={tx.to_string()} y={ty.to_string()} width={w.to_string()} height={h.to_string()} rx="6" fill={p.background} stroke={p.axis} />
            <text x={(tx + 10.0).to_string()} y={(ty + 17.0).to_string()} font-size="12" font-weight="600" fill={p.text}>{ props.x_format.format(x) }</text>
            { for rows.iter().enumerate().map(|(i, (label, color, y))| {
                let ry = ty + 34.0 + i as f64 * 16.0;
                let short: String = label.chars().take(18).collect();
                html! {
                    <g>
                        <circle cx={(tx + 14.0).to_string()} cy={(ry - 4.0).to_string()} r="4" fill={*color} />
                        <text x={(tx + 24.0).to_string()} y={ry.to_string()} font-size="11.5" fill={p.text}>{ format!("{short}: {} {}", format_number(*y), props.y_unit) }</text>
                    </g>
                }
            }) }
        </g>
    };
    let parts: Vec<String> =
        rows.iter().map(|(l, _, y)| format!("{l} {} {}", format_number(*y), props.y_unit)).collect();
    (tooltip, format!("{}: {}", props.x_format.format(x), parts.join(", ")))
}

/// The pointer and the keyboard move the readout between stops.
struct Navigation {
    on_move: Callback<MouseEvent>,
    on_leave: Callback<MouseEvent>,
    on_key: Callback<KeyboardEvent>,
    on_blur: Callback<FocusEvent>,
}

fn navigation(f: &Frame, hover: &UseStateHandle<Option<usize>>, svg_ref: &NodeRef) -> Navigation {
    let on_move = {
        let hover = hover.clone();
        let svg_ref = svg_ref.clone();
        let stops = f.stops.clone();
        let (d0, d1) = (f.xs.d0, f.xs.d1);
        let width = f.view_w;
        Callback::from(move |e: MouseEvent| {
            let Some(svg) = svg_ref.cast::<web_sys::Element>() else { return };
            let rect = svg.get_bounding_client_rect();
            if rect.width() <= 0.0 || stops.is_empty() {
                return;
            }
            let sx = (f64::from(e.client_x()) - rect.left()) / rect.width() * width;
            let scale = Scale { d0, d1, r0: LEFT, r1: width - RIGHT, log: true };
            let x = scale.invert(sx).log2();
            let nearest = stops
                .iter()
                .enumerate()
                .min_by(|a, b| (a.1.log2() - x).abs().total_cmp(&(b.1.log2() - x).abs()))
                .map(|(i, _)| i);
            hover.set(nearest);
        })
    };
    let on_leave = {
        let hover = hover.clone();
        Callback::from(move |_: MouseEvent| hover.set(None))
    };
    let on_key = {
        let hover = hover.clone();
        let n = f.stops.len();
        Callback::from(move |e: KeyboardEvent| {
            if n == 0 {
                return;
            }
            let next = match (e.key().as_str(), *hover) {
                ("ArrowRight", None) | ("Home", _) => Some(0),
                ("ArrowLeft", None) | ("End", _) => Some(n - 1),
                ("ArrowRight", Some(i)) => Some((i + 1).min(n - 1)),
                ("ArrowLeft", Some(i)) => Some(i.saturating_sub(1)),
                ("Escape", _) => None,
                _ => return,
            };
            e.prevent_default();
            hover.set(next);
        })
    };
    let on_blur = {
        let hover = hover.clone();
        Callback::from(move |_: FocusEvent| hover.set(None))
    };
    Navigation { on_move, on_leave, on_key, on_blur }
}

#[function_component(LineChart)]
pub fn line_chart(props: &LineChartProps) -> Html {
    let hover = use_state(|| None::<usize>);
    let svg_ref = use_node_ref();
    let f = Frame::new(props, view_width());
    let p = props.palette;
    let (view_w, height) = (f.view_w, f.height);
    let nav = navigation(&f, &hover, &svg_ref);
    let (tooltip, live_text) = readout(&f, props, *hover);
    let title_id = format!("{}-title", props.id);
    let desc_id = format!("{}-desc", props.id);
    html! {
        <div class="chart">
            <svg id={props.id.clone()} ref={svg_ref} xmlns="http://www.w3.org/2000/svg" viewBox={format!("0 0 {view_w} {height}")}
                role="img" aria-labelledby={format!("{title_id} {desc_id}")} tabindex="0" font-family={CHART_FONT}
                onmousemove={nav.on_move} onmouseleave={nav.on_leave} onkeydown={nav.on_key} onblur={nav.on_blur}>
                <title id={title_id}>{ props.title.clone() }</title>
                <desc id={desc_id}>{ format!("{} against {}, {} axis; arrow keys step through the points; the table below lists the same numbers.", props.y_label, props.x_label, if f.log_y { "logarithmic" } else { "linear" }) }</desc>
                <rect x="0" y="0" width={view_w.to_string()} height={height.to_string()} fill={p.background} />
                <text x={LEFT.to_string()} y="18" font-size="14" font-weight="600" fill={p.text}>{ props.title.clone() }</text>
                { legend(&f, props) }
                { bands(&f, props) }
                { axes(&f, props) }
                { markers(&f, props) }
                { series_lines(&f, props) }
                if f.all.is_empty() && !props.empty_text.is_empty() {
                    <text x={((LEFT + view_w - RIGHT) / 2.0).to_string()} y={((f.top + f.plot_bottom) / 2.0).to_string()} text-anchor="middle" font-size="13" fill={p.muted}>{ props.empty_text.clone() }</text>
                }
                { tooltip }
            </svg>
            <div class="visually-hidden" aria-live="polite">{ live_text }</div>
        </div>
    }
}
