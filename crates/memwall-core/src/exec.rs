//! How the core runs independent tasks: one after another in a browser, on threads natively.
//!
//! The core never spawns threads itself (wasm32-unknown-unknown has none); a kernel that can use
//! several cores splits its work into tasks and hands them to the front end's [`Executor`].

use std::sync::Mutex;

/// Runs `tasks` independent tasks, each exactly once, and returns when all have finished.
pub trait Executor: Sync {
    /// How many tasks may run at the same time; kernels size their split by it.
    fn threads(&self) -> usize;
    /// Calls `task(i)` once for every `i` in `0..tasks`, in any order and on any thread.
    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync));
}

/// Runs tasks in order on the calling thread (the browser's only option).
#[derive(Debug, Default, Clone, Copy)]
pub struct Sequential;

impl Executor for Sequential {
    fn threads(&self) -> usize {
        1
    }
    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..tasks).for_each(task);
    }
}

/// Tasks a phase of many independent pieces (partitions) is cut into per thread. Threads take
/// the next task as they finish one, so on average one thread idles for half a task at the end
/// of the phase: with 4 a thread, that is about 6% of the phase; with 16, under 2%. A task costs
/// little more than its first partition sized without an estimate from the one before.
pub const TASKS_PER_THREAD: usize = 16;

/// Maps every input to an output with one task per input, keeping the order of `inputs`.
///
/// Inputs move into their task and outputs move back through one uncontended lock each: that is
/// what lets a task own a `&mut` piece of a buffer although `Executor::run` only lends a shared
/// `Fn`.
pub fn map<I: Send, O: Send>(exec: &dyn Executor, inputs: Vec<I>, f: impl Fn(usize, I) -> O + Sync) -> Vec<O> {
    let slots: Vec<Mutex<(Option<I>, Option<O>)>> = inputs.into_iter().map(|i| Mutex::new((Some(i), None))).collect();
    exec.run(slots.len(), &|index| {
        let input = lock(&slots[index]).0.take().expect("each task runs once");
        let output = f(index, input);
        lock(&slots[index]).1 = Some(output);
    });
    slots
        .into_iter()
        .map(|slot| {
            let (_, output) = slot.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
            output.expect("the executor ran every task")
        })
        .collect()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panicking task aborts the kernel anyway; the data of other slots is still whole.
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `0..len` cut into `parts` contiguous ranges whose lengths differ by at most one.
pub fn split_even(len: usize, parts: usize) -> Vec<core::ops::Range<usize>> {
    let parts = parts.max(1);
    (0..parts).map(|i| len * i / parts..len * (i + 1) / parts).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs tasks in reverse order, to catch code that assumes the sequential order.
    struct Backwards;
    impl Executor for Backwards {
        fn threads(&self) -> usize {
            3
        }
        fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
            (0..tasks).rev().for_each(task);
        }
    }

    #[test]
    fn map_keeps_input_order_whatever_the_execution_order() {
        let out = map(&Backwards, vec![10, 20, 30, 40], |i, x| x + i);
        assert_eq!(out, vec![10, 21, 32, 43]);
        let mut buffer = vec![0u8; 10];
        let pieces: Vec<&mut [u8]> = buffer.chunks_mut(3).collect();
        map(&Sequential, pieces, |i, piece| piece.fill(i as u8));
        assert_eq!(buffer, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
        assert!(map(&Sequential, Vec::<u8>::new(), |_, x| x).is_empty());
    }

    #[test]
    fn split_even_covers_everything_once() {
        for (len, parts) in [(0, 1), (10, 3), (3, 10), (100, 7), (5, 0)] {
            let ranges = split_even(len, parts);
            assert_eq!(ranges.len(), parts.max(1));
            assert_eq!(ranges.first().unwrap().start, 0);
            assert_eq!(ranges.last().unwrap().end, len);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            assert!(ranges.iter().all(|r| r.len() <= len.div_ceil(parts.max(1))));
        }
    }
}
