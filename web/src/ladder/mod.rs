//! The latency ladder, measured in this browser: a pointer chase over one random cycle of cache
//! lines per working-set size, run by the core in a worker, drawn as it goes. On opening, a short
//! ladder (the first look) gives a verdict within seconds; the full ladder is a click away.

mod chart;
mod extras;
mod form;
pub mod job;
pub mod markers;
pub mod names;
pub mod protocol;
mod run;
mod table;
mod verdict;

use memwall_core::ladder::{self, Pattern};
use memwall_core::size::format_bytes;
use yew::prelude::*;

use self::chart::LadderChart;
use self::form::{Form, LadderForm, progress, timer_note};
pub use self::markers::level_markers;
use self::protocol::{Ladder, LadderJob};
use self::run::{Action, LadderState, Run};
use self::table::{Measured, browser_report};
pub use self::verdict::explanation;
use self::verdict::{FIRST_LOOK_MAX, FIRST_LOOK_MIN, FirstLookCard, run_reading};
use crate::context::{AppAction, use_app};
use crate::embed::{self, EmbedPanel};
use crate::use_worker::use_worker;
use crate::util;

/// The first look: random and page-local from L1 to past the last-level cache.
fn first_look_job() -> LadderJob {
    LadderJob {
        sizes: ladder::ladder_sizes(FIRST_LOOK_MIN, FIRST_LOOK_MAX, 2).unwrap_or_default(),
        samples: 0,
        seed: ladder::DEFAULT_SEED,
        patterns: vec![Pattern::PageLocal],
        chains: Vec::new(),
        quick: true,
    }
}

/// The full page measures its first look unless `?verdict=0`; an embed sits on someone else's
/// page and measures one only when it asks (`verdict=1`). A page opened on the Fleet tab (or a
/// `?fleet=` link) is there to read other hosts' reports: measuring this browser meanwhile would
/// take a core from reading them, so it waits for a click, as the full ladder does.
fn wants_first_look(compact: bool) -> bool {
    let asked = util::query("verdict");
    let fleet = util::query("fleet").is_some() || util::fragment() == "fleet";
    if compact { asked.as_deref() == Some("1") } else { asked.as_deref() != Some("0") && !fleet }
}

/// On opening: the first look, or in an embed that asks for it (`autorun=1`) a small run; and
/// the mark of the verdict, for measuring navigation to verdict
/// (`performance.getEntriesByName("memwall-verdict")`).
#[hook]
fn use_first_look(
    compact: bool,
    start: &Callback<LadderJob>,
    form: &UseStateHandle<Form>,
    state: &UseReducerHandle<LadderState>,
) {
    {
        let (start, form, state) = (start.clone(), (**form).clone(), state.dispatcher());
        use_effect_with((), move |_| {
            if wants_first_look(compact) {
                start.emit(first_look_job());
            } else if compact && util::query("autorun").as_deref() == Some("1") {
                // An embed sits on someone else's page: it starts by itself only a run small in
                // time and memory, and leaves a larger one to a click from the visitor.
                match form.job() {
                    Ok(job) if job.sizes.last().is_some_and(|&b| b <= embed::AUTORUN_MAX_BYTES) => start.emit(job),
                    Ok(job) => state.dispatch(Action::Notice(Some(format!(
                        "This widget measures up to {}: it starts when you press Run in this browser (it starts by itself only up to {}).",
                        format_bytes(job.sizes.last().copied().unwrap_or(0)),
                        format_bytes(embed::AUTORUN_MAX_BYTES)
                    )))),
                    Err(_) => {}
                }
            }
        });
    }
    use_effect_with(matches!(state.first_look, run::FirstLook::Done(_)), |&done| {
        if done && let Some(performance) = util::window().performance() {
            let _ = performance.mark("memwall-verdict");
        }
    });
}

/// The CSV, SVG and PNG exports of a run, each saying how it went.
fn export(
    what: &'static str,
    run: &Option<Run>,
    chart_id: &'static str,
    notice: UseReducerDispatcher<LadderState>,
) -> Callback<MouseEvent> {
    let run = run.clone();
    Callback::from(move |_: MouseEvent| {
        let result = match what {
            "csv" => {
                let points = run.as_ref().map(Run::points).unwrap_or_default();
                util::download_text("memwall-browser-ladder.csv", "text/csv", &memwall_report::ladder_csv(points))
            }
            "svg" => util::download_svg(chart_id, "memwall-ladder.svg"),
            _ => {
                let notice = notice.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    if let Err(e) = util::download_png(chart_id, "memwall-ladder.png").await {
                        notice.dispatch(Action::Notice(Some(format!("Could not export the PNG: {e}"))));
                    }
                });
                Ok(())
            }
        };
        notice.dispatch(Action::Notice(util::export_notice(result)));
    })
}

#[function_component(Intro)]
fn intro() -> Html {
    html! {
        <div class="intro">
            <h1>{ "How far away is memory?" }</h1>
            <p>{ "Each load below depends on the one before it: the address of the next cache line is the value of the last, in one random cycle, so nothing can be overlapped or prefetched. The time per load is the latency of wherever the working set lives — L1, L2, L3, or DRAM — and every step up the ladder is a cache running out." }</p>
        </div>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    /// Embedded in an iframe: the chart and a Run button, nothing else.
    pub compact: bool,
}

#[function_component(LadderPage)]
pub fn ladder_page(props: &Props) -> Html {
    let app = use_app();
    let compact = props.compact;
    let form = use_state(Form::from_query);
    let label = use_state(util::browser_name);
    let log_y = use_state(|| true);
    let state = use_reducer(|| LadderState::new(wants_first_look(compact)));
    let worker = use_worker::<Ladder>(state.dispatcher().to_callback().reform(Action::Message));
    let start = {
        let (worker, state) = (worker.clone(), state.dispatcher());
        Callback::from(move |job: LadderJob| match worker.start(&job) {
            Ok(()) => state.dispatch(Action::Started(job)),
            Err(e) => state.dispatch(Action::NotStarted(e)),
        })
    };
    use_first_look(compact, &start, &form, &state);
    let on_run = {
        let (start, form) = (start.clone(), (*form).clone());
        Callback::from(move |()| {
            if let Ok(job) = form.job() {
                start.emit(job);
            }
        })
    };
    let on_cancel = {
        let (worker, state) = (worker.clone(), state.dispatcher());
        Callback::from(move |()| {
            worker.cancel();
            state.dispatch(Action::Cancel);
        })
    };
    let run = state.run.clone();
    // The first look runs beside the form, not in it: the form stays open, and running the full
    // ladder replaces the first look.
    let full_running = worker.running() && run.as_ref().is_some_and(|r| !r.job.quick);
    let series_label = series_label(run.as_ref(), &label);
    let chart_id = if compact { "ladder-chart-embed" } else { "ladder-chart" };
    let error = state.error.as_ref().map(|e| html! { <div class="alert" role="alert">{ e.clone() }</div> });
    let first_look = html! {
        <FirstLookCard state={state.first_look.clone()} run={run.clone()} on_cancel={on_cancel.clone()} {compact} />
    };
    // The first look, once measured, goes to the Cloud tab as this browser's host.
    {
        let done = matches!(state.first_look, run::FirstLook::Done(_)) && !compact;
        let json = run.as_ref().filter(|r| done && r.job.quick).and_then(|r| browser_report(r, &label));
        let app = app.clone();
        use_effect_with(json.is_some(), move |_| {
            if let Some(report) = json {
                app.dispatch(AppAction::FirstLook(report.to_json_pretty()));
            }
        });
    }
    // A full run, once read, sizes the races (see `races/sizing.rs`).
    {
        let full = run.clone().filter(|r| !compact && !r.job.quick && r.ladder.is_some());
        let (app, label) = (app.clone(), (*label).clone());
        use_effect_with(full.as_ref().and_then(|r| r.ladder.clone()), move |_| {
            if let Some(report) = full.and_then(|r| browser_report(&r, &label)) {
                app.dispatch(AppAction::LadderRun(report.to_json_pretty()));
            }
        });
    }
    let calibration = run.as_ref().and_then(|r| r.calibration.clone());
    let chart = html! { <LadderChart run={run.clone()} label={series_label} {compact} log_y={*log_y} /> };

    if compact {
        let button = if full_running {
            html! { <button type="button" class="danger" onclick={on_cancel.reform(|_| ())}>{ "Cancel" }</button> }
        } else {
            html! { <button type="button" class="primary" onclick={on_run.reform(|_| ())} disabled={form.job().is_err()}>{ "Run in this browser" }</button> }
        };
        return compact_view(first_look, button, &form, run.as_ref(), error, &state, chart, calibration.as_ref());
    }

    let report = run.as_ref().and_then(|r| browser_report(r, &label));
    let (on_save, on_add) = report_actions(report.clone(), &app, state.dispatcher());
    let export = |what: &'static str| export(what, &run, chart_id, state.dispatcher());
    let has_run = run.as_ref().is_some_and(|r| !r.points().is_empty());
    html! {
        <>
            <Intro />
            { first_look }
            <div class="card">
                <LadderForm form={(*form).clone()} on_change={Callback::from({ let form = form.clone(); move |f| form.set(f) })}
                    running={full_running} {on_run} on_cancel={on_cancel.clone()} />
                { for run.as_ref().filter(|r| !r.job.quick).map(progress) }
                { timer_note(calibration.as_ref()) }
            </div>
            { for error }
            { chart_card(chart, &log_y, has_run, export) }
            if let (Some(run), true) = (&run, has_run) {
                <Measured run={run.clone()} label={(*label).clone()} on_label={Callback::from({ let label = label.clone(); move |l| label.set(l) })}
                    {on_save} {on_add} notice={state.notice.clone().map(AttrValue::from)} />
            } else if let Some(n) = &state.notice {
                <p class="notice" role="status">{ n.clone() }</p>
            }
            <EmbedPanel kind="ladder" params={form.embed_params()} report={report.map(std::rc::Rc::new)} />
        </>
    }
}

/// Save the run's report, or add it to the reports to compare with native ones.
fn report_actions(
    report: Option<memwall_report::Report>,
    app: &crate::context::AppContext,
    notice: UseReducerDispatcher<LadderState>,
) -> (Callback<()>, Callback<()>) {
    let on_save = {
        let (report, notice) = (report.clone(), notice.clone());
        Callback::from(move |()| {
            if let Some(report) = &report {
                let saved =
                    util::download_text("memwall-browser-report.json", "application/json", &report.to_json_pretty());
                notice.dispatch(Action::Notice(util::export_notice(saved)));
            }
        })
    };
    let app = app.clone();
    let on_add = Callback::from(move |()| {
        if let Some(report) = &report {
            app.dispatch(AppAction::Add(report.to_json_pretty()));
            notice.dispatch(Action::Notice(Some("Added to Reports: compare it there with native reports.".into())));
        }
    });
    (on_save, on_add)
}

/// The chart's name for the run: the browser's, or the label the visitor gave.
fn series_label(run: Option<&Run>, label: &str) -> String {
    match run {
        Some(r) if r.job.quick => format!("{} (first look)", label.trim()),
        _ => format!("{} (this run)", label.trim()),
    }
}

/// The chart, its y axis toggle and its exports.
fn chart_card(
    chart: Html,
    log_y: &UseStateHandle<bool>,
    has_run: bool,
    export: impl Fn(&'static str) -> Callback<MouseEvent>,
) -> Html {
    let toggle_log = {
        let log_y = log_y.clone();
        Callback::from(move |_| log_y.set(!*log_y))
    };
    html! {
        <div class="card">
            { chart }
            <div class="row wrap-row">
                <button type="button" onclick={toggle_log} aria-pressed={(!**log_y).to_string()}>{ if **log_y { "Linear y axis" } else { "Log y axis" } }</button>
                <button type="button" onclick={export("svg")}>{ "Export SVG" }</button>
                <button type="button" onclick={export("png")}>{ "Export PNG" }</button>
                <button type="button" onclick={export("csv")} disabled={!has_run}>{ "Export CSV" }</button>
            </div>
        </div>
    }
}

/// The embed: the first look if asked for, the chart and a Run button, nothing else.
#[allow(clippy::too_many_arguments)]
fn compact_view(
    first_look: Html,
    button: Html,
    form: &Form,
    run: Option<&Run>,
    error: Option<Html>,
    state: &LadderState,
    chart: Html,
    calibration: Option<&run::Calibration>,
) -> Html {
    html! {
        <>
            { first_look }
            <div class="card">
                <div class="row">{ button }<span class="muted">{ format!("{} … {}", form.min, form.max) }</span></div>
                { for run.filter(|r| !r.job.quick).map(progress) }
                { for error }
                if let Some(n) = &state.notice { <p class="notice" role="status">{ n.clone() }</p> }
                // The run's reading, in words, once its curves are in.
                { for run.filter(|r| !r.job.quick).and_then(|r| r.ladder.as_deref()).map(run_reading) }
                { chart }
                { timer_note(calibration) }
                // The numbers behind the chart, for screen readers (and the e2e suite).
                <div class="visually-hidden">{ table::table(run.map(Run::points).unwrap_or_default(), "ladder-table-embed") }</div>
            </div>
        </>
    }
}
