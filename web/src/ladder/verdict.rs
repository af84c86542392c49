//! What a ladder says, in words: the first look's card (a short ladder measured on opening, and
//! its verdict), and the levels, verdict and advice the core read from any ladder.

use memwall_core::describe;
use memwall_core::size::format_bytes;
use memwall_report::{Cause, Ladder, Level};
use yew::prelude::*;

use super::form::progress;
use super::run::{FirstLook, Run};
use crate::chart;

/// The first look's sizes: from L1 to well past any last-level cache a guest gets a share of.
pub const FIRST_LOOK_MIN: u64 = 16 << 10;
pub const FIRST_LOOK_MAX: u64 = 128 << 20;

/// One level, said plainly.
fn level_words(level: &Level, l1_ns: Option<f64>) -> String {
    let ns = chart::format_number(level.ns_per_load);
    match level.cause {
        Cause::Dram => format!(
            "{}: from {}, {ns} ns a load{}",
            level.name,
            format_bytes(level.size_bytes),
            l1_ns.map_or(String::new(), |l1| format!(", {:.0}× an L1 hit", level.ns_per_load / l1))
        ),
        Cause::Tlb if level.name == "TLB reach" => format!(
            "TLB reach: random loads start to miss the TLB after {} ({ns} ns a load just past it)",
            format_bytes(level.size_bytes)
        ),
        Cause::Tlb => format!("{}: to {}, {ns} ns a load", level.name, format_bytes(level.size_bytes)),
        Cause::Cache => format!(
            "{} cache: working sets up to {}, {ns} ns a load{}",
            level.name,
            format_bytes(level.size_bytes),
            level.capacity_bytes.map_or(String::new(), |c| format!(" (runs out by {})", format_bytes(c)))
        ),
    }
}

/// The one sentence a visitor reads first.
fn headline(ladder: &Ladder) -> String {
    let l1 = ladder.levels.iter().find(|l| l.cause == Cause::Cache);
    let dram = ladder.levels.iter().find(|l| l.cause == Cause::Dram);
    let fast = ladder
        .levels
        .iter()
        .rev()
        .find(|l| l.cause == Cause::Cache && dram.is_none_or(|d| l.size_bytes < d.size_bytes));
    match (l1, dram, fast) {
        (Some(l1), Some(dram), Some(fast)) => format!(
            "A dependent load takes {} ns while the working set fits in L1, and {} ns once it lives in DRAM, {:.0}× \
             longer: on this machine, keep hot data under ~{}.",
            chart::format_number(l1.ns_per_load),
            chart::format_number(dram.ns_per_load),
            dram.ns_per_load / l1.ns_per_load,
            format_bytes(fast.size_bytes)
        ),
        (_, None, _) => format!(
            "DRAM not reached by {}: the largest working set still answers like a cache.",
            format_bytes(ladder.points.last().map_or(0, |p| p.bytes))
        ),
        _ => "The short ladder found no levels to name; the full ladder below measures longer.".into(),
    }
}

/// A ladder's reading as the first look gives it: the one sentence, each level in plain words
/// (with the `data-*` the e2e checks read) and, outside an embed, the verdict's lines.
fn reading(ladder: &Ladder, compact: bool) -> Html {
    let l1 = ladder.levels.iter().find(|l| l.cause == Cause::Cache).map(|l| l.ns_per_load);
    let levels = ladder.levels.iter().map(|l| {
        let cause = cause_name(l.cause);
        html! {
            <li data-level={l.name.clone()} data-bytes={l.size_bytes.to_string()} data-cause={cause}
                data-ns={l.ns_per_load.to_string()} data-capacity={l.capacity_bytes.map(|c| c.to_string())}>
                { level_words(l, l1) }
            </li>
        }
    });
    html! {
        <>
            <p class="headline">{ headline(ladder) }</p>
            <ul class="levels-plain">{ for levels }</ul>
            if !compact && !ladder.verdict.is_empty() {
                <ul class="verdict">{ for ladder.verdict.iter().map(|s| html! { <li>{ s.clone() }</li> }) }</ul>
            }
        </>
    }
}

/// What an embed's own run says once it is read: the same sentence and levels as the first look.
pub fn run_reading(ladder: &Ladder) -> Html {
    html! {
        <div class="run-reading" id="run-reading" data-state="done" aria-live="polite">{ reading(ladder, true) }</div>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct FirstLookProps {
    pub state: FirstLook,
    /// The run in progress, while the first look measures.
    pub run: Option<Run>,
    pub on_cancel: Callback<()>,
    pub compact: bool,
}

/// The first look: measured on opening, cancellable, its verdict in plain words. The e2e suite
/// reads `data-state` and each level's `data-*`, not the wording.
#[function_component(FirstLookCard)]
pub fn first_look_card(props: &FirstLookProps) -> Html {
    let (state, body) = match &props.state {
        FirstLook::Off => return html! {},
        FirstLook::Measuring => {
            let on_cancel = props.on_cancel.clone();
            let progress = props.run.as_ref().filter(|r| r.job.quick).map(progress);
            (
                "measuring",
                html! {
                    <>
                        { for progress }
                        <button type="button" class="danger" onclick={Callback::from(move |_| on_cancel.emit(()))}>{ "Cancel the first look" }</button>
                    </>
                },
            )
        }
        FirstLook::Stopped(why) => (
            "stopped",
            html! {
                <p class="muted">{ format!("The first look stopped: {why}. Run the ladder below for a verdict.") }</p>
            },
        ),
        FirstLook::Done(ladder) => ("done", reading(ladder, props.compact)),
    };
    html! {
        <div class="card first-look" id="first-look" data-state={state} aria-live="polite">
            <h2>{ "First look at this machine" }</h2>
            <p class="muted small">{ format!(
                "A short ladder measured on opening, in this tab: {} to {}, random and page-local, a few short samples a size. \
                 Its levels are read by the same code as the native memwall's.{}",
                format_bytes(FIRST_LOOK_MIN), format_bytes(FIRST_LOOK_MAX),
                if props.compact { "" } else { " The full ladder below measures more samples, longer." }
            ) }</p>
            { body }
        </div>
    }
}

/// The cause as the report spells it (the pages' `data-cause`, which the e2e checks read).
fn cause_name(cause: Cause) -> &'static str {
    match cause {
        Cause::Cache => "cache",
        Cause::Dram => "dram",
        Cause::Tlb => "tlb",
    }
}

/// One named level in a line: where it runs to, its latency, its notes.
fn level_text(l: &memwall_report::Level) -> String {
    format!(
        "{} {} {} at {} ns{} ({})",
        l.name,
        if l.cause == Cause::Dram { "from" } else { "to" },
        format_bytes(l.size_bytes),
        chart::format_number(l.ns_per_load),
        l.cycles_per_load.map_or(String::new(), |c| format!(", {c:.0} cycles")),
        describe::level_notes(l),
    )
}

/// A ladder's named levels and its verdict, as the core read them.
pub fn levels_and_verdict(ladder: &Ladder, advice: &[String]) -> Html {
    if ladder.levels.is_empty() && ladder.verdict.is_empty() && advice.is_empty() {
        return html! {};
    }
    html! {
        <div class="explanation">
            if !ladder.levels.is_empty() {
                <p class="levels"><strong>{ "Levels: " }</strong>
                    { for ladder.levels.iter().enumerate().map(|(i, l)| html! {
                        <>
                            if i > 0 { { " · " } }
                            <span data-level={l.name.clone()} data-bytes={l.size_bytes.to_string()}
                                data-cause={cause_name(l.cause)} data-ns={l.ns_per_load.to_string()}
                                data-capacity={l.capacity_bytes.map(|c| c.to_string())}>
                                { level_text(l) }
                            </span>
                        </>
                    }) }
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
