//! The run measured in this browser as a table, and as a report of the shared schema to save or
//! to compare on the Reports page.

use memwall_core::explain;
use memwall_core::size::format_bytes;
use memwall_report::{Host, LadderPoint, Report, Source};
use yew::prelude::*;

use super::run::Run;
use crate::reports::browser_host;
use crate::util;

/// The finished run as a report, `source: "browser"`, named `label`.
pub fn browser_report(run: &Run, label: &str) -> Option<Report> {
    let ladder = (**run.ladder.as_ref()?).clone();
    let host = Host {
        core_ghz_unavailable: ladder.cycles_unavailable.clone(),
        ..browser_host(
            Some(label.trim().to_string()).filter(|n| !n.is_empty()),
            ladder.timer_resolution_ns,
            run.calibration.as_ref().map(|c| c.cross_origin_isolated),
        )
    };
    let mut report = Report::new(Source::Browser, util::unix_now(), host);
    report.advice = explain::advice(&ladder, None);
    report.ladder = Some(ladder);
    Some(report)
}

pub fn table(points: &[LadderPoint], id: &'static str) -> Html {
    html! {
        <div class="table-wrap">
            <table class="data" {id}>
                <caption class="visually-hidden">{ "ns per load for each working set measured in this browser" }</caption>
                <thead><tr>
                    <th scope="col">{ "working set" }</th><th scope="col">{ "ns min" }</th><th scope="col">{ "ns median" }</th>
                    <th scope="col">{ "ns p90" }</th><th scope="col">{ "ns max" }</th><th scope="col">{ "spread" }</th>
                    <th scope="col" title="a size whose samples spread over 3%, plus what two readings of a coarse timer can add, is measured again, keeping the least disturbed attempt">{ "attempts" }</th>
                    <th scope="col">{ "samples" }</th><th scope="col">{ "loads per sample" }</th>
                </tr></thead>
                <tbody>
                    { for points.iter().map(|p| { let ns = &p.ns_per_load; html! {
                        <tr data-bytes={p.bytes.to_string()} data-median={ns.median.to_string()}>
                            <th scope="row">{ format_bytes(p.bytes) }</th>
                            <td>{ format!("{:.2}", ns.min) }</td><td>{ format!("{:.2}", ns.median) }</td>
                            <td>{ format!("{:.2}", ns.p90) }</td><td>{ format!("{:.2}", ns.max) }</td>
                            // A sample at or below zero (a coarse timer read less than the fixed cost subtracted from every
                            // sample) makes the spread meaningless.
                            <td>{ if ns.min > 0.0 { format!("{:.1}%", ns.spread() * 100.0) } else { "–".into() } }</td>
                            <td>{ p.attempts }</td><td>{ p.samples }</td><td>{ p.loads_per_sample }</td>
                        </tr>
                    }}) }
                </tbody>
            </table>
        </div>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct MeasuredProps {
    pub run: Run,
    pub label: AttrValue,
    pub on_label: Callback<String>,
    pub on_save: Callback<()>,
    pub on_add: Callback<()>,
    pub notice: Option<AttrValue>,
}

/// The card under the chart once a run has points.
#[function_component(Measured)]
pub fn measured(props: &MeasuredProps) -> Html {
    let finished = props.run.ladder.is_some();
    let on_label = props.on_label.clone();
    let on_input = Callback::from(move |e: InputEvent| {
        on_label.emit(crate::chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default())
    });
    let (on_save, on_add) = (props.on_save.clone(), props.on_add.clone());
    html! {
        <div class="card">
            <h2>{ "Measured in this browser" }</h2>
            { table(props.run.points(), "ladder-table") }
            <div class="row wrap-row">
                <label class="inline">{ "Name this run " }
                    <input type="text" value={props.label.clone()} oninput={on_input} />
                </label>
                <button type="button" onclick={Callback::from(move |_| on_save.emit(()))} disabled={!finished}>{ "Save as report (JSON)" }</button>
                <button type="button" class="primary" onclick={Callback::from(move |_| on_add.emit(()))} disabled={!finished}>{ "Compare in Reports" }</button>
            </div>
            if let Some(n) = &props.notice { <p class="notice" role="status">{ n.clone() }</p> }
        </div>
    }
}
