//! The turns of a race: every kernel once per round, warm-ups first, events around each run, and
//! every result held to the race's first.

use core::ops::ControlFlow;

/// Progress of a race of kernels `K`; returning `Break` cancels it. `Running` comes right before
/// the timed region and `Timed` right after it, with nothing else in between, so a front end may
/// bracket a run with hardware counters from these two.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RaceEvent<K> {
    /// Computing the reference result, outside any timer.
    Checking,
    /// Under the warm policy: `kernel`'s first run, which faults its scratch in and is not
    /// among the timed runs.
    WarmingUp { kernel: K },
    /// About to time `kernel`, run `run` (from 0) of `runs`.
    Running { kernel: K, run: u32, runs: u32 },
    /// `kernel`'s run `run` took `seconds`.
    Timed { kernel: K, run: u32, seconds: f64 },
}

/// One kernel's part of a race.
#[derive(Debug)]
pub(super) struct Turns<T> {
    /// Its very first run: the untimed warm-up, or the first timed run when there is none.
    pub first_seconds: f64,
    pub seconds: Vec<f64>,
    /// What each timed run gave besides its time.
    pub outputs: Vec<T>,
}

/// `Ok` to go on, or the error `cancelled` makes when a front end answered `Break`.
pub(crate) fn go_on<E>(control: ControlFlow<()>, cancelled: impl FnOnce() -> E) -> Result<(), E> {
    match control {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(cancelled()),
    }
}

/// Runs every kernel once untimed if `warm_up`, then `runs` rounds in which every kernel runs
/// once, in order; `run` runs one and returns its seconds. `cancelled` is the error for an
/// event answered with `Break`.
pub(super) fn take_turns<K: Copy, T, E>(
    kernels: &[K],
    runs: u32,
    warm_up: bool,
    on_event: &mut dyn FnMut(RaceEvent<K>) -> ControlFlow<()>,
    cancelled: impl Fn() -> E,
    mut run: impl FnMut(K) -> Result<(f64, T), E>,
) -> Result<Vec<Turns<T>>, E> {
    let mut flow = |event| go_on(on_event(event), &cancelled);
    let mut warm_ups = vec![None; kernels.len()];
    if warm_up {
        for (k, &kernel) in kernels.iter().enumerate() {
            flow(RaceEvent::WarmingUp { kernel })?;
            warm_ups[k] = Some(run(kernel)?.0);
        }
    }
    let mut turns: Vec<Turns<T>> = warm_ups
        .iter()
        .map(|&first| Turns {
            first_seconds: first.unwrap_or(f64::NAN),
            seconds: Vec::with_capacity(runs as usize),
            outputs: Vec::with_capacity(runs as usize),
        })
        .collect();
    for round in 0..runs {
        for (&kernel, turns) in kernels.iter().zip(&mut turns) {
            flow(RaceEvent::Running { kernel, run: round, runs })?;
            let (seconds, output) = run(kernel)?;
            flow(RaceEvent::Timed { kernel, run: round, seconds })?;
            if turns.seconds.is_empty() && !warm_up {
                turns.first_seconds = seconds;
            }
            turns.seconds.push(seconds);
            turns.outputs.push(output);
        }
    }
    Ok(turns)
}

/// Whether a race can compare kernels with each other, and one kernel's runs with each other:
/// the checks [`Agreement`] makes.
pub(super) fn comparisons(kernels: usize, runs: u32, warm_up: bool) -> (bool, bool) {
    (kernels > 1, runs > 1 || warm_up)
}

/// The race's first result, which every later run must equal.
#[derive(Debug)]
pub(super) struct Agreement<K, R> {
    first: Option<(K, R)>,
}

/// A run whose result differs from the race's first.
#[derive(Debug)]
pub(super) struct Disagreement<'a, K, R> {
    /// The kernel of the first run.
    pub with: K,
    /// The first run was this kernel's own: its runs do not repeat (else, kernels disagree).
    pub same_kernel: bool,
    pub agreed: &'a R,
}

impl<K: Copy + PartialEq, R: Clone + PartialEq> Agreement<K, R> {
    pub fn new() -> Self {
        Self { first: None }
    }

    /// Keeps the first result; checks any other against it.
    pub fn check(&mut self, kernel: K, result: &R) -> Result<(), Disagreement<'_, K, R>> {
        if self.first.is_none() {
            self.first = Some((kernel, result.clone()));
        }
        match &self.first {
            Some((with, agreed)) if agreed != result => {
                Err(Disagreement { with: *with, same_kernel: *with == kernel, agreed })
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Stop {
        Cancelled,
        Failed(char),
    }

    #[test]
    fn kernels_take_turns_after_their_warm_ups() {
        let mut events = Vec::new();
        let mut ran = Vec::new();
        let mut clock = 0.0;
        let turns = take_turns(
            &['a', 'b'],
            2,
            true,
            &mut |event| {
                events.push(event);
                ControlFlow::Continue(())
            },
            || Stop::Cancelled,
            |kernel| {
                ran.push(kernel);
                clock += 1.0;
                Ok::<_, Stop>((clock, kernel.to_ascii_uppercase()))
            },
        )
        .unwrap();
        assert_eq!(ran, ['a', 'b', 'a', 'b', 'a', 'b']);
        assert_eq!(turns[0].first_seconds, 1.0, "the warm-up");
        assert_eq!(turns[0].seconds, [3.0, 5.0]);
        assert_eq!(turns[1].seconds, [4.0, 6.0]);
        assert_eq!(turns[1].outputs, ['B', 'B']);
        assert_eq!(events[0], RaceEvent::WarmingUp { kernel: 'a' });
        assert_eq!(events[2], RaceEvent::Running { kernel: 'a', run: 0, runs: 2 });
        assert_eq!(events[3], RaceEvent::Timed { kernel: 'a', run: 0, seconds: 3.0 });
        assert_eq!(events.len(), 2 + 2 * 2 * 2);
    }

    #[test]
    fn without_a_warm_up_the_first_timed_run_is_the_first() {
        let mut clock = 0.0;
        let turns = take_turns(
            &['a'],
            3,
            false,
            &mut |_| ControlFlow::Continue(()),
            || Stop::Cancelled,
            |_| {
                clock += 2.0;
                Ok::<_, Stop>((clock, ()))
            },
        )
        .unwrap();
        assert_eq!(turns[0].first_seconds, 2.0);
        assert_eq!(turns[0].seconds, [2.0, 4.0, 6.0]);
    }

    #[test]
    fn a_break_cancels_and_a_failed_run_stops_the_race() {
        let mut runs = 0;
        let stop = take_turns(
            &['a', 'b'],
            5,
            false,
            &mut |event| match event {
                RaceEvent::Timed { run: 1, .. } => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            },
            || Stop::Cancelled,
            |_| {
                runs += 1;
                Ok((1.0, ()))
            },
        );
        assert_eq!(stop.unwrap_err(), Stop::Cancelled);
        assert_eq!(runs, 3, "stopped right after the first run of round 1");

        let failed = take_turns(
            &['a', 'b'],
            2,
            true,
            &mut |_| ControlFlow::Continue(()),
            || Stop::Cancelled,
            |kernel| if kernel == 'b' { Err(Stop::Failed(kernel)) } else { Ok((1.0, ())) },
        );
        assert_eq!(failed.unwrap_err(), Stop::Failed('b'));
    }

    #[test]
    fn every_result_is_held_to_the_first() {
        let mut agreement = Agreement::new();
        assert!(agreement.check('a', &10).is_ok());
        assert!(agreement.check('b', &10).is_ok());
        let other = agreement.check('b', &11).unwrap_err();
        assert_eq!((other.with, other.same_kernel, *other.agreed), ('a', false, 10));
        let own = agreement.check('a', &12).unwrap_err();
        assert!(own.same_kernel, "a's own first run gave 10");
        assert_eq!(comparisons(1, 1, false), (false, false));
        assert_eq!(comparisons(2, 1, true), (true, true));
    }
}
