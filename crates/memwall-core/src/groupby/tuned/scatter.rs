//! The scatter: every key to its partition's pages through write-combining buffers flushed with
//! non-temporal stores (see the module docs of `tuned`).

use allocator_api2::vec::Vec as ScratchVec;

use super::layout::{Scratched, WC_LINES, WC_WORDS};
use crate::arch::{Line, stream_fence, stream_line};
use crate::groupby::agg::{RowValue, State};
use crate::groupby::config::GroupByError;
use crate::groupby::hash::{hash, partition_of_hash};
use crate::scratch::Scratch;

/// One thread's scattered rows: pages of its region, chained per partition.
pub(super) struct Scattered<'r, 'a, 's> {
    words: &'r [u64],
    page_words: usize,
    /// The page that follows each page in its partition's chain.
    next: Scratched<'a, 's, u32>,
    /// Where each partition's next row would have gone; partition `p` starts at page `p`.
    end: Scratched<'a, 's, u32>,
}

impl<'r> Scattered<'r, '_, '_> {
    /// The rows of partition `p`, one slice per page.
    pub(super) fn pages(&self, p: usize) -> Pages<'_, 'r> {
        let end = self.end[p] as usize;
        Pages {
            words: self.words,
            next: &self.next,
            page_words: self.page_words,
            page: Some(p),
            last: end / self.page_words,
            end,
        }
    }

    pub(super) fn words(&self, p: usize) -> usize {
        self.pages(p).map(<[u64]>::len).sum()
    }
}

#[derive(Clone)]
pub(super) struct Pages<'s, 'r> {
    words: &'r [u64],
    next: &'s [u32],
    page_words: usize,
    page: Option<usize>,
    /// The page the partition's next row would have gone to, possibly still empty.
    last: usize,
    end: usize,
}

impl<'r> Iterator for Pages<'_, 'r> {
    type Item = &'r [u64];

    fn next(&mut self) -> Option<&'r [u64]> {
        let page = self.page?;
        let start = page * self.page_words;
        if page == self.last {
            self.page = None;
            Some(&self.words[start..self.end])
        } else {
            self.page = Some(self.next[page] as usize);
            Some(&self.words[start..start + self.page_words])
        }
    }
}

/// A scratch vector of `len` copies of `value`, or the error to report.
pub(super) fn filled<'a, 's, T: Clone>(
    scratch: &'a Scratch<'s>,
    len: usize,
    value: T,
) -> Result<Scratched<'a, 's, T>, GroupByError> {
    let mut vec = ScratchVec::new_in(scratch.alloc());
    vec.try_reserve_exact(len).map_err(|_| out_of_scratch(scratch, len * size_of::<T>()))?;
    vec.resize(len, value);
    Ok(vec)
}

pub(super) fn out_of_scratch(scratch: &Scratch<'_>, bytes: usize) -> GroupByError {
    let why = scratch.last_error().unwrap_or_else(|| "the size overflows".into());
    GroupByError::Allocation(format!("scratch memory ({}): {why}", crate::size::format_bytes(bytes as u64)))
}

/// Writes each row (its key, then its value's bits if it has one) to its partition's pages in
/// `region`.
pub(super) fn scatter<'r, 'a, 's, S: State>(
    keys: &[i64],
    values: &[S::Value],
    bits: u32,
    page_words: usize,
    region: &'r mut [Line],
    scratch: &'a Scratch<'s>,
) -> Result<Scattered<'r, 'a, 's>, GroupByError> {
    let fanout = 1usize << bits;
    let mut next = filled(scratch, region.len() * Line::WORDS / page_words, u32::MAX)?;
    debug_assert!(region.len() * Line::WORDS <= u32::MAX as usize);
    let mut end = filled(scratch, fanout, 0u32)?;
    for (p, end) in end.iter_mut().enumerate() {
        *end = (p * page_words) as u32;
    }
    let mut free_page = fanout;
    // Given back when the scatter ends: a pre-aggregating scatter (`rounds.rs`) runs once a
    // round, and blocks from `Scratch::lines` are only given back when the run ends.
    let mut pending = filled(scratch, fanout * WC_LINES, Line::ZERO)?;
    let pending = pending.as_chunks_mut::<WC_LINES>().0;
    // Every partition's slices at the fanout's length, and each row's partition masked to it: the
    // compiler then sees no index past them and checks none per row. wasm32 pays each check: the
    // scatter of the small preset took 7.4-8.4 ns/row under node against 8.3-9.0 before; writing
    // each row straight to its page instead, without the buffer, took 8.4-8.7
    // (`docs/results/wasm-scatter-*-xeon-2vcpu-kvm-2026-12-07.txt`).
    let (ends, pending) = (&mut end[..fanout], &mut pending[..fanout]);
    for (&key, &v) in keys.iter().zip(values) {
        let p = partition_of_hash(hash(key), bits) & (fanout - 1);
        let at = ends[p] as usize;
        pending[p][at % WC_WORDS / Line::WORDS].0[at % Line::WORDS] = key as u64;
        if S::WORDS == 2 {
            // `at` is even (pages and buffers hold whole rows): the value shares the key's line.
            pending[p][at % WC_WORDS / Line::WORDS].0[(at + 1) % Line::WORDS] = v.to_bits();
        }
        ends[p] = (at + S::WORDS) as u32;
        if at % WC_WORDS == WC_WORDS - S::WORDS {
            let first = (at + S::WORDS - WC_WORDS) / Line::WORDS;
            for (to, from) in region[first..first + WC_LINES].iter_mut().zip(&pending[p]) {
                stream_line(to, from);
            }
            if (at + S::WORDS).is_multiple_of(page_words) {
                next[at / page_words] = free_page as u32;
                ends[p] = (free_page * page_words) as u32;
                free_page += 1;
            }
        }
    }
    // What is left in each buffer, with plain stores.
    let words = Line::words_mut(region);
    for (buffer, &at) in pending.iter().zip(end.iter()) {
        let at = at as usize;
        let filled = at % WC_WORDS;
        words[at - filled..at].copy_from_slice(&Line::words(buffer)[..filled]);
    }
    stream_fence();
    Ok(Scattered { words: Line::words(region), page_words, next, end })
}
