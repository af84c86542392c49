//! The GROUP BY race's results as tables and charts: each kernel's timings and checks, and the
//! partitions sweep.

use std::collections::BTreeSet;
use std::rc::Rc;

use memwall_core::cost;
use memwall_core::groupby::{self, summary};
use memwall_report::{GroupBy, SweepPoint};
use yew::prelude::*;

use crate::chart::{LineChart, Marker, Point, Series, XFormat, format_number};
use crate::theme::Palette;
use crate::util::group_digits;

pub fn race_table(result: &GroupBy) -> Html {
    html! {
        <div class="table-wrap">
            <table class="data" id="groupby-table">
                <caption class="visually-hidden">{ "GROUP BY race in this browser" }</caption>
                <thead><tr>
                    <th scope="col">{ "kernel" }</th><th scope="col">{ "partitions" }</th><th scope="col">{ "first ms" }</th><th scope="col">{ "min ms" }</th><th scope="col">{ "median ms" }</th>
                    <th scope="col">{ "max ms" }</th><th scope="col">{ "ns/row" }</th><th scope="col" title="the cost model's prediction from this page's ladder">{ "predicted" }</th><th scope="col">{ "vs naive" }</th><th scope="col">{ "groups" }</th><th scope="col">{ "checksum" }</th>
                </tr></thead>
                <tbody>
                    { for result.runs.iter().map(|r| html! {
                        <tr data-kernel={r.kernel.clone()} data-ns-per-row={r.ns_per_row.to_string()}
                            data-best-ns-per-row={(r.seconds.min * 1e9 / result.dataset.rows.max(1) as f64).to_string()}>
                            <th scope="row">{ r.kernel.clone() }</th>
                            <td>{ r.partitions.map_or("–".into(), |p| p.to_string()) }</td>
                            <td>{ r.first_run_seconds.map_or("–".into(), |s| format_number(s * 1e3)) }</td>
                            <td>{ format_number(r.seconds.min * 1e3) }</td><td>{ format_number(r.seconds.median * 1e3) }</td><td>{ format_number(r.seconds.max * 1e3) }</td>
                            <td>{ format!("{:.2}", r.ns_per_row) }</td>
                            <td>{ r.predicted_ns_per_row.map_or("–".into(), |p| format!("{p:.2}")) }</td>
                            <td>{ summary::speedup_over_naive(result, r).map_or("–".into(), |x| format!("{x:.2}×")) }</td>
                            <td>{ group_digits(r.groups) }</td><td><code>{ r.checksum.clone() }</code></td>
                        </tr>
                    }) }
                </tbody>
            </table>
            if let Some(choice) = result.runs.iter().find_map(|r| r.choice.as_ref()) {
                <p class="muted small">{ format!("adaptive chose {}: {}", choice.kernel, choice.reason) }</p>
            }
            <ul class="muted small" id="groupby-rules">
                { for summary::rules(result, true).into_iter().map(|line| html! { <li>{ line }</li> }) }
            </ul>
            <ul class="muted small" id="groupby-model">
                if result.model.is_none() {
                    <li>{ "predicted: nothing, as no ladder has been measured on this page yet for the cost model to predict from" }</li>
                }
                { for cost::describe(result).into_iter().map(|line| html! { <li>{ line }</li> }) }
            </ul>
        </div>
    }
}

pub fn sweep_chart(points: &[SweepPoint], partitions: u32, palette: Palette) -> Html {
    let kernels: BTreeSet<&str> = points.iter().map(|p| p.kernel.as_str()).collect();
    let series: Vec<Series> = kernels
        .iter()
        .enumerate()
        .map(|(i, k)| Series {
            label: (*k).to_string(),
            color: i + 1,
            dashed: false,
            points: points
                .iter()
                .filter(|p| p.kernel == *k)
                .map(|p| Point { x: p.x as f64, y: p.ns_per_row, lo: None, hi: None })
                .collect(),
        })
        .collect();
    let markers = vec![Marker { x: f64::from(partitions), label: format!("slider: {}", partitions) }];
    html! {
        <>
            <LineChart id="groupby-sweep" title="ns per row against partition count (this browser)" x_label="partitions" y_label="ns per row" y_unit="ns/row"
                x_format={XFormat::Count} series={Rc::new(series)} markers={Rc::new(markers)} x_range={Some((16.0, f64::from(groupby::MAX_PARTITIONS)))}
                {palette} log_y={false} height={340.0} />
            <div class="table-wrap">
                <table class="data">
                    <thead><tr><th scope="col">{ "partitions" }</th>{ for kernels.iter().map(|k| html! { <th scope="col">{ format!("{k} ns/row") }</th> }) }</tr></thead>
                    <tbody>
                        { for points.iter().map(|p| p.x).collect::<BTreeSet<_>>().into_iter().map(|x| html! {
                            <tr>
                                <th scope="row">{ x }</th>
                                { for kernels.iter().map(|k| html! { <td>{ points.iter().find(|p| p.x == x && p.kernel == *k).map_or("–".into(), |p| format!("{:.2}", p.ns_per_row)) }</td> }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </>
    }
}
