//! A ladder run as the page follows it: the worker's events folded into the points so far, and,
//! once every curve is in, the ladder read by the core (`explain::measured::read`, the code the
//! native `memwall run` reads its own curves with). The first look and the full ladder are both
//! runs; the first look's reading is kept beside the full ladder's.

use std::rc::Rc;

use memwall_core::ladder::{self, Pattern};
use memwall_core::size::format_bytes;
use memwall_report::{Curve, Host, Ladder, LadderPoint};
use yew::Reducible;

use super::protocol::{LadderEvent, LadderJob};
use crate::worker::Message;

/// The pages a browser's run measures on, as a report names them: the browser's allocator
/// decides (no madvise from inside wasm).
pub const BROWSER_PAGES: &str = "default";

#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    pub timer_resolution_ns: f64,
    pub target_sample_ns: f64,
    pub samples: u32,
    pub cross_origin_isolated: bool,
}

/// One run, from its job to its ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub job: LadderJob,
    /// Points of each curve so far: the main random curve, then the job's patterns.
    pub curves: Vec<Vec<LadderPoint>>,
    pub calibration: Option<Calibration>,
    /// What is being measured now, for the progress line.
    pub measuring: Option<String>,
    /// The finished run, read.
    pub ladder: Option<Rc<Ladder>>,
    pub running: bool,
}

impl Run {
    pub fn points(&self) -> &[LadderPoint] {
        self.curves.first().map_or(&[], Vec::as_slice)
    }

    /// Points measured over every curve.
    pub fn done(&self) -> usize {
        self.curves.iter().map(Vec::len).sum()
    }
}

/// The first look's state, for its card.
#[derive(Debug, Clone, PartialEq)]
pub enum FirstLook {
    /// Not asked for (an embed without `verdict=1`, or `?verdict=0`).
    Off,
    Measuring,
    Done(Rc<Ladder>),
    /// Stopped before its verdict, and why.
    Stopped(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct LadderState {
    pub run: Option<Run>,
    pub first_look: FirstLook,
    pub error: Option<String>,
    pub notice: Option<String>,
}

impl LadderState {
    pub fn new(first_look: bool) -> Self {
        Self {
            run: None,
            first_look: if first_look { FirstLook::Measuring } else { FirstLook::Off },
            error: None,
            notice: None,
        }
    }
}

#[derive(Debug)]
pub enum Action {
    Started(LadderJob),
    Message(Message<LadderEvent>),
    /// The worker would not start.
    NotStarted(String),
    Cancel,
    Notice(Option<String>),
}

impl Reducible for LadderState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Started(job) => {
                if next.first_look == FirstLook::Measuring && !job.quick {
                    next.first_look = FirstLook::Stopped("the full ladder you started took its place".into());
                }
                let curves = vec![Vec::new(); job.curves().len()];
                next.run = Some(Run { job, curves, calibration: None, measuring: None, ladder: None, running: true });
                next.error = None;
                next.notice = None;
            }
            Action::NotStarted(why) => {
                next.stop_first_look(&why);
                next.error = Some(why);
                if let Some(run) = &mut next.run {
                    run.running = false;
                }
            }
            Action::Cancel => {
                let Some(run) = &mut next.run else { return self };
                run.running = false;
                run.measuring = None;
                if run.job.quick {
                    next.stop_first_look("cancelled");
                } else {
                    next.notice =
                        Some(format!("Cancelled after {} of {} sizes.", run.points().len(), run.job.sizes.len()));
                }
            }
            Action::Notice(text) => next.notice = text,
            Action::Message(Message::Failed(why)) => {
                if let Some(run) = &mut next.run {
                    run.running = false;
                    run.measuring = None;
                }
                next.stop_first_look(&why);
                next.error = Some(why);
            }
            Action::Message(Message::Event(event)) => {
                let Some(run) = &mut next.run else { return self };
                if let Some(ladder) = follow(run, event)
                    && run.job.quick
                    && next.first_look == FirstLook::Measuring
                {
                    next.first_look = FirstLook::Done(ladder);
                }
            }
        }
        Rc::new(next)
    }
}

impl LadderState {
    fn stop_first_look(&mut self, why: &str) {
        if self.first_look == FirstLook::Measuring && self.run.as_ref().is_some_and(|r| r.job.quick) {
            self.first_look = FirstLook::Stopped(why.to_string());
        }
    }
}

/// Folds one event into the run; returns the ladder when the run is complete.
fn follow(run: &mut Run, event: LadderEvent) -> Option<Rc<Ladder>> {
    match event {
        LadderEvent::Started { timer_resolution_ns, target_sample_ns, samples, cross_origin_isolated } => {
            run.calibration =
                Some(Calibration { timer_resolution_ns, target_sample_ns, samples, cross_origin_isolated });
        }
        LadderEvent::Measuring { curve, bytes } => {
            let pattern = match curve {
                0 => String::new(),
                n => run.job.curves().get(n).map_or(String::new(), |p| format!("{}, ", p.name())),
            };
            run.measuring = Some(format!("{pattern}{}", format_bytes(bytes)));
        }
        LadderEvent::Point { curve, point } => {
            if let Some(points) = run.curves.get_mut(curve) {
                points.push(point);
            }
        }
        LadderEvent::Chains { bytes } => {
            run.measuring = Some(format!("memory-level parallelism at {}", format_bytes(bytes)));
        }
        LadderEvent::Done { duration_s, chains } => {
            let ladder = Rc::new(read(run, duration_s, chains));
            run.ladder = Some(ladder.clone());
            run.running = false;
            run.measuring = None;
            return Some(ladder);
        }
    }
    None
}

/// The run's curves as a report's ladder, read by the core. A page sees no declared caches and
/// no clock: levels are numbered, in ns only.
fn read(run: &Run, duration_s: f64, chains: Option<(u64, Vec<memwall_report::ChainsPoint>)>) -> Ladder {
    let curves = run
        .job
        .curves()
        .into_iter()
        .zip(&run.curves)
        .map(|(pattern, points): (Pattern, _)| Curve {
            pattern: pattern.name().into(),
            huge_pages: BROWSER_PAGES.into(),
            chains: 1,
            points: points.clone(),
        })
        .collect();
    let calibration = run.calibration.as_ref();
    let measured = memwall_core::explain::measured::Measured {
        curves,
        parallelism: chains.map(|(bytes, points)| ladder::parallelism_from(bytes, points)),
        pinned_cpu: None,
        seed: run.job.seed,
        target_sample_ns: calibration.map_or(f64::NAN, |c| c.target_sample_ns),
        duration_s: Some(duration_s),
    };
    let host = Host {
        timer_resolution_ns: calibration.map(|c| c.timer_resolution_ns),
        core_ghz_unavailable: Some("a browser cannot calibrate the core clock: the JIT may fold an add chain".into()),
        ..Host::default()
    };
    memwall_core::explain::measured::read(measured, &host)
}
