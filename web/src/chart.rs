//! Charts drawn as SVG by hand: a log-x line chart (the ladder, the partitions sweep) and a
//! horizontal bar chart (the race). No chart library: these two shapes are all memwall needs,
//! and a library would weigh more than the whole app.
//!
//! Both are keyboard-reachable (arrow keys move the readout), name themselves to screen readers,
//! and always sit next to a data table with the same numbers.

use std::rc::Rc;

use memwall_core::size::format_bytes;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::theme::{CHART_FONT, Palette};

const WIDE_W: f64 = 760.0;
/// Phones get a narrower drawing, so that its text is not scaled down to nothing.
const NARROW_W: f64 = 420.0;
const LEFT: f64 = 58.0;
const RIGHT: f64 = 18.0;
const BOTTOM: f64 = 46.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    /// The spread of the samples behind `y` (min and max), drawn as a whisker.
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub color: usize,
    pub dashed: bool,
    pub points: Vec<Point>,
}

/// A vertical line at `x`, e.g. a cache size the host declared.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub x: f64,
    pub label: String,
}

/// A shaded range of x, e.g. a latency step the detector found.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    pub x0: f64,
    pub x1: f64,
    pub label: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XFormat {
    Bytes,
    Count,
}

impl XFormat {
    pub fn format(self, x: f64) -> String {
        match self {
            Self::Bytes => format_bytes(x.round() as u64),
            Self::Count => format!("{}", x.round() as u64),
        }
    }
}

/// A compact number for axis labels and readouts: 3 significant digits, no trailing zeros.
pub fn format_number(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let a = v.abs();
    let text = if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

#[derive(Properties, PartialEq)]
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

struct Scale {
    d0: f64,
    d1: f64,
    r0: f64,
    r1: f64,
    log: bool,
}

impl Scale {
    fn map(&self, v: f64) -> f64 {
        let (a, b, v) =
            if self.log { (self.d0.log2(), self.d1.log2(), v.max(1e-300).log2()) } else { (self.d0, self.d1, v) };
        let t = if b > a { (v - a) / (b - a) } else { 0.5 };
        self.r0 + t * (self.r1 - self.r0)
    }
    fn invert(&self, r: f64) -> f64 {
        let t = (r - self.r0) / (self.r1 - self.r0);
        if self.log {
            (self.d0.log2() + t * (self.d1.log2() - self.d0.log2())).exp2()
        } else {
            self.d0 + t * (self.d1 - self.d0)
        }
    }
}

/// Ticks at 1, 2, 5 times powers of ten inside [lo, hi]; only powers of ten when that gives more
/// than `max`, and a finer 1-1.5-2-3-4-6-8 series when a narrow range would get fewer than three.
fn log_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    let series = |mantissas: &[f64]| {
        let mut ticks = Vec::new();
        let mut e = lo.log10().floor() as i32;
        while 10f64.powi(e) <= hi * 1.0001 {
            for m in mantissas {
                let t = m * 10f64.powi(e);
                if t >= lo * 0.9999 && t <= hi * 1.0001 {
                    ticks.push(t);
                }
            }
            e += 1;
        }
        ticks
    };
    let ticks = series(&[1.0, 2.0, 5.0]);
    if ticks.len() > max {
        series(&[1.0])
    } else if ticks.len() < 3 {
        series(&[1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0])
    } else {
        ticks
    }
}

fn linear_ticks(lo: f64, hi: f64, target: f64) -> Vec<f64> {
    let raw = (hi - lo) / target;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| *s >= raw).unwrap_or(raw);
    let mut ticks = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi * 1.0001 {
        ticks.push(t);
        t += step;
    }
    ticks
}

/// The drawing's width in SVG units, from the window's width when the chart is drawn.
pub fn view_width() -> f64 {
    let inner = web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|v| v.as_f64()).unwrap_or(WIDE_W);
    if inner < 640.0 { NARROW_W } else { WIDE_W }
}

#[function_component(LineChart)]
pub fn line_chart(props: &LineChartProps) -> Html {
    let view_w = view_width();
    let hover = use_state(|| None::<usize>);
    let svg_ref = use_node_ref();
    let p = props.palette;
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

    // The axis follows the medians; whiskers (min..max of the samples) are clipped to it, so one
    // disturbed sample cannot squash every line flat.
    let (y_lo, y_hi) =
        all.iter().map(|p| p.y).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| (a.min(y), b.max(y)));
    let log_y = props.log_y && y_lo > 0.0 && y_lo.is_finite();
    let (yd0, yd1) = if !y_lo.is_finite() {
        (1.0, 100.0)
    } else if log_y {
        let lo = y_lo / 1.25;
        let hi = (y_hi * 1.25).max(lo * 4.0);
        (lo, hi)
    } else {
        (0.0, (y_hi * 1.1).max(1e-9))
    };
    let ys = Scale { d0: yd0, d1: yd1, r0: height - BOTTOM, r1: top, log: log_y };
    let y_ticks = if log_y { log_ticks(yd0, yd1, 9) } else { linear_ticks(yd0, yd1, 5.0) };

    // x ticks at powers of two; label every k-th so at most ~8 labels fit.
    let (e0, e1) = (xs.d0.log2().ceil() as i32, xs.d1.log2().floor() as i32);
    let every = ((e1 - e0 + 1) as f64 / 8.0).ceil().max(1.0) as i32;

    // Every distinct x, for the readout and keyboard navigation.
    let mut stops: Vec<f64> = all.iter().map(|p| p.x).collect();
    stops.sort_by(f64::total_cmp);
    stops.dedup_by(|a, b| (*a / *b - 1.0).abs() < 1e-9);

    let on_move = {
        let hover = hover.clone();
        let svg_ref = svg_ref.clone();
        let stops = stops.clone();
        let (d0, d1) = (xs.d0, xs.d1);
        let width = view_w;
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
        let n = stops.len();
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

    let plot_bottom = height - BOTTOM;
    let grid_y = y_ticks.iter().map(|&t| {
        let y = ys.map(t);
        html! {
            <g>
                <line x1={LEFT.to_string()} x2={(view_w - RIGHT).to_string()} y1={y.to_string()} y2={y.to_string()} stroke={p.grid} stroke-width="1" />
                <text x={(LEFT - 8.0).to_string()} y={(y + 4.0).to_string()} text-anchor="end" font-size="11" fill={p.muted}>{ format_number(t) }</text>
            </g>
        }
    });
    let grid_x = (e0..=e1).map(|e| {
        let v = f64::from(e).exp2();
        let x = xs.map(v);
        let labelled = (e - e0) % every == 0;
        html! {
            <g>
                <line x1={x.to_string()} x2={x.to_string()} y1={top.to_string()} y2={plot_bottom.to_string()} stroke={p.grid} stroke-width="1" />
                if labelled {
                    <text x={x.to_string()} y={(plot_bottom + 16.0).to_string()} text-anchor="middle" font-size="11" fill={p.muted}>{ props.x_format.format(v) }</text>
                }
            </g>
        }
    });
    let bands = props.bands.iter().map(|b| {
        let (a, c) = (xs.map(b.x0), xs.map(b.x1));
        html! {
            <g>
                <rect x={a.to_string()} y={top.to_string()} width={(c - a).max(2.0).to_string()} height={(plot_bottom - top).to_string()} fill={p.band} />
                <text x={((a + c) / 2.0).to_string()} y={(top + 12.0).to_string()} text-anchor="middle" font-size="10" fill={p.band_text}>{ b.label.clone() }</text>
            </g>
        }
    });
    let markers = props.markers.iter().map(|m| {
        let x = xs.map(m.x);
        html! {
            <g>
                <line x1={x.to_string()} x2={x.to_string()} y1={top.to_string()} y2={plot_bottom.to_string()} stroke={p.marker} stroke-width="1.2" stroke-dasharray="4 3" />
                <text transform={format!("translate({} {}) rotate(-90)", x - 4.0, top + 6.0)} text-anchor="end" font-size="10.5" fill={p.marker}>{ m.label.clone() }</text>
            </g>
        }
    });
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
            let (lo, hi) = (pt.lo?.max(yd0), pt.hi?.min(yd1));
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
    let max_chars = ((item_w - 30.0) / 6.6) as usize;
    let legend = props.series.iter().enumerate().map(|(i, s)| {
        let (row, col) = (i / per_row, i % per_row);
        let x = LEFT + col as f64 * item_w;
        let y = 36.0 + row as f64 * 18.0;
        let label: String = if s.label.chars().count() > max_chars { s.label.chars().take(max_chars.saturating_sub(1)).chain(['…']).collect() } else { s.label.clone() };
        html! {
            <g>
                <line x1={x.to_string()} x2={(x + 18.0).to_string()} y1={(y - 4.0).to_string()} y2={(y - 4.0).to_string()} stroke={p.color(s.color)} stroke-width="3" stroke-dasharray={if s.dashed { "5 3" } else { "none" }} />
                <text x={(x + 24.0).to_string()} y={y.to_string()} font-size="11.5" fill={p.text}><title>{ s.label.clone() }</title>{ label }</text>
            </g>
        }
    });

    let readout = hover.and_then(|i| stops.get(i).copied()).map(|x| {
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
        (x, rows)
    });
    let tooltip = readout.as_ref().map(|(x, rows)| {
        let gx = xs.map(*x);
        let w = 210.0;
        let h = 24.0 + rows.len() as f64 * 16.0;
        let tx = if gx + 12.0 + w > view_w - RIGHT { gx - 12.0 - w } else { gx + 12.0 };
        let ty = top + 8.0;
        html! {
            <g class="readout" pointer-events="none">
                <line x1={gx.to_string()} x2={gx.to_string()} y1={top.to_string()} y2={plot_bottom.to_string()} stroke={p.axis} stroke-width="1" />
                <rect x={tx.to_string()} y={ty.to_string()} width={w.to_string()} height={h.to_string()} rx="6" fill={p.background} stroke={p.axis} />
                <text x={(tx + 10.0).to_string()} y={(ty + 17.0).to_string()} font-size="12" font-weight="600" fill={p.text}>{ props.x_format.format(*x) }</text>
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
        }
    });
    let live_text = readout
        .as_ref()
        .map(|(x, rows)| {
            let parts: Vec<String> =
                rows.iter().map(|(l, _, y)| format!("{l} {} {}", format_number(*y), props.y_unit)).collect();
            format!("{}: {}", props.x_format.format(*x), parts.join(", "))
        })
        .unwrap_or_default();

    let title_id = format!("{}-title", props.id);
    let desc_id = format!("{}-desc", props.id);
    html! {
        <div class="chart">
            <svg id={props.id.clone()} ref={svg_ref} xmlns="http://www.w3.org/2000/svg" viewBox={format!("0 0 {view_w} {height}")}
                role="img" aria-labelledby={format!("{title_id} {desc_id}")} tabindex="0" font-family={CHART_FONT}
                onmousemove={on_move} onmouseleave={on_leave} onkeydown={on_key} onblur={on_blur}>
                <title id={title_id}>{ props.title.clone() }</title>
                <desc id={desc_id}>{ format!("{} against {}, {} axis; arrow keys step through the points; the table below lists the same numbers.", props.y_label, props.x_label, if log_y { "logarithmic" } else { "linear" }) }</desc>
                <rect x="0" y="0" width={view_w.to_string()} height={height.to_string()} fill={p.background} />
                <text x={LEFT.to_string()} y="18" font-size="14" font-weight="600" fill={p.text}>{ props.title.clone() }</text>
                { for legend }
                { for grid_y }
                { for grid_x }
                { for bands }
                <line x1={LEFT.to_string()} x2={LEFT.to_string()} y1={top.to_string()} y2={plot_bottom.to_string()} stroke={p.axis} />
                <line x1={LEFT.to_string()} x2={(view_w - RIGHT).to_string()} y1={plot_bottom.to_string()} y2={plot_bottom.to_string()} stroke={p.axis} />
                { for markers }
                { for lines }
                if all.is_empty() && !props.empty_text.is_empty() {
                    <text x={((LEFT + view_w - RIGHT) / 2.0).to_string()} y={((top + plot_bottom) / 2.0).to_string()} text-anchor="middle" font-size="13" fill={p.muted}>{ props.empty_text.clone() }</text>
                }
                <text x={((LEFT + view_w - RIGHT) / 2.0).to_string()} y={(height - 8.0).to_string()} text-anchor="middle" font-size="12" fill={p.muted}>{ format!("{} (log scale)", props.x_label) }</text>
                <text transform={format!("translate(15 {}) rotate(-90)", (top + plot_bottom) / 2.0)} text-anchor="middle" font-size="12" fill={p.muted}>{ format!("{}{}", props.y_label, if log_y { " (log scale)" } else { "" }) }</text>
                { for tooltip }
            </svg>
            <div class="visually-hidden" aria-live="polite">{ live_text }</div>
        </div>
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    /// `None` while the bar's measurement is still running.
    pub value: Option<f64>,
    /// What is written at the end of the bar (time, rate, speedup).
    pub text: String,
    pub color: usize,
}

#[derive(Properties, PartialEq)]
pub struct BarChartProps {
    pub id: AttrValue,
    pub title: AttrValue,
    /// The value axis, with its unit, e.g. "ns per row".
    pub value_label: AttrValue,
    pub bars: Rc<Vec<Bar>>,
    pub palette: Palette,
}

#[function_component(BarChart)]
pub fn bar_chart(props: &BarChartProps) -> Html {
    let view_w = view_width();
    let p = props.palette;
    // Wide: the numbers follow the bar. Narrow: they go on a line of their own under it.
    let narrow = view_w < WIDE_W;
    let label_w: f64 = if narrow { 96.0 } else { 150.0 };
    let row_h: f64 = if narrow { 46.0 } else { 34.0 };
    let text_room = if narrow { 10.0 } else { 250.0 };
    let top = 34.0;
    let height = top + props.bars.len().max(1) as f64 * row_h + 40.0;
    let max = props.bars.iter().filter_map(|b| b.value).fold(0.0f64, f64::max);
    let ticks = if max > 0.0 { linear_ticks(0.0, max * 1.05, 5.0) } else { Vec::new() };
    let scale_max = ticks.last().copied().unwrap_or(1.0).max(max);
    let x_of = |v: f64| label_w + v / scale_max * (view_w - RIGHT - label_w - text_room);
    let bar_h = if narrow { 16.0 } else { row_h - 12.0 };
    let text_at = |y: f64, v: f64| {
        if narrow { (label_w, y + 6.0 + bar_h + 14.0) } else { (x_of(v) + 8.0, y + row_h / 2.0 + 4.0) }
    };
    let axis_y = top + props.bars.len().max(1) as f64 * row_h + 4.0;
    let rows = props.bars.iter().enumerate().map(|(i, b)| {
        let y = top + i as f64 * row_h;
        let color = p.color(b.color);
        let bar = match b.value {
            Some(v) => html! {
                <g>
                    <rect x={label_w.to_string()} y={(y + 6.0).to_string()} width={(x_of(v) - label_w).max(1.5).to_string()} height={bar_h.to_string()} rx="3" fill={color}>
                        <title>{ format!("{}: {}", b.label, b.text) }</title>
                    </rect>
                    <text x={text_at(y, v).0.to_string()} y={text_at(y, v).1.to_string()} font-size="12" fill={p.text}>{ b.text.clone() }</text>
                </g>
            },
            None => html! {
                <g>
                    <rect x={label_w.to_string()} y={(y + 6.0).to_string()} width="60" height={bar_h.to_string()} rx="3" fill={color} opacity="0.35">
                        <animate attributeName="width" values="20;160;20" dur="1.6s" repeatCount="indefinite" />
                    </rect>
                    <text x={(label_w + 8.0).to_string()} y={(y + row_h / 2.0 + 4.0).to_string()} font-size="12" fill={p.text}>{ b.text.clone() }</text>
                </g>
            },
        };
        html! {
            <g>
                <text x={(label_w - 10.0).to_string()} y={(y + 6.0 + bar_h / 2.0 + 4.0).to_string()} text-anchor="end" font-size="12.5" font-weight="600" fill={p.text}>{ b.label.clone() }</text>
                { bar }
            </g>
        }
    });
    let grid = ticks.iter().map(|&t| {
        let x = x_of(t);
        html! {
            <g>
                <line x1={x.to_string()} x2={x.to_string()} y1={top.to_string()} y2={axis_y.to_string()} stroke={p.grid} />
                <text x={x.to_string()} y={(axis_y + 14.0).to_string()} text-anchor="middle" font-size="11" fill={p.muted}>{ format_number(t) }</text>
            </g>
        }
    });
    let title_id = format!("{}-title", props.id);
    html! {
        <div class="chart">
            <svg id={props.id.clone()} xmlns="http://www.w3.org/2000/svg" viewBox={format!("0 0 {view_w} {height}")} role="img" aria-labelledby={title_id.clone()} font-family={CHART_FONT}>
                <title id={title_id}>{ props.title.clone() }</title>
                <rect x="0" y="0" width={view_w.to_string()} height={height.to_string()} fill={p.background} />
                <text x="12" y="20" font-size="14" font-weight="600" fill={p.text}>{ props.title.clone() }</text>
                { for grid }
                <line x1={label_w.to_string()} x2={label_w.to_string()} y1={top.to_string()} y2={axis_y.to_string()} stroke={p.axis} />
                { for rows }
                <text x={((label_w + view_w - RIGHT - text_room) / 2.0).to_string()} y={(height - 6.0).to_string()} text-anchor="middle" font-size="12" fill={p.muted}>{ props.value_label.clone() }</text>
            </svg>
        </div>
    }
}

/// The element a DOM event fired on, as `T`.
pub fn target<T: JsCast>(e: &Event) -> Option<T> {
    e.target().and_then(|t| t.dyn_into::<T>().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_are_one_two_five_or_finer_on_narrow_ranges() {
        assert_eq!(log_ticks(1.0, 100.0, 9), vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]);
        assert_eq!(log_ticks(1.0, 1e6, 5), vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
        assert_eq!(log_ticks(1.1, 4.5, 9), vec![1.5, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn linear_ticks_step_by_one_two_five() {
        assert_eq!(linear_ticks(0.0, 10.0, 5.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(linear_ticks(0.0, 130.0, 5.0), vec![0.0, 50.0, 100.0]);
    }

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(format_number(1.2345), "1.23");
        assert_eq!(format_number(12.0), "12");
        assert_eq!(format_number(250.4), "250");
        assert_eq!(format_number(0.5), "0.5");
        assert_eq!(format_number(f64::NAN), "–");
        assert_eq!(XFormat::Bytes.format(16384.0), "16 KiB");
    }
}
