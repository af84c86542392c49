//! The GROUP BY race in this browser: `SELECT key, count(*) FROM t GROUP BY key` by the core's
//! kernels, compiled to wasm and run in a worker, plus the picture of why radix partitioning
//! wins and a measured sweep of its one knob, the partition count.

pub mod agg_choice;
mod form;
pub mod job;
mod radix_props;
mod radix_sizes;
pub mod radix_viz;
mod results;

use std::rc::Rc;

use memwall_core::datagen;
use memwall_core::groupby::sweep::doublings;
use memwall_core::groupby::{self, Aggregates, Kernel, ValueType, summary};
use memwall_report::{GroupBy, Sweep, SweepPoint};
use yew::prelude::*;

use self::agg_choice::AggregateChoice;
use self::form::Form;
use self::job::{GroupByJob, Task};
use self::radix_viz::RadixViz;
use super::protocol::{RaceJob, RaceMessage};
use super::race::{Outcome, Race, RacePage, error_alert, kernel_checks, result_buttons, use_race_page};
use super::sizing::{Sizing, measured_caches};
use crate::chart::{self, BarChart, format_number};
use crate::embed::EmbedPanel;
use crate::theme::Palette;
use crate::util::group_digits;
use crate::views::state::ViewsContext;

/// What a GROUP BY race and sweep leave.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Results {
    result: Option<GroupBy>,
    sweep_points: Vec<SweepPoint>,
    sweep: Option<Sweep>,
    /// The run in progress (or last) is the sweep.
    sweeping: bool,
}

impl Outcome for Results {
    fn take(&mut self, message: RaceMessage, phase: &mut String) {
        match message {
            RaceMessage::GroupByDone(groupby) => {
                *phase = format!(
                    "Done: {} rows, {} distinct keys.",
                    group_digits(groupby.dataset.rows),
                    group_digits(groupby.dataset.distinct_keys)
                );
                self.result = Some(groupby);
            }
            RaceMessage::SweepPoint(point) => self.sweep_points.push(point),
            RaceMessage::SweepDone(sweep) => {
                *phase = "Sweep done.".into();
                self.sweep_points = sweep.points.clone();
                self.sweep = Some(sweep);
            }
            _ => {}
        }
    }
}

fn reset_race(results: &mut Results) {
    results.result = None;
    results.sweeping = false;
}

fn reset_sweep(results: &mut Results) {
    results.sweep_points.clear();
    results.sweep = None;
    results.sweeping = true;
}

/// Starts the race or the sweep the form describes.
fn start(race: &Race<Results>, form: &Form, sizing: &Sizing, sweep: bool) {
    let Ok(data) = form.data(sizing) else { return };
    let rows = data.rows;
    let (task, kernels, reset): (_, _, fn(&mut Results)) = if sweep {
        // Every other power of two over the kernels' whole range: the U shows at a glance.
        let partitions =
            doublings(16, u64::from(groupby::MAX_PARTITIONS)).into_iter().step_by(2).map(|p| p as u32).collect();
        let kernels = vec!["radix".to_string(), "tuned".to_string()];
        let task = Task::SweepPartitions { kernels: kernels.clone(), partitions, runs: 3 };
        // The race's bars stay while the sweep runs.
        (task, None, reset_sweep)
    } else {
        let kernels: Vec<String> = form.kernels.iter().map(|k| k.name().to_string()).collect();
        let task = Task::Race { kernels: kernels.clone(), partitions: form.partitions, runs: form.runs() };
        (task, Some(kernels), reset_race)
    };
    let job = GroupByJob { data, task, sizing: sizing.clone() };
    race.start(RaceJob::GroupBy(job), kernels, rows, ("keys", "the keys"), reset);
}

/// Bars that fill in as runs finish: the median so far of each kernel.
fn race_chart(race: &Race<Results>, keys: &str, id: &'static str, palette: Palette) -> Html {
    let state = &race.state;
    let rows = state.rows.max(1) as f64;
    let naive = state.median("naive");
    let bars = state.bars(race.worker.running(), |kernel, seconds| {
        let speedup = match naive {
            Some(n) if kernel != "naive" => format!(" · {:.1}× naive", n / seconds),
            _ => String::new(),
        };
        format!("{} ms · {} ns/row{speedup}", format_number(seconds * 1e3), format_number(seconds * 1e9 / rows))
    });
    if bars.is_empty() {
        return html! { <p class="muted empty">{ "Press Run the race: each kernel's bar appears when its first run is timed, and settles on the median." }</p> };
    }
    html! {
        <BarChart {id} title={format!("{} rows, {keys} distinct keys: ns per row, shorter is faster", group_digits(state.rows))}
            value_label="ns per row (median run so far)" bars={Rc::new(bars)} {palette} />
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub compact: bool,
}

#[function_component(GroupByPage)]
pub fn groupby_page(props: &Props) -> Html {
    let page = use_race_page::<Form, Results>(Form::from_query);
    let RacePage { views: races, form, race, sizing } = &page;
    let running = race.worker.running();
    let state = race.state.clone();
    let form_error = form.data(sizing).err();
    let on_race = {
        let (race, form, sizing) = (race.clone(), (**form).clone(), sizing.clone());
        Callback::from(move |()| start(&race, &form, &sizing, false))
    };
    let on_cancel = {
        let race = race.clone();
        Callback::from(move |_| race.cancel())
    };
    let (race_button, status) = page.controls("Run the race", form_error, form.kernels.is_empty(), "groupby-sized-by");
    let error = error_alert(race);
    let result = state.outcome.result.as_ref();

    if props.compact {
        return html! {
            <div class="card">
                <form class="row" onsubmit={on_race.reform(|e: SubmitEvent| e.prevent_default())}>
                    { race_button }<span class="muted">{ format!("{} rows, {} distinct keys", form.rows, form.keys) }</span>
                </form>
                <p class="muted small">{ format!("aggregates: {} ({})", form.aggregates, form.value_type) }</p>
                { status }{ for error }
                { race_chart(race, &form.keys, "groupby-race-embed", races.palette) }
                if let Some(line) = result.and_then(summary::totals_line) { <p class="totals-line">{ line }</p> }
            </div>
        };
    }
    let report = result.map(|groupby| {
        state.report(|report| {
            let mut groupby = groupby.clone();
            groupby.sweeps.extend(state.outcome.sweep.clone());
            report.groupby = Some(groupby);
        })
    });
    html! {
        <>
            <div class="intro">
                <h1>{ "SELECT key, count(*) … GROUP BY key" }</h1>
                <p>{ "With millions of distinct keys, one big hash table is far larger than any cache, and nearly every row waits for DRAM. Radix partitioning hashes each key once, scatters it into thousands of small partitions, and aggregates each in a table that fits in cache: more work, less waiting. The same kernels the native memwall runs, compiled to WebAssembly, race here on one core." }</p>
            </div>
            { data_card(&page, running, race_button, on_race, status) }
            { for error }
            <div class="card">
                { race_chart(race, &form.keys, "groupby-race", races.palette) }
                { for result.map(results::race_table) }
                { for result.map(agg_choice::totals_table) }
                if result.is_some() {
                    { result_buttons(race, ("groupby-race", "memwall-groupby-race.svg"), "memwall-browser-groupby.json", "Compare in Reports", report.clone(), page.add_report()) }
                }
                if let Some(n) = &state.notice { <p class="notice" role="status">{ n.clone() }</p> }
            </div>
            { viz_card(form, sizing, races) }
            { sweep_card(race, form, sizing, on_cancel, races.palette) }
            <EmbedPanel kind="groupby" params={form.embed_params()} report={report.map(Rc::new)} />
        </>
    }
}

/// The data, the kernels and the aggregates to race, and the race's button.
fn data_card(
    page: &RacePage<Form, Results>,
    running: bool,
    race_button: Html,
    on_race: Callback<()>,
    status: Html,
) -> Html {
    let form = &page.form;
    let set = |change: fn(&mut Form, String)| {
        let form = form.clone();
        Callback::from(move |value: String| {
            let mut next = (*form).clone();
            change(&mut next, value);
            form.set(next);
        })
    };
    let on_text = |change: fn(&mut Form, String)| {
        set(change).reform(|e: InputEvent| {
            chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default()
        })
    };
    let on_skew = set(|f, v| f.skew = v)
        .reform(|e: Event| chart::target::<web_sys::HtmlSelectElement>(&e).map(|s| s.value()).unwrap_or_default());
    let on_kernel = page.kernel_toggle(|f| &mut f.kernels, Kernel::parse);
    let kernels: Vec<_> = Kernel::ALL.iter().map(|k| (k.name(), k.description(), form.kernels.contains(k))).collect();
    html! {
        <div class="card">
            <form class="controls" onsubmit={on_race.reform(|e: SubmitEvent| e.prevent_default())}>
                <label>{ "Rows" }<input type="text" inputmode="numeric" value={form.rows.clone()} oninput={on_text(|f, v| f.rows = v)} disabled={running} /></label>
                <label>{ "Distinct keys" }<input type="text" inputmode="numeric" value={form.keys.clone()} oninput={on_text(|f, v| f.keys = v)} disabled={running} /></label>
                <label>{ "Skew" }
                    <select disabled={running} onchange={on_skew}>
                        { for Form::skews().iter().map(|(v, l)| html! { <option value={v.clone()} selected={*v == form.skew}>{ l.clone() }</option> }) }
                    </select>
                </label>
                <label>{ "Runs per kernel" }<input type="number" min="1" max="50" value={form.runs.clone()} oninput={on_text(|f, v| f.runs = v)} disabled={running} /></label>
                <div class="actions">{ race_button }</div>
            </form>
            { kernel_checks(&kernels, running, on_kernel, Some(format!("Here {}.", summary::WASM_CAVEAT))) }
            <AggregateChoice aggregates={form.aggregates.clone()} value_type={form.value_type.clone()} disabled={running}
                on_aggregates={set(|f, v| f.aggregates = v)} on_value_type={set(|f, v| f.value_type = v)} />
            { status }
        </div>
    }
}

/// Why partitioning wins: the picture of the partitions for the data above.
fn viz_card(form: &UseStateHandle<Form>, sizing: &Rc<Sizing>, races: &ViewsContext) -> Html {
    let on_partitions = {
        let form = form.clone();
        Callback::from(move |partitions| form.set(Form { partitions, ..(*form).clone() }))
    };
    let (keys_n, rows_n, seed) =
        form.data(sizing).map(|d| (d.keys, d.rows, d.seed)).unwrap_or((0, 0, datagen::DEFAULT_SEED));
    // The picture follows the chosen state even while another field is being fixed.
    let (row_bytes, state_bytes) = agg_choice::parse(&form.aggregates, &form.value_type)
        .map(|(a, v)| (a.row_bytes(), a.state_bytes(v)))
        .unwrap_or_else(|_| (Aggregates::COUNT.row_bytes(), Aggregates::COUNT.state_bytes(ValueType::I64)));
    // The caches this page's ladder measured, else those of an open report's ladder: measured
    // sizes, never declared ones (a guest's declared L3 is often many times what it gets).
    let caches = sizing.origin.name().map(|whose| (whose.to_string(), measured_caches(&sizing.levels))).or_else(|| {
        races.reports.reports.iter().find_map(|r| {
            let levels = &r.report.ladder.as_ref()?.levels;
            let sizes = measured_caches(levels);
            sizes.iter().any(Option::is_some).then(|| (format!("the ladder of {}", r.label), sizes))
        })
    });
    html! {
        <div class="card">
            <h2>{ "Why partitioning wins, and how many partitions" }</h2>
            <p>{ "Each distinct key falls in the partition named by the top bits of its hash. Few partitions: each partition's table is still too big for the cache. Many partitions: the scatter writes to too many places at once. Slide to see both sides." }</p>
            if keys_n > 0 {
                <RadixViz keys={keys_n} {seed} partitions={form.partitions} rows={rows_n} {row_bytes} {state_bytes}
                    {on_partitions} palette={races.palette} {caches} />
            }
        </div>
    }
}

/// The partitions sweep: radix and tuned timed over the partition counts.
fn sweep_card(
    race: &Race<Results>,
    form: &UseStateHandle<Form>,
    sizing: &Rc<Sizing>,
    on_cancel: Callback<MouseEvent>,
    palette: Palette,
) -> Html {
    let running = race.worker.running();
    let sweeping = running && race.state.outcome.sweeping;
    let on_sweep = {
        let (race, form, sizing) = (race.clone(), (**form).clone(), sizing.clone());
        Callback::from(move |_| start(&race, &form, &sizing, true))
    };
    html! {
        <div class="card">
            <h2>{ "The trade-off, measured" }</h2>
            <p>{ "Times radix and tuned in this browser at partition counts from 16 to 65,536 over the data above (3 runs each, the fastest kept)." }</p>
            <div class="row">
                if sweeping {
                    <button type="button" class="danger" onclick={on_cancel}>{ "Cancel" }</button>
                } else {
                    <button type="button" onclick={on_sweep} disabled={running || form.data(sizing).is_err()}>{ "Sweep partitions" }</button>
                }
            </div>
            if !race.state.outcome.sweep_points.is_empty() || sweeping {
                { results::sweep_chart(&race.state.outcome.sweep_points, form.partitions, palette) }
            }
        </div>
    }
}
