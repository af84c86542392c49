//! What the GROUP BY and join pages share, written once: a race's state as the page follows it
//! (phase, each kernel's timed runs, the timer, errors), the hook that starts and cancels it in
//! a worker, the page's setup (its form, race and sizing), the bars that fill in run by run, the
//! kernel checkboxes, the result's buttons, and the result as a browser report.

use std::collections::BTreeSet;
use std::rc::Rc;

use memwall_report::{Report, Source, Summary};
use yew::prelude::*;

use super::protocol::{Progress, RaceJob, RaceMessage, Races};
use super::sizing::{self, Sizing};
use crate::chart::Bar;
use crate::reports::browser_host;
use crate::use_worker::{WorkerControl, use_worker};
use crate::util::{self, group_digits};
use crate::views::state::{ReportsAction, ViewsContext, use_views};
use crate::worker::Message;

/// A page's own results, folded from the messages only it gets.
pub trait Outcome: Clone + PartialEq + Default + 'static {
    /// Takes a result message; the phase line may say what it means.
    fn take(&mut self, message: RaceMessage, phase: &mut String);
}

/// A race in progress or done, as its page shows it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RaceState<O> {
    pub phase: String,
    /// Seconds of every finished run, per kernel, as they come in.
    pub timed: Vec<(String, Vec<f64>)>,
    /// What the race generates, for the phase lines ("Generating 10,000,000 keys…", "Generated
    /// both sides in 0.4 s."), and the rows a run's time is divided by.
    pub what: &'static str,
    pub made: &'static str,
    pub rows: u64,
    /// Timer resolution and isolation, as the worker found them.
    pub timer: Option<(f64, bool)>,
    pub error: Option<String>,
    pub notice: Option<String>,
    /// The caches the last race started was sized by, and where they came from.
    pub sized_by: Option<String>,
    pub outcome: O,
}

pub enum RaceAction<O> {
    /// `kernels`: those whose runs the bars show, or `None` to keep the bars as they are.
    Started {
        kernels: Option<Vec<String>>,
        rows: u64,
        what: (&'static str, &'static str),
        reset: fn(&mut O),
        sized_by: String,
    },
    /// Boxed: a finished race's report is far bigger than the other actions.
    Message(Box<Message<RaceMessage>>),
    NotStarted(String),
    Cancelled,
    Notice(Option<String>),
}

impl<O: Outcome> Reducible for RaceState<O> {
    type Action = RaceAction<O>;

    fn reduce(self: Rc<Self>, action: RaceAction<O>) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            RaceAction::Started { kernels, rows, what, reset, sized_by } => {
                next.sized_by = Some(sized_by);
                if let Some(kernels) = kernels {
                    next.timed = kernels.into_iter().map(|k| (k, Vec::new())).collect();
                }
                next.rows = rows;
                (next.what, next.made) = what;
                next.error = None;
                next.notice = None;
                next.phase = "Starting…".into();
                reset(&mut next.outcome);
            }
            RaceAction::NotStarted(why) => next.error = Some(why),
            RaceAction::Cancelled => next.phase = "Cancelled.".into(),
            RaceAction::Notice(text) => next.notice = text,
            RaceAction::Message(message) => match *message {
                Message::Failed(why) => next.error = Some(why),
                Message::Event(RaceMessage::Progress(progress)) => next.follow(progress),
                Message::Event(message) => next.outcome.take(message, &mut next.phase),
            },
        }
        Rc::new(next)
    }
}

impl<O> RaceState<O> {
    fn follow(&mut self, progress: Progress) {
        match progress {
            Progress::Generating => self.phase = format!("Generating {} {}…", group_digits(self.rows), self.what),
            Progress::Generated { seconds, timer_resolution_ns, cross_origin_isolated } => {
                self.timer = Some((timer_resolution_ns, cross_origin_isolated));
                self.phase = format!("Generated {} in {seconds:.1} s.", self.made);
            }
            Progress::Preparing { what } => self.phase = format!("Untimed: {what}…"),
            Progress::Running { kernel, run, runs, x } => {
                self.phase = match x {
                    Some(p) => format!("Timing {kernel} with {p} partitions, run {} of {runs}…", run + 1),
                    None => format!("Timing {kernel}, run {} of {runs}…", run + 1),
                }
            }
            Progress::Timed { kernel, seconds, .. } => {
                if let Some((_, samples)) = self.timed.iter_mut().find(|(k, _)| *k == kernel) {
                    samples.push(seconds);
                }
            }
        }
    }

    /// The result as a report of this browser (`source: "browser"`), its section set by `fill`.
    pub fn report(&self, fill: impl FnOnce(&mut Report)) -> Report {
        let (resolution, isolated) = self.timer.unwrap_or((f64::NAN, false));
        let host = browser_host(Some(util::browser_name()), Some(resolution).filter(|r| r.is_finite()), Some(isolated));
        let mut report = Report::new(Source::Browser, util::unix_now(), host);
        fill(&mut report);
        report
    }

    /// One bar per kernel, at the median of its runs so far; `text` says what a median means.
    pub fn bars(&self, running: bool, text: impl Fn(&str, f64) -> String) -> Vec<Bar> {
        let rows = self.rows.max(1) as f64;
        self.timed
            .iter()
            .enumerate()
            .map(|(i, (kernel, samples))| match Summary::of(samples) {
                Some(s) => Bar {
                    label: kernel.clone(),
                    value: Some(s.median * 1e9 / rows),
                    text: text(kernel, s.median),
                    color: i,
                },
                None => Bar {
                    label: kernel.clone(),
                    value: None,
                    text: if running { "waiting…".into() } else { "not run".into() },
                    color: i,
                },
            })
            .collect()
    }

    /// The median seconds of `kernel` so far.
    pub fn median(&self, kernel: &str) -> Option<f64> {
        self.timed.iter().find(|(k, _)| k == kernel).and_then(|(_, s)| Summary::of(s)).map(|s| s.median)
    }
}

/// A race page's state and worker, wired together.
pub struct Race<O: Outcome> {
    pub state: UseReducerHandle<RaceState<O>>,
    pub worker: WorkerControl<Races>,
}

impl<O: Outcome> Race<O> {
    /// Starts `job` timing `kernels` over `rows` rows; `what` names the rows and what is made of
    /// them ("keys", "the keys"); `reset` clears what the run replaces.
    pub fn start(
        &self,
        job: RaceJob,
        kernels: Option<Vec<String>>,
        rows: u64,
        what: (&'static str, &'static str),
        reset: fn(&mut O),
    ) {
        if self.worker.running() {
            return;
        }
        let sized_by = job.sizing().describe(sizing::clock_time);
        self.state.dispatch(RaceAction::Started { kernels, rows, what, reset, sized_by });
        if let Err(e) = self.worker.start(&job) {
            self.state.dispatch(RaceAction::NotStarted(e));
        }
    }

    pub fn cancel(&self) {
        self.worker.cancel();
        self.state.dispatch(RaceAction::Cancelled);
    }

    pub fn notice(&self, text: Option<String>) {
        self.state.dispatch(RaceAction::Notice(text));
    }
}

impl<O: Outcome> Clone for Race<O> {
    fn clone(&self) -> Self {
        Self { state: self.state.clone(), worker: self.worker.clone() }
    }
}

#[hook]
fn use_race<O: Outcome>() -> Race<O> {
    let state = use_reducer(RaceState::<O>::default);
    let worker = use_worker::<Races>(state.dispatcher().to_callback().reform(|m| RaceAction::Message(Box::new(m))));
    Race { state, worker }
}

/// What a race page is built from: the second module's context, the page's form (as the URL
/// set it), its race, and the caches the next race is sized by.
pub struct RacePage<F: 'static, O: Outcome> {
    pub views: ViewsContext,
    pub form: UseStateHandle<F>,
    pub race: Race<O>,
    pub sizing: Rc<Sizing>,
}

#[hook]
pub fn use_race_page<F: 'static, O: Outcome>(from_query: fn() -> F) -> RacePage<F, O> {
    let views = use_views();
    let form = use_state(from_query);
    let race = use_race::<O>();
    let sizing = Rc::new(Sizing::of(views.first_look.as_deref(), views.ladder_run.as_deref()));
    RacePage { views, form, race, sizing }
}

impl<F: 'static, O: Outcome> RacePage<F, O> {
    /// The run button (`label`; disabled on a form error or when `nothing` is chosen), and the
    /// lines under the form: why it cannot run, what the race is doing, what it is sized by
    /// (`sized_by_id`).
    pub fn controls(
        &self,
        label: &'static str,
        form_error: Option<String>,
        nothing: bool,
        sized_by_id: &'static str,
    ) -> (Html, Html) {
        let button = run_or_cancel(&self.race, label, form_error.is_some() || nothing);
        let status = html! {
            <>{ status_lines(&self.race, form_error) }{ sized_by_line(&self.race, &self.sizing, sized_by_id) }</>
        };
        (button, status)
    }

    /// Adds a report to the Reports tab.
    pub fn add_report(&self) -> Callback<Report> {
        self.views.reports.dispatcher().to_callback().reform(|r| ReportsAction::Add(Box::new(r)))
    }
}

impl<F: Clone + 'static, O: Outcome> RacePage<F, O> {
    /// The kernel checkboxes' toggle: a checked kernel's name (read by `parse`) leaves the form's
    /// chosen set (`chosen`), an unchecked one joins it.
    pub fn kernel_toggle<K: Ord + 'static>(
        &self,
        chosen: fn(&mut F) -> &mut BTreeSet<K>,
        parse: fn(&str) -> Option<K>,
    ) -> Callback<&'static str> {
        let form = self.form.clone();
        Callback::from(move |name: &'static str| {
            let mut next = (*form).clone();
            let kernels = chosen(&mut next);
            if let Some(k) = parse(name).filter(|k| !kernels.remove(k)) {
                kernels.insert(k);
            }
            form.set(next);
        })
    }
}

/// The race's button, the same on every race page: run (it submits the page's form) or cancel,
/// keyed so that one replaces the other instead of becoming it (see the ladder's form).
fn run_or_cancel<O: Outcome>(race: &Race<O>, label: &'static str, disabled: bool) -> Html {
    if race.worker.running() {
        let race = race.clone();
        html! { <button key="cancel" type="button" class="danger" onclick={Callback::from(move |_| race.cancel())}>{ "Cancel" }</button> }
    } else {
        html! { <button key="run" type="submit" class="primary" {disabled}>{ label }</button> }
    }
}

/// Under a race's form: why the form cannot run, then what the race is doing.
fn status_lines<O: Outcome>(race: &Race<O>, form_error: Option<String>) -> Html {
    let phase = &race.state.phase;
    html! {
        <>
            { for form_error.map(|e| html! { <p class="field-error" role="alert">{ e }</p> }) }
            if !phase.is_empty() { <p class="muted" aria-live="polite">{ phase.clone() }</p> }
        </>
    }
}

/// The caches the race was sized by and where they came from; before any race, those the next
/// one will be sized by (`planned`, from this page's ladders).
fn sized_by_line<O: Outcome>(race: &Race<O>, planned: &Sizing, id: &'static str) -> Html {
    let text = race.state.sized_by.clone().unwrap_or_else(|| planned.describe(sizing::clock_time));
    html! { <p class="muted small sized-by" {id}>{ text }</p> }
}

/// Why the race stopped, if it stopped on an error.
pub fn error_alert<O: Outcome>(race: &Race<O>) -> Option<Html> {
    race.state.error.as_ref().map(|e| html! { <div class="alert" role="alert">{ e.clone() }</div> })
}

/// The kernels to race: name, what it does, whether it is chosen.
pub fn kernel_checks(
    kernels: &[(&'static str, &'static str, bool)],
    disabled: bool,
    on_toggle: Callback<&'static str>,
    note: Option<String>,
) -> Html {
    html! {
        <fieldset class="checks kernels">
            <legend>{ "Kernels" }</legend>
            { for kernels.iter().map(|&(name, description, checked)| {
                let on_toggle = on_toggle.clone();
                html! {
                    <label class="check" title={description}>
                        <input type="checkbox" {checked} {disabled} onchange={Callback::from(move |_| on_toggle.emit(name))} />
                        <strong>{ name }</strong><span class="muted small">{ format!(" — {description}") }</span>
                    </label>
                }
            }) }
            if let Some(note) = note { <p class="muted small">{ note }</p> }
        </fieldset>
    }
}

/// Export the chart, save the result, add it to the reports; a notice says how it went.
pub fn result_buttons<O: Outcome>(
    race: &Race<O>,
    chart: (&'static str, &'static str),
    json: &'static str,
    add_label: &'static str,
    report: Option<Report>,
    add: Callback<Report>,
) -> Html {
    let export = {
        let race = race.clone();
        Callback::from(move |_| race.notice(util::export_notice(util::download_svg(chart.0, chart.1))))
    };
    let save = {
        let (race, report) = (race.clone(), report.clone());
        Callback::from(move |_| {
            if let Some(report) = &report {
                race.notice(util::export_notice(util::download_text(
                    json,
                    "application/json",
                    &report.to_json_pretty(),
                )));
            }
        })
    };
    let add_report = {
        let race = race.clone();
        Callback::from(move |_| {
            if let Some(report) = report.clone() {
                add.emit(report);
                race.notice(Some(format!(
                    "Added to Reports{}",
                    if add_label.starts_with("Compare") { ": compare it there with a native run." } else { "." }
                )));
            }
        })
    };
    html! {
        <div class="row wrap-row">
            <button type="button" onclick={export}>{ "Export SVG" }</button>
            <button type="button" onclick={save}>{ "Save as report (JSON)" }</button>
            <button type="button" class="primary" onclick={add_report}>{ add_label }</button>
        </div>
    }
}
