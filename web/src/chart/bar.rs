//! The race's horizontal bar chart.

use std::rc::Rc;

use yew::prelude::*;

use super::model::{RIGHT, WIDE_W, format_number, view_width};
use super::scale::linear_ticks;
use crate::theme::{CHART_FONT, Palette};

#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    /// `None` while the bar's measurement is still running.
    pub value: Option<f64>,
    /// What is written at the end of the bar (time, rate, speedup).
    pub text: String,
    pub color: usize,
}

#[derive(Debug, Properties, PartialEq)]
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
