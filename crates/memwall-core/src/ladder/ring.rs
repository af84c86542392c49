//! The chase itself: a ring of cache lines, each pointing to the next, in the order a
//! [`Pattern`] gives, and the timed loops that follow it (one chase, or K interleaved).

/// One hop per cache line of this many bytes.
pub const LINE_BYTES: usize = 64;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LadderError {
    #[error("a working set needs at least two {LINE_BYTES}-byte lines, got {0} bytes")]
    TooSmall(u64),
    #[error("{0}")]
    Allocation(String),
    #[error("the buffer is smaller than the ring asked for")]
    BufferTooShort,
    #[error("cancelled")]
    Cancelled,
    #[error("{0} chases: the chase count must be one of 1, 2, 4, 8, 16, 32, 64")]
    Chains(u32),
}

/// A position in a ring: the address of a line, only ever produced by the ring itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor(pub(super) *const u8);

/// One cycle over cache lines of a borrowed buffer, in the order a [`Pattern`] gives.
#[derive(Debug)]
pub struct Ring<'a> {
    /// Line 0 of the buffer's aligned window: cursors are checked against it.
    base: *const u8,
    /// Lines of the window (what cursors may point into).
    span: usize,
    /// Lines in the cycle: all of the window, or one per page for `page-stride`.
    lines: usize,
    first: *const u8,
    _buffer: core::marker::PhantomData<&'a mut [u8]>,
}

/// How a ring orders its lines. Every pattern is one cycle that visits each of its lines once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// One random cycle over every line (Sattolo): the prefetchers see nothing, and with small
    /// pages nearly every hop past the TLB's reach is a TLB miss.
    Random,
    /// Every line, in random order within groups of [`PAGE_LOCAL_PAGES`] pages and the groups in
    /// random order: the caches see a random chase, the TLB a handful of pages at a time, so the
    /// curve is caches and DRAM alone.
    PageLocal,
    /// One line per 4 KiB page, pages in random order (the line within each page random too, so
    /// the lines spread over the cache sets): every hop a new page, to show TLB and page walk cost.
    PageStride,
    /// Every line in address order: what the hardware prefetchers hide.
    Sequential,
}

/// Pages per group of [`Pattern::PageLocal`]: far below any data TLB's entries (64 and up), yet
/// 512 random lines per group, enough that no prefetcher guesses the next one.
pub const PAGE_LOCAL_PAGES: usize = 8;
/// The page the patterns are built around: the smallest page of every current OS.
pub const PATTERN_PAGE_BYTES: usize = 4096;
const LINES_PER_PAGE: usize = PATTERN_PAGE_BYTES / LINE_BYTES;

impl Pattern {
    pub const ALL: [Pattern; 4] = [Pattern::Random, Pattern::PageLocal, Pattern::PageStride, Pattern::Sequential];

    /// The name reports use (`random-cycle` is the name the first reports gave the random chase).
    pub fn name(self) -> &'static str {
        match self {
            Self::Random => "random-cycle",
            Self::PageLocal => "page-local",
            Self::PageStride => "page-stride",
            Self::Sequential => "sequential",
        }
    }

    /// The pattern `name` names: its report name, or the short form the command line and the
    /// page use (`random` for `random-cycle`).
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim().to_ascii_lowercase();
        Self::ALL.into_iter().find(|p| p.name() == name || (name == "random" && *p == Self::Random))
    }

    /// Line indices in visiting order (the cycle closes from the last to the first), over a window
    /// of `lines` lines.
    pub fn order(self, lines: usize, seed: u64) -> Vec<u32> {
        assert!(u32::try_from(lines).is_ok(), "rings are limited to 2^32 lines (256 GiB)");
        let mut rng = fastrand::Rng::with_seed(seed);
        match self {
            Self::Random => {
                let next = sattolo_cycle(lines, seed);
                let mut order = Vec::with_capacity(lines);
                let mut at = 0u32;
                for _ in 0..lines {
                    order.push(at);
                    at = next[at as usize];
                }
                order
            }
            Self::Sequential => (0..lines as u32).collect(),
            Self::PageLocal => {
                let group = PAGE_LOCAL_PAGES * LINES_PER_PAGE;
                let mut groups: Vec<usize> = (0..lines.div_ceil(group)).collect();
                rng.shuffle(&mut groups);
                let mut order = Vec::with_capacity(lines);
                for g in groups {
                    let start = order.len();
                    order.extend((g * group..((g + 1) * group).min(lines)).map(|l| l as u32));
                    rng.shuffle(&mut order[start..]);
                }
                order
            }
            Self::PageStride => {
                let mut pages: Vec<usize> = (0..lines / LINES_PER_PAGE).collect();
                rng.shuffle(&mut pages);
                pages.into_iter().map(|p| (p * LINES_PER_PAGE + rng.usize(0..LINES_PER_PAGE)) as u32).collect()
            }
        }
    }
}

impl<'a> Ring<'a> {
    /// Writes a random cycle over `bytes / LINE_BYTES` lines of `buffer`, touching every line
    /// (so every page is really mapped before anything is timed).
    pub fn build(buffer: &'a mut [u8], bytes: u64, seed: u64) -> Result<Self, LadderError> {
        Self::build_pattern(buffer, bytes, seed, Pattern::Random)
    }

    /// Writes the cycle `pattern` gives over the first `bytes` of `buffer` (aligned to a line),
    /// touching every line of them, visited or not.
    pub fn build_pattern(buffer: &'a mut [u8], bytes: u64, seed: u64, pattern: Pattern) -> Result<Self, LadderError> {
        let span = usize::try_from(bytes / LINE_BYTES as u64).map_err(|_| LadderError::BufferTooShort)?;
        let smallest = if pattern == Pattern::PageStride { 2 * LINES_PER_PAGE } else { 2 };
        if span < smallest {
            return Err(LadderError::TooSmall(bytes));
        }
        let skip = buffer.as_ptr().align_offset(LINE_BYTES);
        let needed = span.checked_mul(LINE_BYTES).and_then(|n| n.checked_add(skip));
        if needed.is_none_or(|n| n > buffer.len()) {
            return Err(LadderError::BufferTooShort);
        }
        // The visiting order (and, for a random cycle, the successor table it is drawn from, alive
        // at the same time) are the ring's other large allocations, 8 bytes per line at most.
        // Reserved once first, fallibly: where memory is short (a browser's wasm32 heap) that is
        // an error to show; the infallible allocations below then reuse the space just freed.
        let mut room: Vec<u32> = Vec::new();
        room.try_reserve_exact(span.saturating_mul(2)).map_err(|_| {
            LadderError::Allocation(format!(
                "could not allocate {} for the ring's visiting order",
                crate::size::format_bytes(span as u64 * 8)
            ))
        })?;
        drop(room);
        let order = pattern.order(span, seed);
        // SAFETY: `skip + span * LINE_BYTES <= buffer.len()` was checked above, and every index of
        // `order` is below `span`, so every line start below is in bounds and aligned to
        // LINE_BYTES (hence to a pointer).
        unsafe {
            let base = buffer.as_mut_ptr().add(skip);
            let line = |i: u32| base.add(i as usize * LINE_BYTES);
            if order.len() < span {
                // Lines outside the cycle lead into it, so every line of the window is a valid
                // place to chase from (and every page is touched).
                for i in 0..span as u32 {
                    line(i).cast::<*const u8>().write(line(order[0]).cast_const());
                }
            }
            for (i, &from) in order.iter().enumerate() {
                let to = order[(i + 1) % order.len()];
                line(from).cast::<*const u8>().write(line(to).cast_const());
            }
            Ok(Self {
                base: base.cast_const(),
                span,
                lines: order.len(),
                first: line(order[0]).cast_const(),
                _buffer: core::marker::PhantomData,
            })
        }
    }

    /// Lines in the cycle.
    pub fn lines(&self) -> usize {
        self.lines
    }

    pub fn start(&self) -> Cursor {
        Cursor(self.first)
    }

    fn check(&self, at: Cursor) {
        let offset = (at.0 as usize).wrapping_sub(self.base as usize);
        assert!(offset < self.span * LINE_BYTES && offset.is_multiple_of(LINE_BYTES), "cursor from another ring");
    }

    /// Follows `hops` pointers from `from` and returns where it ended.
    pub fn chase(&self, from: Cursor, hops: u64) -> Cursor {
        self.check(from);
        // SAFETY: `from` is a line of this ring's window, and every line of the window points to
        // a line of the cycle (see `build_pattern`); the buffer is borrowed for the ring's
        // lifetime, so nothing else writes it.
        Cursor(unsafe { chase_raw(from.0, hops) })
    }

    /// Line indices in the order the chase visits them, from the start (for tests).
    pub fn order(&self) -> Vec<usize> {
        let mut seen = Vec::with_capacity(self.lines);
        let mut at = self.start();
        for _ in 0..self.lines {
            seen.push((at.0 as usize - self.base as usize) / LINE_BYTES);
            at = self.chase(at, 1);
        }
        seen
    }
}

/// A random cyclic permutation of `0..n`: `next[i]` follows `i`, and following `next` from any
/// line visits all `n` before returning (Sattolo's variant of Fisher-Yates: `j < i`, never `i`).
pub fn sattolo_cycle(n: usize, seed: u64) -> Vec<u32> {
    assert!(u32::try_from(n).is_ok(), "rings are limited to 2^32 lines (256 GiB)");
    let mut next: Vec<u32> = (0..n as u32).collect();
    let mut rng = fastrand::Rng::with_seed(seed);
    for i in (1..n).rev() {
        let j = rng.usize(0..i);
        next.swap(i, j);
    }
    next
}

/// The timed loop. One hop is one load whose address is the previous load's value; unrolling
/// keeps the loop counter out of the way (it runs beside the chain, not on it).
///
/// # Safety
/// `p` and every pointer reachable from it must point to a readable, pointer-aligned word
/// holding the next such pointer.
// Eight hops a line, so the unrolling reads at a glance (rustfmt would give each its own line).
#[rustfmt::skip]
#[inline(never)]
unsafe fn chase_raw(mut p: *const u8, hops: u64) -> *const u8 {
    macro_rules! hop {
        () => {
            // SAFETY: guaranteed by the caller for every pointer of the chain.
            p = unsafe { p.cast::<*const u8>().read() }
        };
    }
    let mut blocks = hops / 16;
    while blocks != 0 {
        hop!(); hop!(); hop!(); hop!(); hop!(); hop!(); hop!(); hop!();
        hop!(); hop!(); hop!(); hop!(); hop!(); hop!(); hop!(); hop!();
        blocks -= 1;
    }
    for _ in 0..hops % 16 {
        hop!();
    }
    p
}

/// The chase counts [`Ring::chase_chains`] accepts: powers of two, so each doubling's gain reads
/// directly off the curve.
pub const CHAIN_COUNTS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

impl Ring<'_> {
    /// `k` cursors spread evenly along the cycle: chased together, each stays `lines / k` hops
    /// behind the next, so between two visits of a line the chases touch the whole working set,
    /// exactly as one chase would.
    pub fn spread_starts(&self, k: usize) -> Vec<Cursor> {
        let k = k.clamp(1, self.lines);
        let gap = (self.lines / k) as u64;
        let mut at = self.start();
        let mut starts = Vec::with_capacity(k);
        for _ in 0..k {
            starts.push(at);
            at = self.chase(at, gap);
        }
        starts
    }

    /// Follows `hops` pointers from each of `cursors` at once (one hop of each in turn), so
    /// the CPU may overlap up to `cursors.len()` misses. The count must be one of
    /// [`CHAIN_COUNTS`]; returns false (and does nothing) otherwise.
    pub fn chase_chains(&self, cursors: &mut [Cursor], hops: u64) -> bool {
        for &c in cursors.iter() {
            self.check(c);
        }
        macro_rules! dispatch {
            ($($k:literal),*) => {
                match cursors.len() {
                    $($k => {
                        let mut p: [*const u8; $k] = core::array::from_fn(|i| cursors[i].0);
                        // SAFETY: every cursor is a line of this ring (checked above), and every
                        // line points to a line of the ring; the buffer is borrowed for the
                        // ring's lifetime.
                        unsafe { chase_many::<$k>(&mut p, hops) };
                        for (c, q) in cursors.iter_mut().zip(p) {
                            *c = Cursor(q);
                        }
                        true
                    })*
                    _ => false,
                }
            };
        }
        dispatch!(1, 2, 4, 8, 16, 32, 64)
    }
}

/// K chases in lockstep: K independent dependency chains, so up to K misses can be in flight.
///
/// # Safety
/// As [`chase_raw`], for every pointer of `p`.
#[inline(never)]
unsafe fn chase_many<const K: usize>(p: &mut [*const u8; K], hops: u64) {
    let mut q = *p;
    for _ in 0..hops {
        for c in q.iter_mut() {
            // SAFETY: guaranteed by the caller for every pointer of every chain.
            *c = unsafe { c.cast::<*const u8>().read() };
        }
    }
    *p = q;
}
