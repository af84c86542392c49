//! The sizes of tuned's buffers and tables (see the module docs of `tuned`): write-combining
//! lines, pages, chunks, and how full a table may get.

use allocator_api2::vec::Vec as ScratchVec;

use crate::arch::Line;
use crate::groupby::flat::Slot;
use crate::scratch::ScratchAlloc;

/// Partition bits of the scatter over DRAM; more are split in cache (see the module docs of `tuned`).
pub(crate) const SCATTER_BITS: u32 = 12;

/// Lines of write-combining buffer per partition (see the module docs of `tuned`).
pub(super) const WC_LINES: usize = 4;

pub(super) const WC_WORDS: usize = WC_LINES * Line::WORDS;

/// Largest page: 16 KiB. Small enough that the partly filled last pages of 4096 partitions
/// waste little (64 MiB of address space at most, per thread), large enough that taking a new
/// page is rare.
pub(super) const MAX_PAGE_WORDS: usize = 2048;

/// Words one chunk (one region of the buffer) may hold (a row is one word, or two with a
/// value): its positions, at most this plus a page per partition, then fit in `u32`, whose
/// position array is half the size of `usize`'s and made the scatter ~8% faster.
pub(super) const MAX_CHUNK_WORDS: usize = 1 << 30;

/// Tables are at most `1 / LOAD_INVERSE` full, so most lookups end at their first slot.
pub(super) const LOAD_INVERSE: usize = 4;

/// Bytes of table a group takes at most for a count: a 16-byte slot, at most a quarter of
/// them full ([`table_bytes_per_group`] for other aggregates).
pub const TABLE_BYTES_PER_GROUP: u64 = 16 * LOAD_INVERSE as u64;

/// Bytes of table a group takes at most with `state_bytes` of aggregate state beside its key.
pub fn table_bytes_per_group(state_bytes: u64) -> u64 {
    (8 + state_bytes) * LOAD_INVERSE as u64
}

/// Bytes of write-combining buffer each scattered partition keeps in cache.
pub const WC_BYTES_PER_PARTITION: u64 = (WC_LINES * size_of::<Line>()) as u64;

/// The smallest table: 16 KiB, so that a partition of few groups still checks the load only
/// every few hundred rows.
pub(crate) const MIN_TABLE_SLOTS: usize = 1024;

pub(super) type Scratched<'a, 's, T> = ScratchVec<T, ScratchAlloc<'a, 's>>;

pub(super) type Table<'a, 's, S> = Scratched<'a, 's, Slot<S>>;

/// Lines of buffer a chunk of `words` words scatters into.
pub(super) fn region_lines(words: usize, page_words: usize, fanout: usize) -> usize {
    (words / page_words + fanout) * (page_words / Line::WORDS)
}

/// Words per page for `rows` rows over `fanout` partitions: a power of two (so pages hold whole
/// write-combining buffers) near half a partition's expected rows, so that small inputs do not reserve 16 KiB
/// for every one of thousands of nearly empty partitions.
pub(super) fn page_words(words: usize, fanout: usize) -> usize {
    (words / fanout / 2).clamp(WC_WORDS, MAX_PAGE_WORDS).next_power_of_two()
}
