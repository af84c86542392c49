//! The ladder's chart card: this browser's run beside the reports open, the caches a report
//! declares and the levels the core named, the steps found, memory-level parallelism, a report's
//! bandwidth, and the reading of the finished run.

use std::collections::HashSet;
use std::rc::Rc;

use memwall_core::{describe, explain, ladder};
use memwall_report::Source;
use yew::prelude::*;

use super::extras::{self, BandwidthChart, BandwidthRun, ParallelismChart, ParallelismRun};
use super::run::{BROWSER_PAGES, Run};
use super::verdict::levels_and_verdict;
use crate::chart::{self, Band, LineChart, Series, XFormat};
use crate::context::use_app;
use crate::overlay::Overlay;
use crate::reports::to_points;

/// Reports that carry a ladder, except the one this page added itself (same points).
fn comparable(overlays: &[Overlay], run: Option<&Run>) -> Vec<Overlay> {
    let own = run.filter(|r| r.ladder.is_some()).map(|r| to_points(r.points()));
    overlays
        .iter()
        .filter(|o| !o.curves.is_empty())
        .filter(|o| !(o.from_this_page && own.as_ref() == o.curves.first().map(|c| &c.points)))
        .cloned()
        .collect()
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub run: Option<Run>,
    /// The run's name in legends.
    pub label: AttrValue,
    pub compact: bool,
    pub log_y: bool,
}

/// Which reports are drawn and whose caches are marked.
#[derive(Debug, Clone, PartialEq, Default)]
struct Shown {
    hidden: HashSet<u32>,
    /// `None`: the first report that declares any.
    caches_from: Option<u32>,
}

#[function_component(LadderChart)]
pub fn ladder_chart(props: &Props) -> Html {
    let app = use_app();
    let overlay = use_state(Shown::default);
    let palette = app.theme.palette();
    let run = props.run.as_ref();
    let comparable = comparable(&app.overlays, run);
    let caches_report = match overlay.caches_from {
        Some(id) => app.overlays.iter().find(|r| r.id == id).cloned(),
        None => app.overlays.iter().find(|r| !r.caches.is_empty()).cloned(),
    };
    let points = run.map(Run::points).unwrap_or_default();
    let this_run = props.label.trim().to_string();
    // An embed draws its own run and nothing else: its legend names the curves alone.
    let series = series(run, if props.compact { "" } else { &this_run }, &comparable, &overlay.hidden);
    let mut markers = caches_report.as_ref().map(|r| r.caches.clone()).unwrap_or_default();
    // The levels the core named: this run's, or else those of the report whose caches are marked.
    let own = run.and_then(|r| r.ladder.as_deref());
    markers.extend(match (own, &caches_report) {
        (Some(ladder), _) => super::markers::level_markers(ladder),
        (None, Some(r)) => r.levels.clone(),
        (None, None) => Vec::new(),
    });
    let bands: Vec<Band> = ladder::detect_steps(points)
        .iter()
        .map(|s| Band {
            x0: s.from_bytes as f64,
            x1: s.to_bytes as f64,
            label: format!("×{:.1}", s.ns_per_load_after / s.ns_per_load_before),
        })
        .collect();
    let x_range = run.and_then(|r| Some((*r.job.sizes.first()? as f64, *r.job.sizes.last()? as f64)));
    let id = if props.compact { "ladder-chart-embed" } else { "ladder-chart" };
    let parallelism = parallelism(own, &this_run, &comparable, &overlay.hidden);
    let parallelism_id = if props.compact { "parallelism-chart-embed" } else { "parallelism-chart" };
    html! {
        <>
            if !props.compact { { overlay_controls(&app.overlays, &comparable, &overlay, palette) } }
            <LineChart {id} title="Latency per load against working set" x_label="working set" y_label="ns per load" y_unit="ns"
                x_format={XFormat::Bytes} series={Rc::new(series)} markers={Rc::new(markers)} bands={Rc::new(bands)} {x_range}
                {palette} log_y={props.log_y} height={if props.compact { 360.0 } else { 430.0 }}
                empty_text={empty_text(run)} />
            if !props.compact { { steps_summary(points) } }
            <ParallelismChart id={parallelism_id} runs={Rc::new(parallelism)} {palette} />
            if !props.compact {
                { bandwidth_chart(&app.overlays, &overlay.hidden, palette) }
                if let Some(ladder) = own { { levels_and_verdict(ladder, &explain::advice(ladder, None)) } }
            }
        </>
    }
}

/// What the empty chart says: how to fill it, until a run starts; nothing while one calibrates
/// or measures (the progress line above the chart says which).
fn empty_text(run: Option<&Run>) -> AttrValue {
    if run.is_some_and(|r| r.running) {
        AttrValue::default()
    } else {
        "Press Run: points appear here as each size is measured.".into()
    }
}

/// This run's curves (its main curve and its patterns) and those of the reports shown, each
/// named by its pattern and pages, then the run's name.
fn series(run: Option<&Run>, this_run: &str, comparable: &[Overlay], hidden: &HashSet<u32>) -> Vec<Series> {
    let mut series = Vec::new();
    if let Some(run) = run.filter(|r| r.running || !r.points().is_empty()) {
        let label = |pattern: ladder::Pattern| super::names::curve_label(this_run, pattern.name(), BROWSER_PAGES);
        series.push(Series {
            label: label(ladder::Pattern::Random),
            color: 0,
            dashed: false,
            points: to_points(run.points()),
        });
        match &run.ladder {
            Some(ladder) => series.extend(extras::extra_series(this_run, 0, ladder)),
            None => {
                for (pattern, points) in run.job.curves().iter().zip(&run.curves).skip(1).filter(|(_, p)| !p.is_empty())
                {
                    series.push(Series { label: label(*pattern), color: 0, dashed: true, points: to_points(points) });
                }
            }
        }
    }
    for r in comparable.iter().filter(|r| !hidden.contains(&r.id)) {
        let name = r.name();
        for curve in &r.curves {
            let main = curve.name.is_empty();
            series.push(Series {
                label: if main { name.clone() } else { format!("{name}, {}", curve.name) },
                color: r.id as usize,
                dashed: !main || r.source == Source::Browser,
                points: curve.points.clone(),
            });
        }
    }
    series
}

/// Memory-level parallelism: this run's, and that of the reports shown.
fn parallelism(
    own: Option<&memwall_report::Ladder>,
    this_run: &str,
    comparable: &[Overlay],
    hidden: &HashSet<u32>,
) -> Vec<ParallelismRun> {
    let mut parallelism = Vec::new();
    if let Some(p) = own.and_then(|l| l.parallelism.clone()) {
        parallelism.push(ParallelismRun { label: this_run.to_string(), color: 0, parallelism: p });
    }
    for r in comparable.iter().filter(|r| !hidden.contains(&r.id)) {
        if let Some(p) = r.parallelism.clone() {
            parallelism.push(ParallelismRun { label: r.label.clone(), color: r.id as usize, parallelism: p });
        }
    }
    parallelism
}

fn overlay_controls(
    reports: &[Overlay],
    comparable: &[Overlay],
    overlay: &UseStateHandle<Shown>,
    palette: crate::theme::Palette,
) -> Html {
    let with_caches: Vec<&Overlay> = reports.iter().filter(|r| !r.caches.is_empty()).collect();
    let selected = overlay.caches_from.or_else(|| with_caches.first().map(|r| r.id));
    let toggle = |id: u32| {
        let overlay = overlay.clone();
        Callback::from(move |_| {
            let mut next = (*overlay).clone();
            if !next.hidden.remove(&id) {
                next.hidden.insert(id);
            }
            overlay.set(next);
        })
    };
    let on_caches = {
        let overlay = overlay.clone();
        Callback::from(move |e: Event| {
            let value = chart::target::<web_sys::HtmlSelectElement>(&e).map(|s| s.value()).unwrap_or_default();
            overlay.set(Shown { caches_from: value.parse().ok(), ..(*overlay).clone() });
        })
    };
    html! {
        <div class="overlay-controls">
            if comparable.is_empty() {
                <p class="muted">{ "Open a native report (from " }<code>{ "memwall run" }</code>{ ") on the Reports page to compare this browser with the host at full precision and to mark the cache sizes it declares." }</p>
            } else {
                <fieldset class="checks">
                    <legend>{ "Compare with" }</legend>
                    { for comparable.iter().map(|r| html! {
                        <label class="check">
                            <input type="checkbox" checked={!overlay.hidden.contains(&r.id)} onchange={toggle(r.id)} />
                            <span class="swatch" style={format!("background:{}", palette.color(r.id as usize))}></span>
                            { r.name() }
                        </label>
                    }) }
                </fieldset>
            }
            if !with_caches.is_empty() {
                <label class="inline">{ "Mark the caches declared by " }
                    <select onchange={on_caches}>
                        { for with_caches.iter().map(|r| html! { <option value={r.id.to_string()} selected={selected == Some(r.id)}>{ r.label.clone() }</option> }) }
                        <option value="none" selected={selected.is_none()}>{ "no report" }</option>
                    </select>
                </label>
            }
        </div>
    }
}

/// Bandwidth is measured natively only; the reports that carry it are drawn beside the ladder.
fn bandwidth_chart(reports: &[Overlay], hidden: &HashSet<u32>, palette: crate::theme::Palette) -> Html {
    let runs: Vec<BandwidthRun> = reports
        .iter()
        .filter(|r| !hidden.contains(&r.id) && !r.bandwidth.is_empty())
        .map(|r| BandwidthRun { label: r.label.clone(), color: r.id as usize, points: r.bandwidth.clone() })
        .collect();
    html! { <BandwidthChart id="bandwidth-chart" runs={Rc::new(runs)} {palette} /> }
}

fn steps_summary(points: &[memwall_report::LadderPoint]) -> Html {
    if points.len() < 2 {
        return html! {};
    }
    let steps = ladder::detect_steps(points);
    if steps.is_empty() {
        return html! { <p class="muted">{ "No latency step found in this range yet." }</p> };
    }
    html! {
        <p class="steps">
            <strong>{ "Latency steps found: " }</strong>
            { steps.iter().map(describe::step_label).collect::<Vec<_>>().join(" · ") }
        </p>
    }
}
