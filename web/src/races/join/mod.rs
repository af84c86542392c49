//! The hash-join probe race in this browser: a build side of distinct keys with 8-byte payloads
//! against a probe side of rows, joined by the core's kernels compiled to wasm, in a worker.

mod compare;
mod form;
pub mod job;
mod table;

use std::collections::BTreeSet;
use std::rc::Rc;

use memwall_core::join::Kernel;
use memwall_report::Join;
use yew::prelude::*;

use self::compare::compare_view;
use super::partition_view::PartitionView;
use super::protocol::{RaceJob, RaceMessage};
use super::race::{Outcome, Race, RacePage, error_alert, kernel_checks, result_buttons, use_race_page};
use super::sizing::Sizing;
use crate::chart::{self, BarChart, format_number};
use crate::embed::EmbedPanel;
use crate::theme::Palette;
use crate::util::{self, group_digits};

/// The partition count, and build keys and probe rows per partition.
type Split = (u32, Rc<Vec<u32>>, Rc<Vec<u32>>);

/// What a join race leaves.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Results {
    result: Option<Join>,
    /// Build keys and probe rows per partition, as the worker counted them.
    partitions: Option<Split>,
}

impl Outcome for Results {
    fn take(&mut self, message: RaceMessage, phase: &mut String) {
        match message {
            RaceMessage::JoinPartitions { partitions, build, probe } => {
                self.partitions = Some((partitions, Rc::new(build), Rc::new(probe)));
            }
            RaceMessage::JoinDone(join) => {
                *phase = format!(
                    "Done: {} build keys, {} probe rows.",
                    group_digits(join.dataset.build_keys),
                    group_digits(join.dataset.probe_rows)
                );
                self.result = Some(join);
            }
            _ => {}
        }
    }
}

/// The form, as typed.
#[derive(Debug, Clone, PartialEq)]
struct Form {
    build: String,
    probe: String,
    miss: String,
    kernels: BTreeSet<Kernel>,
}

impl Form {
    /// The CLI's `small` preset (large enough that the build side outgrows the caches), or what
    /// the URL names, as embeds carry them.
    fn from_query() -> Self {
        Self {
            build: util::query("build").unwrap_or_else(|| "1,700,000".into()),
            probe: util::query("probe").unwrap_or_else(|| "10,000,000".into()),
            miss: util::query("miss").unwrap_or_else(|| "0.1".into()),
            kernels: util::query("kernels")
                .map(|list| list.split(',').filter_map(Kernel::parse).collect::<BTreeSet<_>>())
                .filter(|k| !k.is_empty())
                .unwrap_or_else(|| Kernel::ALL.into_iter().collect()),
        }
    }

    fn job(&self, sizing: &Sizing) -> Result<job::JoinJob, String> {
        form::job(&self.build, &self.probe, &self.miss, &self.kernels, sizing)
    }
}

fn start(race: &Race<Results>, form: &Form, sizing: &Sizing) {
    let Ok(job) = form.job(sizing) else { return };
    let (kernels, rows) = (job.kernels.clone(), job.probe_rows);
    race.start(RaceJob::Join(job), Some(kernels), rows, ("probe rows", "both sides"), |r| *r = Results::default());
}

/// Bars that fill in as runs finish: the median so far of each kernel, per probe row.
fn race_chart(race: &Race<Results>, palette: Palette, id: &'static str) -> Html {
    let state = &race.state;
    if state.timed.is_empty() {
        return html! { <p class="muted empty">{ "Press Run the join: each kernel's bar appears when its first run is timed." }</p> };
    }
    let rows = state.rows.max(1) as f64;
    let bars =
        state.bars(race.worker.running(), |_, seconds| format!("{} ns/probe row", format_number(seconds * 1e9 / rows)));
    html! {
        <BarChart {id} title={format!("{} probe rows: ns per probe row, shorter is faster", group_digits(state.rows))}
            value_label="ns per probe row (median run so far)" bars={Rc::new(bars)} {palette} />
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    /// One compact widget (`?embed=join`): the form's sizes from the URL, the run button, the bars.
    pub compact: bool,
}

#[function_component(JoinPage)]
pub fn join_page(props: &Props) -> Html {
    let page = use_race_page::<Form, Results>(Form::from_query);
    let RacePage { views: races, form, race, sizing } = &page;
    let state = race.state.clone();
    let running = race.worker.running();
    let (button, status) = page.controls("Run the join", form.job(sizing).err(), false, "join-sized-by");
    let on_run = {
        let (race, form, sizing) = (race.clone(), (**form).clone(), sizing.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            start(&race, &form, &sizing);
        })
    };
    let error = error_alert(race);
    let palette = races.palette;
    if props.compact {
        return html! {
            <div class="card">
                <form class="row" onsubmit={on_run}>
                    { button }
                    <span class="muted">{ format!("{} build keys, {} probe rows, miss rate {}", form.build, form.probe, form.miss) }</span>
                </form>
                { status.clone() }{ for error.clone() }
                { race_chart(race, palette, "join-race-embed") }
            </div>
        };
    }
    let result = state.outcome.result.as_ref();
    let report = result.map(|join| state.report(|report| report.join = Some(join.clone())));
    let embed_params = embed_params(form);
    html! {
        <>
            <div class="intro">
                <h1>{ "SELECT … FROM probe JOIN build USING (key)" }</h1>
                <p>{ "A hash join builds a table over the smaller side and looks up every row of the larger one. Once that table outgrows the caches, every probe waits for DRAM; partitioning both sides by hash keeps each table in cache. The same kernels the native memwall runs, compiled to WebAssembly, race here on one core." }</p>
            </div>
            { form_card(&page, running, button, on_run, status) }
            { for error }
            <div class="card">
                { race_chart(race, palette, "join-race") }
                { for result.map(table::table) }
                if let Some(join) = result {
                    { result_buttons(race, ("join-race", "memwall-join-race.svg"), "memwall-browser-join.json", "Add to Reports", report.clone(), page.add_report()) }
                    { compare_view(join, &races.reports.reports) }
                }
                if let Some(n) = &state.notice { <p class="notice" role="status">{ n.clone() }</p> }
            </div>
            { for state.outcome.partitions.as_ref().map(|p| partitions_card(p, palette)) }
            <EmbedPanel kind="join" params={embed_params} report={report.map(Rc::new)} />
        </>
    }
}

/// The sides, the kernels and the run button.
fn form_card(
    page: &RacePage<Form, Results>,
    running: bool,
    button: Html,
    on_run: Callback<SubmitEvent>,
    status: Html,
) -> Html {
    let form = &page.form;
    let on_text = |change: fn(&mut Form, String)| {
        let form = form.clone();
        Callback::from(move |e: InputEvent| {
            let mut next = (*form).clone();
            change(&mut next, chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default());
            form.set(next);
        })
    };
    let on_kernel = page.kernel_toggle(|f| &mut f.kernels, Kernel::parse);
    let kernels: Vec<_> = Kernel::ALL.iter().map(|k| (k.name(), k.description(), form.kernels.contains(k))).collect();
    html! {
        <div class="card">
            <form class="controls" onsubmit={on_run}>
                <label>{ "Build keys" }<input type="text" inputmode="numeric" value={form.build.clone()} oninput={on_text(|f, v| f.build = v)} disabled={running} /></label>
                <label>{ "Probe rows" }<input type="text" inputmode="numeric" value={form.probe.clone()} oninput={on_text(|f, v| f.probe = v)} disabled={running} /></label>
                <label>{ "Miss rate" }<input type="text" inputmode="decimal" value={form.miss.clone()} oninput={on_text(|f, v| f.miss = v)} disabled={running} /></label>
                <div class="actions">{ button }</div>
            </form>
            { kernel_checks(&kernels, running, on_kernel, None) }
            { status }
        </div>
    }
}

/// Both sides' rows per partition, as the partitioning kernels split them.
fn partitions_card((partitions, build, probe): &Split, palette: Palette) -> Html {
    html! {
        <div class="card" id="join-partitions">
            <h2>{ format!("Both sides in {partitions} partitions") }</h2>
            <p>{ "The partitioning kernels split the build keys and the probe rows by the same top bits of the key's hash, so each partition's probes meet only that partition's table, which fits the cache. Counted here from the generated rows by the core's partition function, at the partition count the kernels pick in this browser." }</p>
            <PartitionView title="Build side" unit="build keys" counts={build.clone()} {palette} />
            <PartitionView title="Probe side" unit="probe rows" counts={probe.clone()} {palette} />
        </div>
    }
}

/// The embed's URL parameters: the form's sizes and kernels.
fn embed_params(form: &Form) -> Vec<(String, String)> {
    vec![
        ("build".to_string(), form.build.clone()),
        ("probe".to_string(), form.probe.clone()),
        ("miss".to_string(), form.miss.clone()),
        ("kernels".to_string(), form.kernels.iter().map(|k| k.name()).collect::<Vec<_>>().join(",")),
    ]
}
