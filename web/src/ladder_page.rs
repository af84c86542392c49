//! The latency ladder, measured in this browser: a pointer chase over one random cycle of cache
//! lines per working-set size, run by the core in a worker, drawn as it goes.

use std::collections::HashSet;
use std::rc::Rc;

use memwall_core::ladder::Pattern;
use memwall_core::size::{format_bytes, parse_size};
use memwall_core::{describe, explain, ladder};
use memwall_report::{Cause, Host, Ladder, LadderPoint, Report, Source};
use yew::prelude::*;

use crate::chart::{self, Band, LineChart, Series, XFormat};
use crate::embed::{self, EmbedPanel};
use crate::jobs::{Job, WorkerEvent};
use crate::ladder_charts::{self, BandwidthChart, BandwidthRun, ParallelismChart, ParallelismRun};
use crate::ladder_job::{LadderEvent, LadderJob};
use crate::reports::{LoadedReport, Reports, browser_host, cache_markers, to_points};
use crate::theme::Palette;
use crate::util;
use crate::worker::{self, WorkerHandle};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub palette: Palette,
    pub reports: Reports,
    pub on_add: Callback<(Report, String)>,
    /// Embedded in an iframe: the chart and a Run button, nothing else.
    pub compact: bool,
}

#[derive(Debug)]
pub enum Msg {
    SetMin(String),
    SetMax(String),
    SetPointsPerOctave(String),
    SetSamples(String),
    SetLabel(String),
    TogglePattern(Pattern),
    ToggleChains,
    Run,
    Cancel,
    Worker(u32, Box<WorkerEvent>),
    ToggleOverlay(u32),
    CachesFrom(String),
    ToggleLogY,
    SaveJson,
    AddToReports,
    ExportCsv,
    ExportSvg,
    ExportPng,
    Notice(String),
}

#[derive(Debug, Clone, PartialEq)]
struct Calibration {
    timer_resolution_ns: f64,
    target_sample_ns: f64,
    samples: u32,
    cross_origin_isolated: bool,
}

pub struct LadderPage {
    min: String,
    max: String,
    points_per_octave: String,
    samples: String,
    label: String,
    form_error: Option<String>,
    worker: Option<WorkerHandle>,
    run_id: u32,
    planned: Vec<u64>,
    measuring: Option<u64>,
    calibration: Option<Calibration>,
    points: Vec<LadderPoint>,
    /// Patterns measured after the main random curve, and memory-level parallelism.
    patterns: Vec<Pattern>,
    chains: bool,
    /// The extra patterns' points so far, in the job's order.
    extra: Vec<Vec<LadderPoint>>,
    /// Points the run will measure over every curve.
    planned_points: usize,
    /// What is being measured now, for the progress line.
    measuring_what: Option<String>,
    ladder: Option<Ladder>,
    error: Option<String>,
    hidden: HashSet<u32>,
    /// Which report's declared caches to mark: `None` = the first report that declares any.
    caches_from: Option<u32>,
    log_y: bool,
    notice: Option<String>,
}

impl Component for LadderPage {
    type Message = Msg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        let mut page = Self {
            min: util::query("min").unwrap_or_else(|| "16KiB".into()),
            max: util::query("max").unwrap_or_else(|| "256MiB".into()),
            points_per_octave: util::query("ppo").unwrap_or_else(|| "2".into()),
            samples: "auto".into(),
            label: util::browser_name(),
            form_error: None,
            worker: None,
            run_id: 0,
            planned: Vec::new(),
            measuring: None,
            calibration: None,
            points: Vec::new(),
            // Page-local by default: the levels are read from it (caches and DRAM without TLB
            // misses), as the native `memwall run` reads them; `?patterns=` without it opts out.
            patterns: util::query("patterns")
                .map(|list| list.split(',').filter_map(Pattern::parse).filter(|p| *p != Pattern::Random).collect())
                .unwrap_or_else(|| vec![Pattern::PageLocal]),
            chains: util::query("chains").as_deref() == Some("1"),
            extra: Vec::new(),
            planned_points: 0,
            measuring_what: None,
            ladder: None,
            error: None,
            hidden: HashSet::new(),
            caches_from: None,
            log_y: true,
            notice: None,
        };
        if ctx.props().compact && util::query("autorun").as_deref() == Some("1") {
            // An embed sits on someone else's page: it starts by itself only a run small in time
            // and memory, and leaves a larger one to a click from the visitor.
            let largest = page.job().ok().and_then(|job| job.sizes.last().copied());
            match largest {
                Some(bytes) if bytes <= embed::AUTORUN_MAX_BYTES => ctx.link().send_message(Msg::Run),
                Some(bytes) => {
                    page.notice = Some(format!(
                        "This widget measures up to {}: it starts when you press Run in this browser (it starts by itself only up to {}).",
                        format_bytes(bytes),
                        format_bytes(embed::AUTORUN_MAX_BYTES)
                    ))
                }
                None => {}
            }
        }
        page.form_error = page.job().err();
        page
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::SetMin(v) => self.min = v,
            Msg::SetMax(v) => self.max = v,
            Msg::SetPointsPerOctave(v) => self.points_per_octave = v,
            Msg::SetSamples(v) => self.samples = v,
            Msg::SetLabel(v) => self.label = v,
            Msg::TogglePattern(pattern) => {
                if let Some(i) = self.patterns.iter().position(|p| *p == pattern) {
                    self.patterns.remove(i);
                } else {
                    self.patterns.push(pattern);
                }
            }
            Msg::ToggleChains => self.chains = !self.chains,
            Msg::Run => {
                let job = match self.job() {
                    Ok(job) => job,
                    Err(e) => {
                        self.form_error = Some(e);
                        return true;
                    }
                };
                self.run_id += 1;
                let run_id = self.run_id;
                self.planned = job.sizes.clone();
                self.planned_points = job.planned_points();
                self.points.clear();
                self.extra = vec![Vec::new(); job.patterns.len()];
                self.measuring_what = None;
                self.ladder = None;
                self.error = None;
                self.notice = None;
                self.calibration = None;
                self.measuring = None;
                let on_event = ctx.link().callback(move |event| Msg::Worker(run_id, Box::new(event)));
                match worker::spawn(&Job::Ladder(job), on_event) {
                    Ok(handle) => self.worker = Some(handle),
                    Err(e) => self.error = Some(format!("could not start the measuring worker: {e}")),
                }
            }
            Msg::Cancel => {
                // Dropping the handle terminates the worker, mid-sample if need be.
                self.worker = None;
                self.measuring = None;
                self.notice = Some(format!("Cancelled after {} of {} sizes.", self.points.len(), self.planned.len()));
            }
            Msg::Worker(run_id, event) => {
                if run_id != self.run_id || self.worker.is_none() {
                    return false;
                }
                match *event {
                    WorkerEvent::Ladder(LadderEvent::Started {
                        timer_resolution_ns,
                        target_sample_ns,
                        samples,
                        cross_origin_isolated,
                    }) => {
                        self.calibration =
                            Some(Calibration { timer_resolution_ns, target_sample_ns, samples, cross_origin_isolated });
                    }
                    WorkerEvent::Ladder(LadderEvent::Measuring { curve, bytes, .. }) => {
                        self.measuring = Some(bytes);
                        let pattern = match curve {
                            0 => String::new(),
                            n => self.patterns.get(n - 1).map_or(String::new(), |p| format!("{}, ", p.name())),
                        };
                        self.measuring_what = Some(format!("{pattern}{}", format_bytes(bytes)));
                    }
                    WorkerEvent::Ladder(LadderEvent::Point { curve: 0, point, .. }) => self.points.push(point),
                    WorkerEvent::Ladder(LadderEvent::Point { curve, point, .. }) => {
                        if let Some(points) = self.extra.get_mut(curve - 1) {
                            points.push(point);
                        }
                    }
                    WorkerEvent::Ladder(LadderEvent::Chains { bytes }) => {
                        self.measuring_what = Some(format!("memory-level parallelism at {}", format_bytes(bytes)));
                    }
                    WorkerEvent::Ladder(LadderEvent::Done { ladder }) => {
                        self.points = ladder.points.clone();
                        self.ladder = Some(*ladder);
                        self.worker = None;
                        self.measuring = None;
                    }
                    WorkerEvent::Failed { message } => {
                        self.error = Some(message);
                        self.worker = None;
                        self.measuring = None;
                    }
                    WorkerEvent::GroupBy(_) | WorkerEvent::Join(_) => return false,
                }
            }
            Msg::ToggleOverlay(id) => {
                if !self.hidden.remove(&id) {
                    self.hidden.insert(id);
                }
            }
            Msg::CachesFrom(value) => self.caches_from = value.parse().ok(),
            Msg::ToggleLogY => self.log_y = !self.log_y,
            Msg::SaveJson => {
                if let Some(report) = self.report() {
                    self.notice = util::export_notice(util::download_text(
                        "memwall-browser-report.json",
                        "application/json",
                        &report.to_json_pretty(),
                    ));
                }
            }
            Msg::AddToReports => {
                if let Some(report) = self.report() {
                    ctx.props().on_add.emit((report, "measured in this browser".into()));
                    self.notice = Some("Added to Reports: compare it there with native reports.".into());
                }
            }
            Msg::ExportCsv => {
                let csv = memwall_report::ladder_csv(&self.points);
                self.notice = util::export_notice(util::download_text("memwall-browser-ladder.csv", "text/csv", &csv));
            }
            Msg::ExportSvg => {
                self.notice = util::export_notice(util::download_svg(&self.chart_id(ctx), "memwall-ladder.svg"))
            }
            Msg::ExportPng => {
                let id = self.chart_id(ctx);
                ctx.link().send_future(async move {
                    match util::download_png(&id, "memwall-ladder.png").await {
                        Ok(()) => Msg::Notice(String::new()),
                        Err(e) => Msg::Notice(format!("Could not export the PNG: {e}")),
                    }
                });
            }
            Msg::Notice(text) => self.notice = (!text.is_empty()).then_some(text),
        }
        if self.worker.is_none() && self.form_error.is_some() {
            self.form_error = self.job().err();
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let link = ctx.link();
        let running = self.worker.is_some();
        let chart = self.chart(ctx);
        let run_button = if running {
            html! { <button type="button" class="danger" onclick={link.callback(|_| Msg::Cancel)}>{ "Cancel" }</button> }
        } else {
            html! { <button type="button" class="primary" onclick={link.callback(|_| Msg::Run)} disabled={self.form_error.is_some()}>{ "Run in this browser" }</button> }
        };
        let progress = (running || !self.planned.is_empty()).then(|| {
            let done = self.points.len() + self.extra.iter().map(Vec::len).sum::<usize>();
            let total = self.planned_points.max(self.planned.len());
            let text = match (running, &self.measuring_what) {
                (true, Some(what)) => format!("{done} of {total} points — measuring {what}"),
                (true, None) => "calibrating the timer…".to_string(),
                (false, _) if self.ladder.is_some() => format!(
                    "{done} points measured in {:.1} s",
                    self.ladder.as_ref().and_then(|l| l.duration_s).unwrap_or(f64::NAN)
                ),
                (false, _) => format!("{done} of {total} points"),
            };
            html! {
                <div class="progress-row">
                    <progress max={total.max(1).to_string()} value={done.to_string()} aria-label="Ladder progress"></progress>
                    <span class="muted" aria-live="polite">{ text }</span>
                </div>
            }
        });
        let error = self.error.as_ref().map(|e| html! { <div class="alert" role="alert">{ e.clone() }</div> });

        if props.compact {
            return html! {
                <div class="card">
                    <div class="row">
                        { run_button }
                        <span class="muted">{ format!("{} … {}", self.min, self.max) }</span>
                    </div>
                    { for progress }
                    { for error }
                    if let Some(n) = &self.notice { <p class="notice" role="status">{ n.clone() }</p> }
                    { chart }
                    { self.parallelism_chart(ctx) }
                    { self.timer_note() }
                </div>
            };
        }

        let on_input = |f: fn(String) -> Msg| {
            link.callback(move |e: InputEvent| {
                f(chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default())
            })
        };
        let on_samples = link.callback(|e: Event| {
            Msg::SetSamples(chart::target::<web_sys::HtmlSelectElement>(&e).map(|s| s.value()).unwrap_or_default())
        });
        let has_run = !self.points.is_empty();
        html! {
            <>
                <div class="intro">
                    <h1>{ "How far away is memory?" }</h1>
                    <p>{ "Each load below depends on the one before it: the address of the next cache line is the value of the last, in one random cycle, so nothing can be overlapped or prefetched. The time per load is the latency of wherever the working set lives — L1, L2, L3, or DRAM — and every step up the ladder is a cache running out." }</p>
                </div>
                <div class="card">
                    <form class="controls" onsubmit={link.callback(|e: SubmitEvent| { e.prevent_default(); Msg::Run })}>
                        <label>{ "Smallest working set" }
                            <input type="text" value={self.min.clone()} oninput={on_input(Msg::SetMin)} disabled={running} aria-describedby="size-help" />
                        </label>
                        <label>{ "Largest working set" }
                            <input type="text" value={self.max.clone()} oninput={on_input(Msg::SetMax)} disabled={running} aria-describedby="size-help" />
                        </label>
                        <label>{ "Points per doubling" }
                            <input type="number" min="1" max="8" value={self.points_per_octave.clone()} oninput={on_input(Msg::SetPointsPerOctave)} disabled={running} />
                        </label>
                        <label>{ "Samples per size" }
                            <select onchange={on_samples} disabled={running}>
                                { for ["auto", "5", "9", "15", "31"].iter().map(|v| html! { <option value={*v} selected={self.samples == *v}>{ if *v == "auto" { "auto (from the timer)" } else { v } }</option> }) }
                            </select>
                        </label>
                        <fieldset class="checks">
                            <legend>{ "Also measure" }</legend>
                            { for [Pattern::PageLocal, Pattern::PageStride, Pattern::Sequential].into_iter().map(|pattern| html! {
                                <label class="check" title={pattern_help(pattern)}>
                                    <input type="checkbox" checked={self.patterns.contains(&pattern)} disabled={running}
                                        onchange={link.callback(move |_| Msg::TogglePattern(pattern))} />
                                    { pattern.name() }
                                </label>
                            }) }
                            <label class="check" title="1 to 64 independent chases at once over the largest size (at most 256 MiB): how many misses the core keeps in flight">
                                <input type="checkbox" checked={self.chains} disabled={running} onchange={link.callback(|_| Msg::ToggleChains)} />
                                { "memory-level parallelism" }
                            </label>
                        </fieldset>
                        <div class="actions">{ run_button }</div>
                    </form>
                    <p id="size-help" class="hint">{ "Sizes like 16KiB, 1.5MiB, 256MiB. Larger working sets take longer: building and warming a 256 MiB ring takes about a second." }</p>
                    if let Some(e) = &self.form_error { <p class="field-error" role="alert">{ e.clone() }</p> }
                    { for progress }
                    { self.timer_note() }
                </div>
                { for error }
                <div class="card">
                    { self.overlay_controls(ctx) }
                    { chart }
                    { self.steps_summary() }
                    { self.parallelism_chart(ctx) }
                    { self.bandwidth_chart(ctx) }
                    if let Some(ladder) = &self.ladder {
                        { levels_and_verdict(ladder, &explain::advice(ladder, None)) }
                    }
                    <div class="row wrap-row">
                        <button type="button" onclick={link.callback(|_| Msg::ToggleLogY)} aria-pressed={(!self.log_y).to_string()}>{ if self.log_y { "Linear y axis" } else { "Log y axis" } }</button>
                        <button type="button" onclick={link.callback(|_| Msg::ExportSvg)}>{ "Export SVG" }</button>
                        <button type="button" onclick={link.callback(|_| Msg::ExportPng)}>{ "Export PNG" }</button>
                        <button type="button" onclick={link.callback(|_| Msg::ExportCsv)} disabled={!has_run}>{ "Export CSV" }</button>
                    </div>
                </div>
                if has_run {
                    <div class="card">
                        <h2>{ "Measured in this browser" }</h2>
                        { self.table() }
                        <div class="row wrap-row">
                            <label class="inline">{ "Name this run " }
                                <input type="text" value={self.label.clone()} oninput={on_input(Msg::SetLabel)} />
                            </label>
                            <button type="button" onclick={link.callback(|_| Msg::SaveJson)} disabled={self.ladder.is_none()}>{ "Save as report (JSON)" }</button>
                            <button type="button" class="primary" onclick={link.callback(|_| Msg::AddToReports)} disabled={self.ladder.is_none()}>{ "Compare in Reports" }</button>
                        </div>
                        if let Some(n) = &self.notice { <p class="notice" role="status">{ n.clone() }</p> }
                    </div>
                } else if let Some(n) = &self.notice {
                    <p class="notice" role="status">{ n.clone() }</p>
                }
                <EmbedPanel kind="ladder" params={self.embed_params()} report={self.report().map(Rc::new)} />
            </>
        }
    }
}

impl LadderPage {
    fn job(&self) -> Result<LadderJob, String> {
        let min = parse_size(&self.min)?;
        let max = parse_size(&self.max)?;
        util::fits_in_browser(ladder::bytes_needed(max))?;
        let ppo: u32 = self
            .points_per_octave
            .trim()
            .parse()
            .map_err(|_| "points per doubling must be a whole number".to_string())?;
        let sizes = ladder::ladder_sizes(min, max, ppo).map_err(|e| {
            e.replace("--min", "the smallest size")
                .replace("--max", "the largest")
                .replace("--points-per-octave", "points per doubling")
        })?;
        let samples = if self.samples == "auto" { 0 } else { self.samples.parse().unwrap_or(0) };
        let job = LadderJob {
            sizes,
            samples,
            seed: ladder::DEFAULT_SEED,
            patterns: self.patterns.iter().map(|p| p.name().to_string()).collect(),
            chains: if self.chains { ladder::CHAIN_COUNTS.to_vec() } else { Vec::new() },
        };
        job.curves()?;
        Ok(job)
    }

    fn chart_id(&self, ctx: &Context<Self>) -> String {
        if ctx.props().compact { "ladder-chart-embed".into() } else { "ladder-chart".into() }
    }

    /// The finished run as a report of the shared schema, `source: "browser"`.
    fn report(&self) -> Option<Report> {
        let ladder = self.ladder.clone()?;
        let calibration = self.calibration.clone();
        let host = Host {
            core_ghz_unavailable: ladder.cycles_unavailable.clone(),
            ..browser_host(
                Some(self.label.trim().to_string()).filter(|n| !n.is_empty()),
                ladder.timer_resolution_ns,
                calibration.map(|c| c.cross_origin_isolated),
            )
        };
        let mut report = Report::new(Source::Browser, util::unix_now(), host);
        report.advice = explain::advice(&ladder, None);
        report.ladder = Some(ladder);
        Some(report)
    }

    fn timer_note(&self) -> Html {
        match &self.calibration {
            Some(c) => {
                let resolution = util::format_duration(c.timer_resolution_ns);
                let sample = util::format_duration(c.target_sample_ns);
                html! {
                    <p class={classes!("timer-note", (!c.cross_origin_isolated).then_some("warn"))}>
                        { format!("Timer resolution {resolution} · {} · each sample ≥ {sample} (500 ticks or more), {} samples per size.",
                            if c.cross_origin_isolated { "cross-origin isolated" } else { "not cross-origin isolated" }, c.samples) }
                        if !c.cross_origin_isolated {
                            { " Without COOP/COEP headers the browser coarsens its timer; samples are made longer to compensate. Serve with " }<code>{ "memwall serve" }</code>{ " for 5 µs timers." }
                        }
                    </p>
                }
            }
            None => {
                let isolated = crate::clock::cross_origin_isolated();
                html! {
                    <p class="timer-note muted">
                        { if isolated { "This page is cross-origin isolated: the browser allows its finest timer." } else { "This page is not cross-origin isolated: the browser's timer is coarse, so samples will be longer." } }
                    </p>
                }
            }
        }
    }

    /// Reports that carry a ladder, except the one this page added itself (same points).
    fn comparable(&self, ctx: &Context<Self>) -> Vec<LoadedReport> {
        ctx.props()
            .reports
            .iter()
            .filter(|r| r.report.ladder.is_some() && r.report.ladder != self.ladder)
            .cloned()
            .collect()
    }

    fn caches_report(&self, ctx: &Context<Self>) -> Option<LoadedReport> {
        let reports = &ctx.props().reports;
        match self.caches_from {
            Some(id) => reports.iter().find(|r| r.id == id).cloned(),
            None => reports.iter().find(|r| !r.report.host.caches.is_empty()).cloned(),
        }
    }

    fn overlay_controls(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let comparable = self.comparable(ctx);
        let with_caches: Vec<_> =
            ctx.props().reports.iter().filter(|r| !r.report.host.caches.is_empty()).cloned().collect();
        let selected = self.caches_report(ctx).map(|r| r.id);
        html! {
            <div class="overlay-controls">
                if comparable.is_empty() {
                    <p class="muted">{ "Open a native report (from " }<code>{ "memwall run" }</code>{ ") on the Reports page to compare this browser with the host at full precision and to mark the cache sizes it declares." }</p>
                } else {
                    <fieldset class="checks">
                        <legend>{ "Compare with" }</legend>
                        { for comparable.iter().map(|r| {
                            let id = r.id;
                            html! {
                                <label class="check">
                                    <input type="checkbox" checked={!self.hidden.contains(&id)} onchange={link.callback(move |_| Msg::ToggleOverlay(id))} />
                                    <span class="swatch" style={format!("background:{}", ctx.props().palette.color(id as usize))}></span>
                                    { format!("{} ({})", r.label, r.report.source.name()) }
                                </label>
                            }
                        }) }
                    </fieldset>
                }
                if !with_caches.is_empty() {
                    <label class="inline">{ "Mark the caches declared by " }
                        <select onchange={link.callback(|e: Event| Msg::CachesFrom(chart::target::<web_sys::HtmlSelectElement>(&e).map(|s| s.value()).unwrap_or_default()))}>
                            { for with_caches.iter().map(|r| html! { <option value={r.id.to_string()} selected={selected == Some(r.id)}>{ r.label.clone() }</option> }) }
                            <option value="none" selected={self.caches_from.is_none() && selected.is_none()}>{ "no report" }</option>
                        </select>
                    </label>
                }
            </div>
        }
    }

    fn chart(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let mut series = Vec::new();
        if !self.points.is_empty() || self.worker.is_some() {
            series.push(Series {
                label: format!("{} (this run)", self.label.trim()),
                color: 0,
                dashed: false,
                points: to_points(&self.points),
            });
        }
        let this_run = format!("{} (this run)", self.label.trim());
        match &self.ladder {
            Some(ladder) => series.extend(ladder_charts::extra_series(&this_run, 0, ladder)),
            None => {
                for (pattern, points) in self.patterns.iter().zip(&self.extra).filter(|(_, p)| !p.is_empty()) {
                    series.push(Series {
                        label: format!("{this_run}, {}", pattern.name()),
                        color: 0,
                        dashed: true,
                        points: to_points(points),
                    });
                }
            }
        }
        for r in self.comparable(ctx) {
            if self.hidden.contains(&r.id) {
                continue;
            }
            let Some(ladder) = &r.report.ladder else { continue };
            let label = format!("{} ({})", r.label, r.report.source.name());
            series.push(Series {
                label: label.clone(),
                color: r.id as usize,
                dashed: r.report.source == Source::Browser,
                points: to_points(&ladder.points),
            });
            series.extend(ladder_charts::extra_series(&label, r.id as usize, ladder));
        }
        let caches_report = self.caches_report(ctx);
        let mut markers = caches_report.as_ref().map(|r| cache_markers(&r.report.host)).unwrap_or_default();
        // The levels the core named: this run's, or else those of the report whose caches are marked.
        let levels_of = self.ladder.as_ref().or_else(|| caches_report.as_ref().and_then(|r| r.report.ladder.as_ref()));
        markers.extend(levels_of.map(ladder_charts::level_markers).unwrap_or_default());
        let bands: Vec<Band> = ladder::detect_steps(&self.points)
            .iter()
            .map(|s| Band {
                x0: s.from_bytes as f64,
                x1: s.to_bytes as f64,
                label: format!("×{:.1}", s.ns_per_load_after / s.ns_per_load_before),
            })
            .collect();
        let x_range = match (self.planned.first(), self.planned.last()) {
            (Some(&a), Some(&b)) => Some((a as f64, b as f64)),
            _ => None,
        };
        html! {
            <LineChart id={self.chart_id(ctx)} title="Latency per load against working set" x_label="working set" y_label="ns per load" y_unit="ns"
                x_format={XFormat::Bytes} series={Rc::new(series)} markers={Rc::new(markers)} bands={Rc::new(bands)} {x_range}
                palette={props.palette} log_y={self.log_y} height={if props.compact { 360.0 } else { 430.0 }}
                empty_text="Press Run: points appear here as each size is measured." />
        }
    }

    /// What an embed of this page measures: the same sizes, patterns and chases.
    fn embed_params(&self) -> Vec<(String, String)> {
        let mut params = vec![("min".to_string(), self.min.clone()), ("max".to_string(), self.max.clone())];
        // Named even when only random is left, or the embed would add page-local back.
        let names: Vec<&str> = std::iter::once("random").chain(self.patterns.iter().map(|p| p.name())).collect();
        params.push(("patterns".into(), names.join(",")));
        if self.chains {
            params.push(("chains".into(), "1".into()));
        }
        params
    }

    fn parallelism_chart(&self, ctx: &Context<Self>) -> Html {
        let mut runs = Vec::new();
        if let Some(parallelism) = self.ladder.as_ref().and_then(|l| l.parallelism.clone()) {
            runs.push(ParallelismRun { label: format!("{} (this run)", self.label.trim()), color: 0, parallelism });
        }
        for r in self.comparable(ctx).into_iter().filter(|r| !self.hidden.contains(&r.id)) {
            if let Some(parallelism) = r.report.ladder.as_ref().and_then(|l| l.parallelism.clone()) {
                runs.push(ParallelismRun { label: r.label.clone(), color: r.id as usize, parallelism });
            }
        }
        let id = if ctx.props().compact { "parallelism-chart-embed" } else { "parallelism-chart" };
        html! { <ParallelismChart {id} runs={Rc::new(runs)} palette={ctx.props().palette} /> }
    }

    /// Bandwidth is measured natively only; the reports that carry it are drawn beside the ladder.
    fn bandwidth_chart(&self, ctx: &Context<Self>) -> Html {
        let runs: Vec<BandwidthRun> = ctx
            .props()
            .reports
            .iter()
            .filter(|r| !self.hidden.contains(&r.id))
            .filter_map(|r| {
                Some(BandwidthRun {
                    label: r.label.clone(),
                    color: r.id as usize,
                    bandwidth: r.report.bandwidth.clone()?,
                })
            })
            .collect();
        html! { <BandwidthChart id="bandwidth-chart" runs={Rc::new(runs)} palette={ctx.props().palette} /> }
    }

    fn steps_summary(&self) -> Html {
        if self.points.len() < 2 {
            return html! {};
        }
        let steps = ladder::detect_steps(&self.points);
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

    fn table(&self) -> Html {
        html! {
            <div class="table-wrap">
                <table class="data" id="ladder-table">
                    <caption class="visually-hidden">{ "ns per load for each working set measured in this browser" }</caption>
                    <thead><tr>
                        <th scope="col">{ "working set" }</th><th scope="col">{ "ns min" }</th><th scope="col">{ "ns median" }</th>
                        <th scope="col">{ "ns p90" }</th><th scope="col">{ "ns max" }</th><th scope="col">{ "spread" }</th>
                        <th scope="col" title="a size whose samples spread over 3% is measured again, keeping the least disturbed attempt">{ "attempts" }</th>
                        <th scope="col">{ "samples" }</th><th scope="col">{ "loads per sample" }</th>
                    </tr></thead>
                    <tbody>
                        { for self.points.iter().map(|p| { let ns = &p.ns_per_load; html! {
                            <tr>
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
}

/// A ladder's named levels and its verdict, as the core read them.
fn levels_and_verdict(ladder: &Ladder, advice: &[String]) -> Html {
    if ladder.levels.is_empty() && ladder.verdict.is_empty() && advice.is_empty() {
        return html! {};
    }
    html! {
        <div class="explanation">
            if !ladder.levels.is_empty() {
                <p class="levels"><strong>{ "Levels: " }</strong>
                    { ladder.levels.iter().map(|l| format!(
                        "{} {} {} at {} ns{} ({})",
                        l.name,
                        if l.cause == Cause::Dram { "from" } else { "to" },
                        format_bytes(l.size_bytes),
                        chart::format_number(l.ns_per_load),
                        l.cycles_per_load.map_or(String::new(), |c| format!(", {c:.0} cycles")),
                        describe::level_notes(l),
                    )).collect::<Vec<_>>().join(" · ") }
                </p>
            }
            if !ladder.verdict.is_empty() {
                <ul class="verdict">{ for ladder.verdict.iter().map(|s| html! { <li>{ s.clone() }</li> }) }</ul>
            }
            if !advice.is_empty() {
                <p><strong>{ "For someone choosing a server:" }</strong></p>
                <ul class="advice">{ for advice.iter().map(|s| html! { <li>{ s.clone() }</li> }) }</ul>
            }
        </div>
    }
}

/// What a report says about its ladder and its advice, for the reports page.
pub fn explanation(report: &memwall_report::Report) -> Html {
    match &report.ladder {
        Some(ladder) => levels_and_verdict(ladder, &report.advice),
        None if !report.advice.is_empty() => html! {
            <ul class="advice">{ for report.advice.iter().map(|s| html! { <li>{ s.clone() }</li> }) }</ul>
        },
        None => html! {},
    }
}

/// What each extra pattern shows, for its checkbox.
fn pattern_help(pattern: Pattern) -> &'static str {
    match pattern {
        Pattern::PageLocal => "random lines, a few pages at a time: the caches and DRAM without TLB misses",
        Pattern::PageStride => "one line per 4 KiB page: what TLB misses and page walks cost",
        Pattern::Sequential => "every line in order: what the hardware prefetchers hide",
        Pattern::Random => "one random cycle over every line",
    }
}
