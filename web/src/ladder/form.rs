//! What the reader asks the ladder to measure, and what the page says while it measures: the
//! form, the progress line, the note on the timer the browser gave.

use memwall_core::ladder::{self, Pattern};
use memwall_core::size::parse_size;
use yew::prelude::*;

use super::protocol::LadderJob;
use super::run::{Calibration, Run};
use crate::{chart, util};

/// The form, as typed (and as `?min=&max=&ppo=&patterns=&chains=` set it).
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    pub min: String,
    pub max: String,
    pub points_per_octave: String,
    pub samples: String,
    /// Patterns measured after the main random curve.
    pub patterns: Vec<Pattern>,
    pub chains: bool,
}

impl Form {
    pub fn from_query() -> Self {
        Self {
            min: util::query("min").unwrap_or_else(|| "16KiB".into()),
            max: util::query("max").unwrap_or_else(|| "256MiB".into()),
            points_per_octave: util::query("ppo").unwrap_or_else(|| "2".into()),
            samples: "auto".into(),
            // Page-local by default: the levels are read from it (caches and DRAM without TLB
            // misses), as the native `memwall run` reads them; `?patterns=` without it opts out.
            patterns: util::query("patterns")
                .map(|list| list.split(',').filter_map(Pattern::parse).filter(|p| *p != Pattern::Random).collect())
                .unwrap_or_else(|| vec![Pattern::PageLocal]),
            chains: util::query("chains").as_deref() == Some("1"),
        }
    }

    /// The run the form describes, or a one-line reason why it cannot run here.
    pub fn job(&self) -> Result<LadderJob, String> {
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
        Ok(LadderJob {
            sizes,
            samples: if self.samples == "auto" { 0 } else { self.samples.parse().unwrap_or(0) },
            seed: ladder::DEFAULT_SEED,
            patterns: self.patterns.clone(),
            chains: if self.chains { ladder::CHAIN_COUNTS.to_vec() } else { Vec::new() },
            quick: false,
        })
    }

    /// What an embed of this page measures: the same sizes, patterns and chases.
    pub fn embed_params(&self) -> Vec<(String, String)> {
        let mut params = vec![
            ("min".to_string(), self.min.clone()),
            ("max".to_string(), self.max.clone()),
            ("ppo".to_string(), self.points_per_octave.trim().to_string()),
        ];
        // Named even when only random is left, or the embed would add page-local back.
        let names: Vec<&str> = std::iter::once("random").chain(self.patterns.iter().map(|p| p.name())).collect();
        params.push(("patterns".into(), names.join(",")));
        if self.chains {
            params.push(("chains".into(), "1".into()));
        }
        params
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

#[derive(Debug, Properties, PartialEq)]
pub struct FormProps {
    pub form: Form,
    pub on_change: Callback<Form>,
    pub running: bool,
    pub on_run: Callback<()>,
    pub on_cancel: Callback<()>,
}

#[function_component(LadderForm)]
pub fn ladder_form(props: &FormProps) -> Html {
    let form = &props.form;
    let running = props.running;
    let edit = |change: fn(&mut Form, String)| {
        let (form, on_change) = (form.clone(), props.on_change.clone());
        move |value: String| {
            let mut next = form.clone();
            change(&mut next, value);
            on_change.emit(next);
        }
    };
    let on_input = |change: fn(&mut Form, String)| {
        let edit = edit(change);
        Callback::from(move |e: InputEvent| {
            edit(chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default())
        })
    };
    let on_samples = {
        let edit = edit(|f, v| f.samples = v);
        Callback::from(move |e: Event| {
            edit(chart::target::<web_sys::HtmlSelectElement>(&e).map(|s| s.value()).unwrap_or_default())
        })
    };
    let error = form.job().err();
    // Keyed, so that one button replaces the other instead of becoming it: a Cancel turned into
    // a submit button while its click is still being handled would submit the form, and start
    // the run it just cancelled.
    let button = if running {
        let on_cancel = props.on_cancel.clone();
        html! { <button key="cancel" type="button" class="danger" onclick={Callback::from(move |_| on_cancel.emit(()))}>{ "Cancel" }</button> }
    } else {
        html! { <button key="run" type="submit" class="primary" disabled={error.is_some()}>{ "Run in this browser" }</button> }
    };
    let on_submit = {
        let on_run = props.on_run.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on_run.emit(());
        })
    };
    html! {
        <>
            <form class="controls" onsubmit={on_submit}>
                <label>{ "Smallest working set" }
                    <input type="text" value={form.min.clone()} oninput={on_input(|f, v| f.min = v)} disabled={running} aria-describedby="size-help" />
                </label>
                <label>{ "Largest working set" }
                    <input type="text" value={form.max.clone()} oninput={on_input(|f, v| f.max = v)} disabled={running} aria-describedby="size-help" />
                </label>
                <label>{ "Points per doubling" }
                    <input type="number" min="1" max="8" value={form.points_per_octave.clone()} oninput={on_input(|f, v| f.points_per_octave = v)} disabled={running} />
                </label>
                <label>{ "Samples per size" }
                    <select onchange={on_samples} disabled={running}>
                        { for ["auto", "5", "9", "15", "31"].iter().map(|v| html! { <option value={*v} selected={form.samples == *v}>{ if *v == "auto" { "auto (from the timer)" } else { v } }</option> }) }
                    </select>
                </label>
                { also_measure(props) }
                <div class="actions">{ button }</div>
            </form>
            <p id="size-help" class="hint">{ "Sizes like 16KiB, 1.5MiB, 256MiB. Larger working sets take longer: building and warming a 256 MiB ring takes about a second." }</p>
            if let Some(e) = error { <p class="field-error" role="alert">{ e }</p> }
        </>
    }
}

/// The other patterns and memory-level parallelism, each a checkbox.
fn also_measure(props: &FormProps) -> Html {
    let (form, running) = (&props.form, props.running);
    let toggle = |pattern: Pattern| {
        let (form, on_change) = (form.clone(), props.on_change.clone());
        Callback::from(move |_| {
            let mut next = form.clone();
            match next.patterns.iter().position(|p| *p == pattern) {
                Some(i) => drop(next.patterns.remove(i)),
                None => next.patterns.push(pattern),
            }
            on_change.emit(next);
        })
    };
    let toggle_chains = {
        let (form, on_change) = (form.clone(), props.on_change.clone());
        Callback::from(move |_| on_change.emit(Form { chains: !form.chains, ..form.clone() }))
    };
    html! {
        <fieldset class="checks">
            <legend>{ "Also measure" }</legend>
            { for [Pattern::PageLocal, Pattern::PageStride, Pattern::Sequential].into_iter().map(|pattern| html! {
                <label class="check" title={pattern_help(pattern)}>
                    <input type="checkbox" checked={form.patterns.contains(&pattern)} disabled={running} onchange={toggle(pattern)} />
                    { pattern.name() }
                </label>
            }) }
            <label class="check" title="1 to 64 independent chases at once over the largest size (at most 256 MiB): how many misses the core keeps in flight">
                <input type="checkbox" checked={form.chains} disabled={running} onchange={toggle_chains} />
                { "memory-level parallelism" }
            </label>
        </fieldset>
    }
}

/// "12 of 58 points — measuring page-local, 4 MiB", or how the finished run went.
pub fn progress(run: &Run) -> Html {
    let done = run.done();
    let total = run.job.planned_points().max(run.job.sizes.len());
    let text = match (&run.ladder, run.running, &run.measuring) {
        (Some(ladder), _, _) => {
            format!("{done} points measured in {:.1} s", ladder.duration_s.unwrap_or(f64::NAN))
        }
        (None, true, Some(what)) => format!("{done} of {total} points — measuring {what}"),
        (None, true, None) => "calibrating the timer…".to_string(),
        (None, false, _) => format!("{done} of {total} points"),
    };
    html! {
        <div class="progress-row">
            <progress max={total.max(1).to_string()} value={done.to_string()} aria-label="Ladder progress"></progress>
            <span class="muted" aria-live="polite">{ text }</span>
        </div>
    }
}

/// Which timer the browser gave, and what the run made of it; before a run, whether the page
/// is isolated at all.
pub fn timer_note(calibration: Option<&Calibration>) -> Html {
    let Some(c) = calibration else {
        let isolated = crate::clock::cross_origin_isolated();
        return html! {
            <p class="timer-note muted">
                { if isolated { "This page is cross-origin isolated: the browser allows its finest timer." } else { "This page is not cross-origin isolated: the browser's timer is coarse, so samples will be longer." } }
            </p>
        };
    };
    let resolution = util::format_duration(c.timer_resolution_ns);
    let sample = util::format_duration(c.target_sample_ns);
    let ticks = (c.target_sample_ns / c.timer_resolution_ns.max(1.0)).round();
    html! {
        <p class={classes!("timer-note", (!c.cross_origin_isolated).then_some("warn"))} data-timer-ns={c.timer_resolution_ns.to_string()}
            data-isolated={c.cross_origin_isolated.to_string()}>
            { format!("Timer resolution {resolution} · {} · each sample ≥ {sample} ({ticks} ticks or more), {} samples per size.",
                if c.cross_origin_isolated { "cross-origin isolated" } else { "not cross-origin isolated" }, c.samples) }
            if !c.cross_origin_isolated {
                { " Without COOP/COEP headers the browser coarsens its timer; samples are made longer to compensate. Serve with " }<code>{ "memwall serve" }</code>{ " (it sends them) for the browser's finest timer." }
            }
        </p>
    }
}
