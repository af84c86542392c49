//! The GROUP BY race in this browser: `SELECT key, count(*) FROM t GROUP BY key` by the core's
//! kernels, compiled to wasm and run in a worker, plus the picture of why radix partitioning
//! wins and a measured sweep of its one knob, the partition count.

use std::collections::BTreeSet;
use std::rc::Rc;

use memwall_core::datagen::{self, Skew};
use memwall_core::groupby::sweep::doublings;
use memwall_core::groupby::{self, Aggregates, GroupByConfig, Kernel, ValueType, summary};
use memwall_report::{GroupBy, Report, Source, Sweep, SweepPoint};
use yew::prelude::*;

use crate::agg_choice::{self, AggregateChoice};
use crate::chart::{self, Bar, BarChart, LineChart, Marker, Point, Series, XFormat, format_number};
use crate::embed::EmbedPanel;
use crate::groupby_job::{self, DataJob, GroupByEvent, GroupByJob, Task};
use crate::jobs::{Job, WorkerEvent};
use crate::radix_viz::{RadixViz, group_digits};
use crate::reports::{Reports, browser_host};
use crate::theme::Palette;
use crate::util;
use crate::worker::{self, WorkerHandle};

/// The preset the page starts from (the CLI's `small`: 10 M rows, 1.7 M keys, ClickBench skew).
const PRESET: &str = "small";
/// Kernels raced unless the reader picks others.
const DEFAULT_KERNELS: [Kernel; 3] = [Kernel::Naive, Kernel::Radix, Kernel::Tuned];

#[derive(Properties, PartialEq)]
pub struct Props {
    pub palette: Palette,
    pub reports: Reports,
    pub on_add: Callback<(Report, String)>,
    pub compact: bool,
}

#[derive(Debug)]
pub enum Msg {
    SetRows(String),
    SetKeys(String),
    SetSkew(String),
    SetRuns(String),
    SetAggregates(String),
    SetValueType(String),
    ToggleKernel(Kernel),
    SetPartitions(u32),
    Race,
    Sweep,
    Cancel,
    Worker(u32, Box<WorkerEvent>),
    SaveJson,
    AddToReports,
    ExportSvg(&'static str, &'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Running {
    Race,
    Sweep,
}

pub struct GroupByPage {
    rows: String,
    keys: String,
    skew: String,
    runs: String,
    /// The aggregates as a comma list and the value type, as `?agg=` and `?value=` gave them
    /// or the form set them: parsed (and refused with a message) with the rest of the form.
    aggregates: String,
    value_type: String,
    kernels: BTreeSet<Kernel>,
    partitions: u32,
    form_error: Option<String>,
    worker: Option<(WorkerHandle, Running)>,
    run_id: u32,
    phase: String,
    /// Seconds of every finished run, per kernel, as they come in.
    timed: Vec<(String, Vec<f64>)>,
    race_rows: u64,
    result: Option<GroupBy>,
    sweep_points: Vec<SweepPoint>,
    sweep: Option<Sweep>,
    timer: Option<(f64, bool)>,
    error: Option<String>,
    notice: Option<String>,
}

fn parse_count(text: &str, what: &str) -> Result<u64, String> {
    memwall_core::size::parse_count(text).map_err(|e| format!("{what}: {e}"))
}

impl Component for GroupByPage {
    type Message = Msg;
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        let preset = datagen::preset(PRESET).expect("a built-in preset");
        let mut page = Self {
            rows: util::query("rows").unwrap_or_else(|| preset.rows.to_string()),
            keys: util::query("keys").unwrap_or_else(|| preset.keys.to_string()),
            skew: util::query("skew").unwrap_or_else(|| preset.skew.name()),
            runs: util::query("runs").unwrap_or_else(|| "3".into()),
            aggregates: util::query("agg").unwrap_or_else(|| "count".into()),
            value_type: util::query("value").unwrap_or_else(|| ValueType::I64.name().into()),
            // `?kernels=tuned,naive` (embeds, measurements) or the default three.
            kernels: util::query("kernels")
                .map(|list| list.split(',').filter_map(Kernel::parse).collect::<BTreeSet<_>>())
                .filter(|k| !k.is_empty())
                .unwrap_or_else(|| DEFAULT_KERNELS.into_iter().collect()),
            partitions: groupby::DEFAULT_PARTITIONS,
            form_error: None,
            worker: None,
            run_id: 0,
            phase: String::new(),
            timed: Vec::new(),
            race_rows: 0,
            result: None,
            sweep_points: Vec::new(),
            sweep: None,
            timer: None,
            error: None,
            notice: None,
        };
        page.form_error = page.data().err();
        page
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::SetRows(v) => self.rows = v,
            Msg::SetKeys(v) => self.keys = v,
            Msg::SetSkew(v) => self.skew = v,
            Msg::SetRuns(v) => self.runs = v,
            Msg::SetAggregates(v) => self.aggregates = v,
            Msg::SetValueType(v) => self.value_type = v,
            Msg::ToggleKernel(k) => {
                if !self.kernels.remove(&k) {
                    self.kernels.insert(k);
                }
            }
            Msg::SetPartitions(p) => self.partitions = p,
            Msg::Race => {
                let task = Task::Race {
                    kernels: self.kernels.iter().map(|k| k.name().to_string()).collect(),
                    partitions: self.partitions,
                    runs: self.runs.parse().unwrap_or(3).clamp(1, 50),
                };
                if self.start(ctx, task, Running::Race) {
                    self.timed = self.kernels.iter().map(|k| (k.name().to_string(), Vec::new())).collect();
                    self.result = None;
                }
            }
            Msg::Sweep => {
                // Every other power of two over the kernels' whole range: the U shows at a glance.
                let partitions: Vec<u32> = doublings(16, u64::from(groupby::MAX_PARTITIONS))
                    .into_iter()
                    .step_by(2)
                    .map(|p| p as u32)
                    .collect();
                let task = Task::SweepPartitions { kernels: vec!["radix".into(), "tuned".into()], partitions, runs: 3 };
                if self.start(ctx, task, Running::Sweep) {
                    self.sweep_points.clear();
                    self.sweep = None;
                }
            }
            Msg::Cancel => {
                self.worker = None;
                self.phase = "Cancelled.".into();
            }
            Msg::Worker(run_id, event) => {
                if run_id != self.run_id || self.worker.is_none() {
                    return false;
                }
                match *event {
                    WorkerEvent::GroupBy(event) => self.on_event(event),
                    WorkerEvent::Failed { message } => {
                        self.error = Some(message);
                        self.worker = None;
                    }
                    _ => return false,
                }
            }
            Msg::SaveJson => {
                if let Some(report) = self.report() {
                    self.notice = util::export_notice(util::download_text(
                        "memwall-browser-groupby.json",
                        "application/json",
                        &report.to_json_pretty(),
                    ));
                }
            }
            Msg::AddToReports => {
                if let Some(report) = self.report() {
                    ctx.props().on_add.emit((report, "measured in this browser".into()));
                    self.notice = Some("Added to Reports: compare it there with a native run.".into());
                }
            }
            Msg::ExportSvg(id, file) => {
                let result = util::download_svg(id, file);
                self.notice = util::export_notice(result);
            }
        }
        if self.worker.is_none() {
            self.form_error = self.data().err();
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let link = ctx.link();
        let running = self.worker.as_ref().map(|(_, r)| *r);
        let race_button = match running {
            Some(_) => {
                html! { <button type="button" class="danger" onclick={link.callback(|_| Msg::Cancel)}>{ "Cancel" }</button> }
            }
            None => {
                html! { <button type="button" class="primary" onclick={link.callback(|_| Msg::Race)} disabled={self.form_error.is_some() || self.kernels.is_empty()}>{ "Run the race" }</button> }
            }
        };
        let phase =
            (!self.phase.is_empty()).then(|| html! { <p class="muted" aria-live="polite">{ self.phase.clone() }</p> });
        let error = self.error.as_ref().map(|e| html! { <div class="alert" role="alert">{ e.clone() }</div> });
        let form_error =
            self.form_error.as_ref().map(|e| html! { <p class="field-error" role="alert">{ e.clone() }</p> });

        if props.compact {
            return html! {
                <div class="card">
                    <div class="row">{ race_button }<span class="muted">{ format!("{} rows, {} distinct keys", self.rows, self.keys) }</span></div>
                    <p class="muted small">{ format!("aggregates: {} ({})", self.aggregates, self.value_type) }</p>
                    { for form_error }{ for phase }{ for error }
                    { self.race_chart(props, "groupby-race-embed") }
                    if let Some(line) = self.result.as_ref().and_then(summary::totals_line) { <p class="totals-line">{ line }</p> }
                </div>
            };
        }
        let on_text = |f: fn(String) -> Msg| {
            link.callback(move |e: InputEvent| {
                f(chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default())
            })
        };
        let skews = [
            ("uniform".to_string(), "uniform".to_string()),
            (
                Skew::Zipf(datagen::CLICKBENCH_ZIPF).name(),
                format!("ClickBench-like (Zipf {})", datagen::CLICKBENCH_ZIPF),
            ),
        ];
        let (keys_n, rows_n, seed) =
            self.data().map(|d| (d.keys, d.rows, d.seed)).unwrap_or((0, 0, datagen::DEFAULT_SEED));
        // The picture follows the chosen state even while another field is being fixed.
        let (row_bytes, state_bytes) = agg_choice::parse(&self.aggregates, &self.value_type)
            .map(|(a, v)| (a.row_bytes(), a.state_bytes(v)))
            .unwrap_or_else(|_| (Aggregates::COUNT.row_bytes(), Aggregates::COUNT.state_bytes(ValueType::I64)));
        let caches = props
            .reports
            .iter()
            .find(|r| !r.report.host.caches.is_empty())
            .map(|r| (r.label.clone(), Rc::new(r.report.host.caches.clone())));
        html! {
            <>
                <div class="intro">
                    <h1>{ "SELECT key, count(*) … GROUP BY key" }</h1>
                    <p>{ "With millions of distinct keys, one big hash table is far larger than any cache, and nearly every row waits for DRAM. Radix partitioning hashes each key once, scatters it into thousands of small partitions, and aggregates each in a table that fits in cache: more work, less waiting. The same kernels the native memwall runs, compiled to WebAssembly, race here on one core." }</p>
                </div>
                <div class="card">
                    <form class="controls" onsubmit={link.callback(|e: SubmitEvent| { e.prevent_default(); Msg::Race })}>
                        <label>{ "Rows" }<input type="text" inputmode="numeric" value={self.rows.clone()} oninput={on_text(Msg::SetRows)} disabled={running.is_some()} /></label>
                        <label>{ "Distinct keys" }<input type="text" inputmode="numeric" value={self.keys.clone()} oninput={on_text(Msg::SetKeys)} disabled={running.is_some()} /></label>
                        <label>{ "Skew" }
                            <select disabled={running.is_some()} onchange={link.callback(|e: Event| Msg::SetSkew(chart::target::<web_sys::HtmlSelectElement>(&e).map(|s| s.value()).unwrap_or_default()))}>
                                { for skews.iter().map(|(v, l)| html! { <option value={v.clone()} selected={*v == self.skew}>{ l.clone() }</option> }) }
                            </select>
                        </label>
                        <label>{ "Runs per kernel" }<input type="number" min="1" max="50" value={self.runs.clone()} oninput={on_text(Msg::SetRuns)} disabled={running.is_some()} /></label>
                        <div class="actions">{ race_button.clone() }</div>
                    </form>
                    <fieldset class="checks kernels">
                        <legend>{ "Kernels" }</legend>
                        { for Kernel::ALL.iter().map(|&k| html! {
                            <label class="check" title={k.description()}>
                                <input type="checkbox" checked={self.kernels.contains(&k)} disabled={running.is_some()} onchange={link.callback(move |_| Msg::ToggleKernel(k))} />
                                <strong>{ k.name() }</strong><span class="muted small">{ format!(" — {}", k.description()) }</span>
                            </label>
                        }) }
                        <p class="muted small">{ format!("Here {}.", summary::WASM_CAVEAT) }</p>
                    </fieldset>
                    <AggregateChoice aggregates={self.aggregates.clone()} value_type={self.value_type.clone()} disabled={running.is_some()}
                        on_aggregates={link.callback(Msg::SetAggregates)} on_value_type={link.callback(Msg::SetValueType)} />
                    { for form_error }{ for phase }
                </div>
                { for error }
                <div class="card">
                    { self.race_chart(props, "groupby-race") }
                    { self.race_table() }
                    { for self.result.as_ref().map(agg_choice::totals_table) }
                    if self.result.is_some() {
                        <div class="row wrap-row">
                            <button type="button" onclick={link.callback(|_| Msg::ExportSvg("groupby-race", "memwall-groupby-race.svg"))}>{ "Export SVG" }</button>
                            <button type="button" onclick={link.callback(|_| Msg::SaveJson)}>{ "Save as report (JSON)" }</button>
                            <button type="button" class="primary" onclick={link.callback(|_| Msg::AddToReports)}>{ "Compare in Reports" }</button>
                        </div>
                    }
                    if let Some(n) = &self.notice { <p class="notice" role="status">{ n.clone() }</p> }
                </div>
                <div class="card">
                    <h2>{ "Why partitioning wins, and how many partitions" }</h2>
                    <p>{ "Each distinct key falls in the partition named by the top bits of its hash. Few partitions: each partition's table is still too big for the cache. Many partitions: the scatter writes to too many places at once. Slide to see both sides." }</p>
                    if keys_n > 0 {
                        <RadixViz keys={keys_n} {seed} partitions={self.partitions} rows={rows_n} {row_bytes} {state_bytes}
                            on_partitions={link.callback(Msg::SetPartitions)} palette={props.palette} {caches} />
                    }
                </div>
                <div class="card">
                    <h2>{ "The trade-off, measured" }</h2>
                    <p>{ "Times radix and tuned in this browser at partition counts from 16 to 65,536 over the data above (3 runs each, the fastest kept)." }</p>
                    <div class="row">
                        if running == Some(Running::Sweep) {
                            <button type="button" class="danger" onclick={link.callback(|_| Msg::Cancel)}>{ "Cancel" }</button>
                        } else {
                            <button type="button" onclick={link.callback(|_| Msg::Sweep)} disabled={running.is_some() || self.form_error.is_some()}>{ "Sweep partitions" }</button>
                        }
                    </div>
                    if !self.sweep_points.is_empty() || running == Some(Running::Sweep) { { self.sweep_chart(props) } }
                </div>
                <EmbedPanel kind="groupby" params={vec![
                        ("rows".to_string(), self.rows.clone()),
                        ("keys".to_string(), self.keys.clone()),
                        ("kernels".to_string(), self.kernels.iter().map(|k| k.name()).collect::<Vec<_>>().join(",")),
                        ("agg".to_string(), self.aggregates.clone()),
                        ("value".to_string(), self.value_type.clone()),
                    ]}
                    report={self.report().map(Rc::new)} />
            </>
        }
    }
}

impl GroupByPage {
    fn data(&self) -> Result<DataJob, String> {
        let rows = parse_count(&self.rows, "rows")?;
        let keys = parse_count(&self.keys, "distinct keys")?;
        let preset = datagen::preset(PRESET).expect("a built-in preset");
        let skew = Skew::parse(&self.skew)?;
        let data = DataJob {
            rows,
            keys,
            skew: skew.name(),
            seed: preset.seed,
            preset: (rows == preset.rows && keys == preset.keys && skew == preset.skew).then(|| PRESET.to_string()),
            aggregates: self.aggregates.clone(),
            value_type: self.value_type.clone(),
        };
        let (aggregates, _) = data.query()?;
        data.spec()?;
        if rows == 0 {
            return Err("there must be at least one row".into());
        }
        let kernels: Vec<Kernel> = self.kernels.iter().copied().collect();
        let config = GroupByConfig { partitions: self.partitions, aggregates, ..GroupByConfig::default() };
        let needed = groupby_job::bytes_needed(&data, &kernels, &config);
        util::fits_in_browser(needed)?;
        Ok(data)
    }

    fn start(&mut self, ctx: &Context<Self>, task: Task, running: Running) -> bool {
        let data = match self.data() {
            Ok(d) => d,
            Err(e) => {
                self.form_error = Some(e);
                return false;
            }
        };
        self.run_id += 1;
        let run_id = self.run_id;
        self.race_rows = data.rows;
        self.error = None;
        self.notice = None;
        self.phase = "Starting…".into();
        let on_event = ctx.link().callback(move |e| Msg::Worker(run_id, Box::new(e)));
        match worker::spawn(&Job::GroupBy(GroupByJob { data, task }), on_event) {
            Ok(handle) => {
                self.worker = Some((handle, running));
                true
            }
            Err(e) => {
                self.error = Some(format!("could not start the measuring worker: {e}"));
                false
            }
        }
    }

    fn on_event(&mut self, event: GroupByEvent) {
        match event {
            GroupByEvent::Generating => self.phase = format!("Generating {} keys…", group_digits(self.race_rows)),
            GroupByEvent::Generated { seconds, timer_resolution_ns, cross_origin_isolated } => {
                self.timer = Some((timer_resolution_ns, cross_origin_isolated));
                self.phase = format!("Generated the keys in {:.1} s.", seconds);
            }
            GroupByEvent::Preparing { what } => self.phase = format!("Untimed: {what}…"),
            GroupByEvent::Running { kernel, run, runs, x } => {
                self.phase = match x {
                    Some(p) => format!("Timing {kernel} with {p} partitions, run {} of {runs}…", run + 1),
                    None => format!("Timing {kernel}, run {} of {runs}…", run + 1),
                }
            }
            GroupByEvent::Timed { kernel, seconds, .. } => {
                if let Some((_, samples)) = self.timed.iter_mut().find(|(k, _)| *k == kernel) {
                    samples.push(seconds);
                }
            }
            GroupByEvent::RaceDone { groupby } => {
                self.phase = format!(
                    "Done: {} rows, {} distinct keys.",
                    group_digits(groupby.dataset.rows),
                    group_digits(groupby.dataset.distinct_keys)
                );
                self.result = Some(groupby);
                self.worker = None;
            }
            GroupByEvent::SweepPoint { point } => self.sweep_points.push(point),
            GroupByEvent::SweepDone { sweep } => {
                self.phase = "Sweep done.".into();
                self.sweep_points = sweep.points.clone();
                self.sweep = Some(sweep);
                self.worker = None;
            }
            GroupByEvent::Failed { message } => {
                self.error = Some(message);
                self.worker = None;
            }
        }
    }

    fn report(&self) -> Option<Report> {
        let mut groupby = self.result.clone()?;
        groupby.sweeps.extend(self.sweep.clone());
        let (resolution, isolated) = self.timer.unwrap_or((f64::NAN, false));
        let host = browser_host(Some(util::browser_name()), Some(resolution).filter(|r| r.is_finite()), Some(isolated));
        let mut report = Report::new(Source::Browser, util::unix_now(), host);
        report.groupby = Some(groupby);
        Some(report)
    }

    /// Bars that fill in as runs finish: the median so far of each kernel.
    fn race_chart(&self, props: &Props, id: &'static str) -> Html {
        let rows = self.race_rows.max(1) as f64;
        let median = |samples: &[f64]| memwall_report::Summary::of(samples).map(|s| s.median);
        let naive = self.timed.iter().find(|(k, _)| k == "naive").and_then(|(_, s)| median(s));
        let running = self.worker.is_some();
        let bars: Vec<Bar> = self
            .timed
            .iter()
            .enumerate()
            .map(|(i, (kernel, samples))| match median(samples) {
                Some(seconds) => {
                    let speedup = match naive {
                        Some(n) if kernel != "naive" => format!(" · {:.1}× naive", n / seconds),
                        _ => String::new(),
                    };
                    Bar {
                        label: kernel.clone(),
                        value: Some(seconds * 1e9 / rows),
                        text: format!(
                            "{} ms · {} ns/row{speedup}",
                            format_number(seconds * 1e3),
                            format_number(seconds * 1e9 / rows)
                        ),
                        color: i,
                    }
                }
                None => Bar {
                    label: kernel.clone(),
                    value: None,
                    text: if running { "waiting…".into() } else { "not run".into() },
                    color: i,
                },
            })
            .collect();
        if bars.is_empty() {
            return html! { <p class="muted empty">{ "Press Run the race: each kernel's bar appears when its first run is timed, and settles on the median." }</p> };
        }
        html! {
            <BarChart id={id} title={format!("{} rows, {} distinct keys: ns per row, shorter is faster", group_digits(self.race_rows), self.keys)}
                value_label="ns per row (median run so far)" bars={Rc::new(bars)} palette={props.palette} />
        }
    }

    fn race_table(&self) -> Html {
        let Some(result) = &self.result else { return html! {} };
        html! {
            <div class="table-wrap">
                <table class="data" id="groupby-table">
                    <caption class="visually-hidden">{ "GROUP BY race in this browser" }</caption>
                    <thead><tr>
                        <th scope="col">{ "kernel" }</th><th scope="col">{ "partitions" }</th><th scope="col">{ "first ms" }</th><th scope="col">{ "min ms" }</th><th scope="col">{ "median ms" }</th>
                        <th scope="col">{ "max ms" }</th><th scope="col">{ "ns/row" }</th><th scope="col">{ "vs naive" }</th><th scope="col">{ "groups" }</th><th scope="col">{ "checksum" }</th>
                    </tr></thead>
                    <tbody>
                        { for result.runs.iter().map(|r| html! {
                            <tr>
                                <th scope="row">{ r.kernel.clone() }</th>
                                <td>{ r.partitions.map_or("–".into(), |p| p.to_string()) }</td>
                                <td>{ r.first_run_seconds.map_or("–".into(), |s| format_number(s * 1e3)) }</td>
                                <td>{ format_number(r.seconds.min * 1e3) }</td><td>{ format_number(r.seconds.median * 1e3) }</td><td>{ format_number(r.seconds.max * 1e3) }</td>
                                <td>{ format!("{:.2}", r.ns_per_row) }</td>
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
            </div>
        }
    }

    fn sweep_chart(&self, props: &Props) -> Html {
        let kernels: BTreeSet<&str> = self.sweep_points.iter().map(|p| p.kernel.as_str()).collect();
        let series: Vec<Series> = kernels
            .iter()
            .enumerate()
            .map(|(i, k)| Series {
                label: (*k).to_string(),
                color: i + 1,
                dashed: false,
                points: self
                    .sweep_points
                    .iter()
                    .filter(|p| p.kernel == *k)
                    .map(|p| Point { x: p.x as f64, y: p.ns_per_row, lo: None, hi: None })
                    .collect(),
            })
            .collect();
        let markers = vec![Marker { x: f64::from(self.partitions), label: format!("slider: {}", self.partitions) }];
        html! {
            <>
                <LineChart id="groupby-sweep" title="ns per row against partition count (this browser)" x_label="partitions" y_label="ns per row" y_unit="ns/row"
                    x_format={XFormat::Count} series={Rc::new(series)} markers={Rc::new(markers)} x_range={Some((16.0, f64::from(groupby::MAX_PARTITIONS)))}
                    palette={props.palette} log_y={false} height={340.0} />
                <div class="table-wrap">
                    <table class="data">
                        <thead><tr><th scope="col">{ "partitions" }</th>{ for kernels.iter().map(|k| html! { <th scope="col">{ format!("{k} ns/row") }</th> }) }</tr></thead>
                        <tbody>
                            { for self.sweep_points.iter().map(|p| p.x).collect::<BTreeSet<_>>().into_iter().map(|x| html! {
                                <tr>
                                    <th scope="row">{ x }</th>
                                    { for kernels.iter().map(|k| html! { <td>{ self.sweep_points.iter().find(|p| p.x == x && p.kernel == *k).map_or("–".into(), |p| format!("{:.2}", p.ns_per_row)) }</td> }) }
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            </>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_accept_separators_and_refuse_the_rest() {
        assert_eq!(parse_count("10,000,000", "rows"), Ok(10_000_000));
        assert_eq!(parse_count("1_700_000", "keys"), Ok(1_700_000));
        assert_eq!(parse_count("1.7M", "keys"), Ok(1_700_000), "the CLI's grammar");
        assert!(parse_count("ten", "rows").unwrap_err().starts_with("rows: invalid count 'ten'"));
    }
}
