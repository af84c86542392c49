//! What every chart draws from: the drawing's margins, points, series, markers and bands, the
//! x axis's formats, numbers as the axes print them, and the drawing's width.

use memwall_core::size::format_bytes;
use wasm_bindgen::JsCast;
use yew::prelude::*;

pub(crate) const WIDE_W: f64 = 760.0;
/// Phones get a narrower drawing, so that its text is not scaled down to nothing.
pub(crate) const NARROW_W: f64 = 420.0;
pub(crate) const LEFT: f64 = 58.0;
pub(crate) const RIGHT: f64 = 18.0;
pub(crate) const BOTTOM: f64 = 46.0;

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

/// A shaded range of y in a series' color, e.g. the spread a curve's baseline runs had.
#[derive(Debug, Clone, PartialEq)]
pub struct YBand {
    pub y0: f64,
    pub y1: f64,
    pub label: String,
    pub color: usize,
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

/// The drawing's width in SVG units, from the window's width when the chart is drawn.
pub fn view_width() -> f64 {
    let inner = web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|v| v.as_f64()).unwrap_or(WIDE_W);
    if inner < 640.0 { NARROW_W } else { WIDE_W }
}

/// The element a DOM event fired on, as `T`.
pub fn target<T: JsCast>(e: &Event) -> Option<T> {
    e.target().and_then(|t| t.dyn_into::<T>().ok())
}
