//! The hash-join probe race in this browser: a build side of distinct keys with 8-byte payloads
//! against a probe side of rows, joined by the core's kernels compiled to wasm, in a worker.

use std::collections::BTreeSet;
use std::rc::Rc;

use memwall_core::join::Kernel;
use memwall_core::join::race::Check;
use memwall_report::{Join, Report, Source};
use yew::prelude::*;

use crate::chart::{self, Bar, BarChart, format_number};
use crate::embed::EmbedPanel;
use crate::jobs::{Job, WorkerEvent};
use crate::join_compare::compare_view;
use crate::join_job::{JoinEvent, JoinJob};
use crate::partition_view::PartitionView;
use crate::radix_viz::group_digits;
use crate::reports::{Reports, browser_host};
use crate::theme::Palette;
use crate::util;
use crate::worker::{self, WorkerHandle};

/// Timed runs per kernel; the bars and the table show the median.
const RUNS: u32 = 3;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub palette: Palette,
    pub reports: Reports,
    pub on_add: Callback<(Report, String)>,
    /// One compact widget (`?embed=join`): the form's sizes from the URL, the run button, the bars.
    pub compact: bool,
}

#[derive(Debug)]
pub enum Msg {
    SetBuild(String),
    SetProbe(String),
    SetMiss(String),
    ToggleKernel(Kernel),
    Run,
    Cancel,
    Worker(u32, Box<WorkerEvent>),
    ExportSvg,
    SaveJson,
    AddToReports,
}

/// The partition count and build keys and probe rows per partition.
type Split = (u32, Rc<Vec<u32>>, Rc<Vec<u32>>);

pub struct JoinPage {
    build: String,
    probe: String,
    miss: String,
    kernels: BTreeSet<Kernel>,
    worker: Option<WorkerHandle>,
    run_id: u32,
    phase: String,
    /// Seconds of every finished run, per kernel, as they come in.
    timed: Vec<(String, Vec<f64>)>,
    probe_rows: u64,
    result: Option<Join>,
    /// Build keys and probe rows per partition, as the worker counted them.
    partitions: Option<Split>,
    timer: Option<(f64, bool)>,
    error: Option<String>,
    notice: Option<String>,
}

/// The race the form describes, or a one-line reason why it cannot run here.
fn job(build: &str, probe: &str, miss: &str, kernels: &BTreeSet<Kernel>) -> Result<JoinJob, String> {
    let count = |text: &str, what: &str| memwall_core::size::parse_count(text).map_err(|e| format!("{what}: {e}"));
    let build_keys = count(build, "build keys")?;
    let probe_rows = count(probe, "probe rows")?;
    let miss_rate =
        miss.trim().parse::<f64>().map_err(|_| format!("miss rate: '{miss}' is not a number from 0 to 1"))?;
    if kernels.is_empty() {
        return Err("pick at least one kernel".into());
    }
    if probe_rows == 0 {
        return Err("there must be at least one probe row".into());
    }
    let job = JoinJob {
        build_keys,
        probe_rows,
        miss_rate,
        kernels: kernels.iter().map(|k| k.name().to_string()).collect(),
        runs: RUNS,
    };
    let spec = job.spec()?;
    let kernels: Vec<Kernel> = kernels.iter().copied().collect();
    util::fits_in_browser(job.bytes_needed(&spec, &kernels))?;
    Ok(job)
}

/// "every run of every kernel …", from the names of the checks a run passed.
fn checks_sentence(verified_by: &[String]) -> Option<String> {
    let all = [
        Check::Reference(memwall_core::race::Reference::SortAndMerge),
        Check::KnownMatches,
        Check::CrossKernel,
        Check::Repeatable,
    ];
    let done: Vec<&str> =
        verified_by.iter().filter_map(|name| all.iter().find(|c| c.name() == name)).map(|c| c.describe()).collect();
    (!done.is_empty()).then(|| format!("Checked: every run of every kernel {}.", done.join(", ")))
}

impl Component for JoinPage {
    type Message = Msg;
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        // The CLI's `small` preset (large enough that the build side outgrows the caches), or
        // what the URL names (`?build=&probe=&miss=&kernels=`, as embeds carry them).
        Self {
            build: util::query("build").unwrap_or_else(|| "1,700,000".into()),
            probe: util::query("probe").unwrap_or_else(|| "10,000,000".into()),
            miss: util::query("miss").unwrap_or_else(|| "0.1".into()),
            kernels: util::query("kernels")
                .map(|list| list.split(',').filter_map(Kernel::parse).collect::<BTreeSet<_>>())
                .filter(|k| !k.is_empty())
                .unwrap_or_else(|| Kernel::ALL.into_iter().collect()),
            worker: None,
            run_id: 0,
            phase: String::new(),
            timed: Vec::new(),
            probe_rows: 0,
            result: None,
            partitions: None,
            timer: None,
            error: None,
            notice: None,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::SetBuild(v) => self.build = v,
            Msg::SetProbe(v) => self.probe = v,
            Msg::SetMiss(v) => self.miss = v,
            Msg::ToggleKernel(k) => {
                if !self.kernels.remove(&k) {
                    self.kernels.insert(k);
                }
            }
            Msg::Run => self.start(ctx),
            Msg::Cancel => {
                self.worker = None;
                self.phase = "Cancelled.".into();
            }
            Msg::Worker(run_id, event) => {
                if run_id != self.run_id || self.worker.is_none() {
                    return false;
                }
                match *event {
                    WorkerEvent::Join(event) => self.on_event(event),
                    WorkerEvent::Failed { message } => {
                        self.error = Some(message);
                        self.worker = None;
                    }
                    _ => return false,
                }
            }
            Msg::ExportSvg => {
                self.notice = util::export_notice(util::download_svg("join-race", "memwall-join-race.svg"))
            }
            Msg::SaveJson => {
                if let Some(report) = self.report() {
                    self.notice = util::export_notice(util::download_text(
                        "memwall-browser-join.json",
                        "application/json",
                        &report.to_json_pretty(),
                    ));
                }
            }
            Msg::AddToReports => {
                if let Some(report) = self.report() {
                    ctx.props().on_add.emit((report, "measured in this browser".into()));
                    self.notice = Some("Added to Reports.".into());
                }
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let running = self.worker.is_some();
        let form_error = job(&self.build, &self.probe, &self.miss, &self.kernels).err();
        let on_text = |f: fn(String) -> Msg| {
            link.callback(move |e: InputEvent| {
                f(chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default())
            })
        };
        let button = if running {
            html! { <button type="button" class="danger" onclick={link.callback(|_| Msg::Cancel)}>{ "Cancel" }</button> }
        } else {
            html! { <button type="submit" class="primary" disabled={form_error.is_some()}>{ "Run the join" }</button> }
        };
        let props = ctx.props();
        if props.compact {
            return html! {
                <div class="card">
                    <form class="row" onsubmit={link.callback(|e: SubmitEvent| { e.prevent_default(); Msg::Run })}>
                        { button }
                        <span class="muted">{ format!("{} build keys, {} probe rows, miss rate {}", self.build, self.probe, self.miss) }</span>
                    </form>
                    if let Some(e) = form_error { <p class="field-error" role="alert">{ e }</p> }
                    if !self.phase.is_empty() { <p class="muted" aria-live="polite">{ self.phase.clone() }</p> }
                    if let Some(e) = &self.error { <div class="alert" role="alert">{ e.clone() }</div> }
                    { self.chart(props.palette, "join-race-embed") }
                </div>
            };
        }
        html! {
            <>
                <div class="intro">
                    <h1>{ "SELECT … FROM probe JOIN build USING (key)" }</h1>
                    <p>{ "A hash join builds a table over the smaller side and looks up every row of the larger one. Once that table outgrows the caches, every probe waits for DRAM; partitioning both sides by hash keeps each table in cache. The same kernels the native memwall runs, compiled to WebAssembly, race here on one core." }</p>
                </div>
                <div class="card">
                    <form class="controls" onsubmit={link.callback(|e: SubmitEvent| { e.prevent_default(); Msg::Run })}>
                        <label>{ "Build keys" }<input type="text" inputmode="numeric" value={self.build.clone()} oninput={on_text(Msg::SetBuild)} disabled={running} /></label>
                        <label>{ "Probe rows" }<input type="text" inputmode="numeric" value={self.probe.clone()} oninput={on_text(Msg::SetProbe)} disabled={running} /></label>
                        <label>{ "Miss rate" }<input type="text" inputmode="decimal" value={self.miss.clone()} oninput={on_text(Msg::SetMiss)} disabled={running} /></label>
                        <div class="actions">{ button }</div>
                    </form>
                    <fieldset class="checks kernels">
                        <legend>{ "Kernels" }</legend>
                        { for Kernel::ALL.iter().map(|&k| html! {
                            <label class="check" title={k.description()}>
                                <input type="checkbox" checked={self.kernels.contains(&k)} disabled={running} onchange={link.callback(move |_| Msg::ToggleKernel(k))} />
                                <strong>{ k.name() }</strong><span class="muted small">{ format!(" — {}", k.description()) }</span>
                            </label>
                        }) }
                    </fieldset>
                    if let Some(e) = form_error { <p class="field-error" role="alert">{ e }</p> }
                    if !self.phase.is_empty() { <p class="muted" aria-live="polite">{ self.phase.clone() }</p> }
                </div>
                if let Some(e) = &self.error { <div class="alert" role="alert">{ e.clone() }</div> }
                <div class="card">
                    { self.chart(props.palette, "join-race") }
                    { self.table() }
                    if let Some(join) = &self.result {
                        <div class="row wrap-row">
                            <button type="button" onclick={link.callback(|_| Msg::ExportSvg)}>{ "Export SVG" }</button>
                            <button type="button" onclick={link.callback(|_| Msg::SaveJson)}>{ "Save as report (JSON)" }</button>
                            <button type="button" class="primary" onclick={link.callback(|_| Msg::AddToReports)}>{ "Add to Reports" }</button>
                        </div>
                        { compare_view(join, &props.reports) }
                    }
                    if let Some(n) = &self.notice { <p class="notice" role="status">{ n.clone() }</p> }
                </div>
                if let Some((partitions, build, probe)) = &self.partitions {
                    <div class="card" id="join-partitions">
                        <h2>{ format!("Both sides in {partitions} partitions") }</h2>
                        <p>{ "The partitioning kernels split the build keys and the probe rows by the same top bits of the key's hash, so each partition's probes meet only that partition's table, which fits the cache. Counted here from the generated rows by the core's partition function, at the partition count the kernels pick in this browser." }</p>
                        <PartitionView title="Build side" unit="build keys" counts={build.clone()} palette={props.palette} />
                        <PartitionView title="Probe side" unit="probe rows" counts={probe.clone()} palette={props.palette} />
                    </div>
                }
                <EmbedPanel kind="join" params={vec![
                        ("build".to_string(), self.build.clone()),
                        ("probe".to_string(), self.probe.clone()),
                        ("miss".to_string(), self.miss.clone()),
                        ("kernels".to_string(), self.kernels.iter().map(|k| k.name()).collect::<Vec<_>>().join(",")),
                    ]}
                    report={self.report().map(Rc::new)} />
            </>
        }
    }
}

impl JoinPage {
    fn start(&mut self, ctx: &Context<Self>) {
        if self.worker.is_some() {
            return;
        }
        let job = match job(&self.build, &self.probe, &self.miss, &self.kernels) {
            Ok(job) => job,
            // The form already shows why; nothing to start.
            Err(_) => return,
        };
        self.run_id += 1;
        let run_id = self.run_id;
        self.probe_rows = job.probe_rows;
        self.timed = job.kernels.iter().map(|k| (k.clone(), Vec::new())).collect();
        self.result = None;
        self.partitions = None;
        self.error = None;
        self.notice = None;
        self.phase = "Starting…".into();
        let on_event = ctx.link().callback(move |e| Msg::Worker(run_id, Box::new(e)));
        match worker::spawn(&Job::Join(job), on_event) {
            Ok(handle) => self.worker = Some(handle),
            Err(e) => self.error = Some(format!("could not start the measuring worker: {e}")),
        }
    }

    fn on_event(&mut self, event: JoinEvent) {
        match event {
            JoinEvent::Generating => self.phase = format!("Generating {} probe rows…", group_digits(self.probe_rows)),
            JoinEvent::Generated { seconds, timer_resolution_ns, cross_origin_isolated } => {
                self.timer = Some((timer_resolution_ns, cross_origin_isolated));
                self.phase = format!("Generated both sides in {seconds:.1} s.");
            }
            JoinEvent::Partitions { partitions, build, probe } => {
                self.partitions = Some((partitions, Rc::new(build), Rc::new(probe)));
            }
            JoinEvent::Preparing { what } => self.phase = format!("Untimed: {what}…"),
            JoinEvent::Running { kernel, run, runs } => {
                self.phase = format!("Timing {kernel}, run {} of {runs}…", run + 1)
            }
            JoinEvent::Timed { kernel, seconds, .. } => {
                if let Some((_, samples)) = self.timed.iter_mut().find(|(k, _)| *k == kernel) {
                    samples.push(seconds);
                }
            }
            JoinEvent::Done { join } => {
                self.phase = format!(
                    "Done: {} build keys, {} probe rows.",
                    group_digits(join.dataset.build_keys),
                    group_digits(join.dataset.probe_rows)
                );
                self.result = Some(join);
                self.worker = None;
            }
            JoinEvent::Failed { message } => {
                self.error = Some(message);
                self.worker = None;
            }
        }
    }

    /// The race as a report of this browser (`source: "browser"`, the shared `join` section).
    fn report(&self) -> Option<Report> {
        let join = self.result.clone()?;
        let (resolution, isolated) = self.timer.unwrap_or((f64::NAN, false));
        let host = browser_host(Some(util::browser_name()), Some(resolution).filter(|r| r.is_finite()), Some(isolated));
        let mut report = Report::new(Source::Browser, util::unix_now(), host);
        report.join = Some(join);
        Some(report)
    }

    /// Bars that fill in as runs finish: the median so far of each kernel, per probe row.
    fn chart(&self, palette: Palette, id: &'static str) -> Html {
        if self.timed.is_empty() {
            return html! { <p class="muted empty">{ "Press Run the join: each kernel's bar appears when its first run is timed." }</p> };
        }
        let rows = self.probe_rows.max(1) as f64;
        let bars: Vec<Bar> = self
            .timed
            .iter()
            .enumerate()
            .map(|(i, (kernel, samples))| {
                let median = memwall_report::Summary::of(samples).map(|s| s.median * 1e9 / rows);
                let text = match median {
                    Some(ns) => format!("{} ns/probe row", format_number(ns)),
                    None if self.worker.is_some() => "waiting…".into(),
                    None => "not run".into(),
                };
                Bar { label: kernel.clone(), value: median, text, color: i }
            })
            .collect();
        html! {
            <BarChart {id} title={format!("{} probe rows: ns per probe row, shorter is faster", group_digits(self.probe_rows))}
                value_label="ns per probe row (median run so far)" bars={Rc::new(bars)} {palette} />
        }
    }

    fn table(&self) -> Html {
        let Some(join) = &self.result else { return html! {} };
        let ms = |s: f64| format_number(s * 1e3);
        html! {
            <div class="table-wrap">
                <table class="data" id="join-table">
                    <caption class="visually-hidden">{ "Join race in this browser (medians)" }</caption>
                    <thead><tr>
                        <th scope="col">{ "kernel" }</th><th scope="col">{ "build ms" }</th><th scope="col">{ "probe ms" }</th><th scope="col">{ "total ms" }</th>
                        <th scope="col">{ "ns/probe row" }</th><th scope="col">{ "matches" }</th><th scope="col">{ "checksum" }</th>
                    </tr></thead>
                    <tbody>
                        { for join.runs.iter().map(|r| html! {
                            <tr>
                                <th scope="row">{ r.kernel.clone() }</th>
                                <td>{ ms(r.build_seconds.median) }</td><td>{ ms(r.probe_seconds.median) }</td><td>{ ms(r.seconds.median) }</td>
                                <td>{ format!("{:.2}", r.ns_per_probe) }</td><td>{ group_digits(r.matches) }</td><td><code>{ r.checksum.clone() }</code></td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                <ul class="muted small" id="join-rules">
                    if let Some(line) = join.runs.first().and_then(|r| checks_sentence(&r.verified_by)) { <li>{ line }</li> }
                    { for join.runs.iter().filter_map(|r| r.choice.as_ref().map(|c| html! { <li>{ format!("{} chose {}: {}", r.kernel, c.kernel, c.reason) }</li> })) }
                </ul>
            </div>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> BTreeSet<Kernel> {
        Kernel::ALL.into_iter().collect()
    }

    #[test]
    fn the_default_form_is_a_race_that_fits() {
        let job = job("1,700,000", "10,000,000", "0.1", &all()).unwrap();
        assert_eq!((job.build_keys, job.probe_rows, job.kernels.len()), (1_700_000, 10_000_000, 5));
    }

    #[test]
    fn bad_input_is_a_message_not_a_panic() {
        assert!(job("ten", "1M", "0", &all()).unwrap_err().starts_with("build keys:"));
        assert!(job("1000", "1M", "lots", &all()).unwrap_err().starts_with("miss rate:"));
        assert!(job("1000", "1M", "1.5", &all()).unwrap_err().contains("miss rate"));
        assert_eq!(job("1000", "1M", "0", &BTreeSet::new()).unwrap_err(), "pick at least one kernel");
        let too_big = job("1G", "10G", "0", &all()).unwrap_err();
        assert!(too_big.contains("at most 4 GiB"), "{too_big}");
    }

    #[test]
    fn the_checks_sentence_names_only_known_checks() {
        let names = ["reference".to_string(), "cross-kernel".to_string(), "bogus".to_string()];
        let line = checks_sentence(&names).unwrap();
        assert!(line.contains("sort-and-merge reference") && line.contains("every other kernel"), "{line}");
        assert_eq!(checks_sentence(&[]), None);
    }
}
