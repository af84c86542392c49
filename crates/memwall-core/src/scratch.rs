//! Where every kernel's scratch memory comes from, under one policy for all of them.
//!
//! A race is only fair if every kernel pays the same memory costs. So no kernel allocates on its
//! own: hashbrown's tables (through its allocator support), radix's partition vectors, tuned's
//! partition buffer and tables, the prefetching table, all come from one [`Scratch`] per race,
//! which takes large regions ([`Chunk`]s) from the front end's [`ChunkSource`] (huge-page
//! mappings natively, the wasm heap in a browser) and hands out blocks of them.
//!
//! Under [`MemoryPolicy::Warm`] the regions stay mapped from run to run and are handed out again
//! from the start, as a long-running engine's allocator would: a timed run touches memory that an
//! earlier run already faulted in. Under [`MemoryPolicy::Cold`] the regions are returned between
//! runs, and each run maps and faults what it uses inside its timer, as a one-off query does.
//!
//! Within a run, freed blocks are kept on free lists by size class and handed out again (radix's
//! vectors, growing by doubling, reuse each other's old buffers as a malloc would). Sizes are
//! rounded up to classes a quarter of a power of two apart, so a reused block wastes at most a
//! fifth of itself, and only in address space: pages nobody writes are never faulted.

use core::alloc::Layout;
use core::ptr::NonNull;
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use allocator_api2::alloc::{AllocError, Allocator};

use crate::arch::Line;

/// Whether scratch memory is reused, already faulted in, from one run to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryPolicy {
    /// One pool, kept between runs: runs after the first touch memory that is already mapped.
    Warm,
    /// Every run maps and faults its scratch inside its timer.
    Cold,
}

impl MemoryPolicy {
    pub const ALL: [MemoryPolicy; 2] = [MemoryPolicy::Warm, MemoryPolicy::Cold];

    pub fn name(self) -> &'static str {
        match self {
            Self::Warm => "warm",
            Self::Cold => "cold",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }

    /// What the policy means, for help texts, tables and the page.
    pub fn description(self) -> &'static str {
        match self {
            Self::Warm => "scratch reused from run to run, already faulted in (a long-running engine's pool)",
            Self::Cold => "every run maps and faults its scratch inside the timer (a one-off query)",
        }
    }
}

/// Scratch memory ran out: why, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OutOfScratch(pub String);

/// A region of memory from the front end: mapped natively, a heap block in a browser.
pub trait Chunk: Send {
    /// The whole region: at least 64-byte aligned, its contents initialized (to anything). The
    /// slice must stay at the same address for the chunk's life.
    fn bytes(&mut self) -> &mut [u8];
    /// Bytes of the region the OS backs with huge pages right now, where that can be known.
    fn huge_page_bytes(&self) -> Option<u64> {
        None
    }
}

/// Where [`Scratch`] gets its regions.
pub trait ChunkSource: Sync {
    /// A new region of at least `bytes` bytes.
    fn map(&self, bytes: usize) -> Result<Box<dyn Chunk>, String>;
}

/// Regions from the global allocator: the browser's only choice, and the tests'.
///
/// Allocated zeroed, so that every byte is initialized: fresh wasm memory is zero already (the
/// allocator then skips the memset), reused memory is cleared, which is the browser's
/// counterpart of a page fault's clearing.
#[derive(Debug, Default, Clone, Copy)]
pub struct HeapChunks;

impl Chunk for Vec<Line> {
    fn bytes(&mut self) -> &mut [u8] {
        let words = Line::words_mut(self);
        // SAFETY: `words` is an exclusive borrow of initialized u64s; u8 has no alignment or
        // validity requirement, and the length in bytes is exactly 8 per word.
        unsafe { core::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8) }
    }
}

impl ChunkSource for HeapChunks {
    fn map(&self, bytes: usize) -> Result<Box<dyn Chunk>, String> {
        let lines = bytes.div_ceil(size_of::<Line>());
        let mut chunk: Vec<Line> = Vec::new();
        chunk
            .try_reserve_exact(lines)
            .map_err(|_| format!("could not allocate {}", crate::size::format_bytes(bytes as u64)))?;
        chunk.resize(lines, Line::ZERO);
        Ok(Box::new(chunk))
    }
}

/// What one run took from its [`Scratch`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunMemory {
    /// The most bytes held at once by the kernel (what it really uses: blocks as asked for,
    /// before rounding to a size class).
    pub peak_bytes: u64,
    /// Bytes of the regions the run handed out as blocks (sizes rounded to their class): an
    /// upper bound of the scratch memory the run touched.
    pub carved_bytes: u64,
    /// Bytes of regions mapped during the run, which the run faulted in inside its timer.
    pub mapped_in_run_bytes: u64,
    /// Bytes of all regions the pool held at the end of the run.
    pub pool_bytes: u64,
    /// Of `pool_bytes`, those backed by huge pages, where the front end can tell.
    pub huge_page_bytes: Option<u64>,
}

impl RunMemory {
    /// Share of the pool on huge pages, 0 to 1.
    pub fn huge_page_share(&self) -> Option<f64> {
        let huge = self.huge_page_bytes?;
        (self.pool_bytes > 0).then(|| (huge as f64 / self.pool_bytes as f64).min(1.0))
    }
}

/// The smallest region asked of the source: small inputs need little, and each map is a
/// system call natively.
const MIN_CHUNK_BYTES: usize = 1 << 20;
/// Blocks are aligned to a cache line; no kernel asks for more.
const BLOCK_ALIGN: usize = 64;
/// Size classes per doubling (see the module docs).
const CLASSES_PER_DOUBLING: u32 = 4;

struct Region {
    chunk: Box<dyn Chunk>,
    base: NonNull<u8>,
    len: usize,
}

// SAFETY: `base` points into `chunk`, which is `Send`; the pointer is only a cached address.
unsafe impl Send for Region {}

#[derive(Default)]
struct Pool {
    regions: Vec<Region>,
    /// The region blocks are carved from now, and how far it is used.
    current: usize,
    offset: usize,
    /// Freed blocks by class size.
    free: BTreeMap<usize, Vec<NonNull<u8>>>,
    held_bytes: u64,
    peak_bytes: u64,
    carved_bytes: u64,
    mapped_in_run_bytes: u64,
    error: Option<String>,
}

// SAFETY: the free lists hold addresses of blocks inside `regions`, which are `Send`.
unsafe impl Send for Pool {}

/// One race's scratch memory. Blocks handed out during a run stay valid until the next
/// [`Scratch::begin_run`], which needs `&mut self`, so no block can outlive its run.
pub struct Scratch<'s> {
    source: &'s dyn ChunkSource,
    policy: MemoryPolicy,
    pool: Mutex<Pool>,
}

impl core::fmt::Debug for Scratch<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scratch").field("policy", &self.policy).finish_non_exhaustive()
    }
}

impl<'s> Scratch<'s> {
    pub fn new(source: &'s dyn ChunkSource, policy: MemoryPolicy) -> Self {
        Self { source, policy, pool: Mutex::new(Pool::default()) }
    }

    fn pool(&self) -> MutexGuard<'_, Pool> {
        // A kernel that panicked aborts the run; the pool's bookkeeping is still whole.
        self.pool.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts a run: every block of the last run is given back, and under the cold policy every
    /// region too.
    pub fn begin_run(&mut self) {
        let pool = self.pool.get_mut().unwrap_or_else(PoisonError::into_inner);
        if self.policy == MemoryPolicy::Cold {
            pool.regions.clear();
        }
        pool.current = 0;
        pool.offset = 0;
        pool.free.clear();
        pool.held_bytes = 0;
        pool.peak_bytes = 0;
        pool.carved_bytes = 0;
        pool.mapped_in_run_bytes = 0;
        pool.error = None;
    }

    /// What the run since [`Scratch::begin_run`] took.
    pub fn run_memory(&mut self) -> RunMemory {
        let pool = self.pool.get_mut().unwrap_or_else(PoisonError::into_inner);
        let huge = pool.regions.iter().map(|r| r.chunk.huge_page_bytes().map(|h| h.min(r.len as u64))).sum();
        RunMemory {
            peak_bytes: pool.peak_bytes,
            carved_bytes: pool.carved_bytes,
            mapped_in_run_bytes: pool.mapped_in_run_bytes,
            pool_bytes: pool.regions.iter().map(|r| r.len as u64).sum(),
            huge_page_bytes: huge,
        }
    }

    /// Why the last failed allocation failed (the source's message), for an error a person reads.
    pub fn last_error(&self) -> Option<String> {
        self.pool().error.clone()
    }

    /// An allocator over this scratch, for hashbrown's tables and `Vec`s.
    pub fn alloc(&self) -> ScratchAlloc<'_, 's> {
        ScratchAlloc { scratch: self }
    }

    /// `lines` cache lines, contents unspecified (kernels that need zeros write them).
    // A shared borrow hands out exclusive slices because each block goes to one caller only:
    // the pool is an allocator, and `begin_run`, the only way to get blocks back, needs `&mut`.
    #[allow(clippy::mut_from_ref)]
    pub fn lines(&self, lines: usize) -> Result<&mut [Line], OutOfScratch> {
        let layout = Layout::array::<Line>(lines).map_err(|_| self.allocation_error(lines))?;
        if layout.size() == 0 {
            return Ok(&mut []);
        }
        let block = self.allocate(layout).ok_or_else(|| self.allocation_error(lines))?;
        // SAFETY: the block is `lines * 64` bytes, 64-byte aligned, initialized (chunks are),
        // inside a region that lives until `begin_run` (which needs `&mut self`, so not while
        // this borrow lives), and handed out to no one else until it is given back, which only
        // `begin_run` does for blocks from here.
        Ok(unsafe { core::slice::from_raw_parts_mut(block.as_ptr().cast::<Line>(), lines) })
    }

    fn allocation_error(&self, lines: usize) -> OutOfScratch {
        let wanted = crate::size::format_bytes((lines as u64).saturating_mul(64));
        OutOfScratch(match self.last_error() {
            Some(why) => format!("scratch memory ({wanted}): {why}"),
            None => format!("scratch memory: cannot allocate {wanted}"),
        })
    }

    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        if layout.align() > BLOCK_ALIGN {
            return None;
        }
        let class = size_class(layout.size())?;
        let mut pool = self.pool();
        let block = match pool.free.get_mut(&class).and_then(Vec::pop) {
            Some(block) => block,
            None => self.carve(&mut pool, class)?,
        };
        pool.held_bytes += layout.size() as u64;
        pool.peak_bytes = pool.peak_bytes.max(pool.held_bytes);
        Some(block)
    }

    /// A new block of `size` bytes from the regions, mapping another if none has room.
    fn carve(&self, pool: &mut Pool, size: usize) -> Option<NonNull<u8>> {
        loop {
            if let Some(region) = pool.regions.get(pool.current) {
                if region.len - pool.offset >= size {
                    // SAFETY: `offset + size <= len`, so the block lies inside the region.
                    let block = unsafe { region.base.add(pool.offset) };
                    pool.offset += size;
                    pool.carved_bytes += size as u64;
                    return Some(block);
                }
                // Warm regions from earlier runs are reused in order before anything new.
                if pool.current + 1 < pool.regions.len() {
                    pool.current += 1;
                    pool.offset = 0;
                    continue;
                }
            }
            // Regions grow with the pool, so a big run maps few of them, at worst twice what
            // it needs in address space.
            let mapped: usize = pool.regions.iter().map(|r| r.len).sum();
            let bytes = size.max(mapped).max(MIN_CHUNK_BYTES);
            let mut chunk = match self.source.map(bytes) {
                Ok(chunk) => chunk,
                Err(why) => {
                    pool.error = Some(why);
                    return None;
                }
            };
            let slice = chunk.bytes();
            let (base, len) = (NonNull::new(slice.as_mut_ptr())?, slice.len());
            if len < size || base.as_ptr().align_offset(BLOCK_ALIGN) != 0 {
                pool.error =
                    Some(format!("the front end handed out a region smaller or less aligned than asked ({len} bytes)"));
                return None;
            }
            pool.mapped_in_run_bytes += len as u64;
            pool.regions.push(Region { chunk, base, len });
            pool.current = pool.regions.len() - 1;
            pool.offset = 0;
        }
    }

    /// # Safety
    /// `block` came from `allocate` with this `layout`, in this run, and is not used again.
    unsafe fn deallocate(&self, block: NonNull<u8>, layout: Layout) {
        let Some(class) = size_class(layout.size()) else { return };
        let mut pool = self.pool();
        pool.free.entry(class).or_default().push(block);
        pool.held_bytes -= layout.size() as u64;
    }
}

/// The size a block of `size` bytes is rounded up to: multiples of 64 up to 256, then
/// [`CLASSES_PER_DOUBLING`] sizes per doubling up to 4 MiB, then whole MiB (a quarter at most
/// of such a block). `None` for sizes too large to be real.
fn size_class(size: usize) -> Option<usize> {
    let size = size.max(1);
    if size <= 4 * BLOCK_ALIGN {
        return Some(size.next_multiple_of(BLOCK_ALIGN));
    }
    let class = if size > 4 << 20 {
        size.checked_next_multiple_of(1 << 20)?
    } else {
        let power = usize::BITS - 1 - (size - 1).leading_zeros();
        let step = 1usize << (power - CLASSES_PER_DOUBLING.trailing_zeros());
        size.next_multiple_of(step)
    };
    (class <= isize::MAX as usize / 2).then_some(class)
}

/// An upper bound of the scratch that blocks of `bytes` in all take: each rounded up to its size
/// class (a quarter more at most, see [`size_class`]), and a line more for the small ones.
pub fn rounded(bytes: u64) -> u64 {
    bytes.saturating_mul(5) / 4 + (1 << 20)
}

/// An upper bound of the scratch that `blocks` blocks of `bytes_each` bytes take: each rounded up
/// to its size class (a quarter more at most, and never less than a line, see [`size_class`]).
/// Many small blocks are bounded here, not by [`rounded`] once each (whose slack is for one).
pub fn rounded_each(blocks: u64, bytes_each: u64) -> u64 {
    blocks.saturating_mul(bytes_each.saturating_mul(5) / 4 + BLOCK_ALIGN as u64)
}

/// [`Scratch`] as an allocator, for `hashbrown` and `allocator_api2::vec::Vec`.
#[derive(Clone, Copy)]
pub struct ScratchAlloc<'a, 's> {
    scratch: &'a Scratch<'s>,
}

impl core::fmt::Debug for ScratchAlloc<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ScratchAlloc")
    }
}

// SAFETY: blocks are valid for their layout (size rounded up, 64-byte aligned) until they are
// deallocated or the run ends; `begin_run` takes `&mut Scratch`, which cannot happen while an
// allocator (a shared borrow) or anything allocated through it is alive. Copies of the
// allocator share the pool, so any of them may free a block.
unsafe impl Allocator for ScratchAlloc<'_, '_> {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        if layout.size() == 0 {
            // A dangling, aligned pointer, as the global allocator's contract allows for ZSTs.
            let dangling = NonNull::new(layout.align() as *mut u8).ok_or(AllocError)?;
            return Ok(NonNull::slice_from_raw_parts(dangling, 0));
        }
        let block = self.scratch.allocate(layout).ok_or(AllocError)?;
        Ok(NonNull::slice_from_raw_parts(block, layout.size()))
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        if layout.size() != 0 {
            // SAFETY: forwarded from the caller's contract.
            unsafe { self.scratch.deallocate(ptr, layout) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_are_tight_and_ordered() {
        assert_eq!(size_class(1), Some(64));
        assert_eq!(size_class(64), Some(64));
        assert_eq!(size_class(65), Some(128));
        assert_eq!(size_class(257), Some(320));
        assert_eq!(size_class(513), Some(640));
        assert_eq!(size_class((4 << 20) + 1), Some(5 << 20));
        let mut last = 0;
        for size in (1..100_000).step_by(7).chain([1 << 20, (1 << 20) + 1, 3 << 30, (3 << 30) + 1]) {
            let class = size_class(size).unwrap();
            assert!(class >= size && class.is_multiple_of(64), "{size}");
            assert!(class <= size.max(256) * 5 / 4, "{size}: {class}");
            assert!(class >= last, "classes grow with sizes");
            assert_eq!(size_class(class), Some(class), "a class size is its own class");
            last = class;
        }
        assert_eq!(size_class(usize::MAX), None);
    }

    #[test]
    fn blocks_are_disjoint_reused_and_counted() {
        let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Warm);
        scratch.begin_run();
        let alloc = scratch.alloc();
        let a = alloc.allocate(Layout::from_size_align(1000, 8).unwrap()).unwrap();
        let b = alloc.allocate(Layout::from_size_align(1000, 64).unwrap()).unwrap();
        let (a, b) = (a.cast::<u8>().as_ptr() as usize, b.cast::<u8>().as_ptr() as usize);
        assert!(a.abs_diff(b) >= 1000 && a % 64 == 0 && b % 64 == 0);
        // SAFETY: `a` came from this allocator with this layout and is not used again.
        unsafe { alloc.deallocate(NonNull::new(a as *mut u8).unwrap(), Layout::from_size_align(1000, 8).unwrap()) };
        let c = alloc.allocate(Layout::from_size_align(900, 8).unwrap()).unwrap();
        assert_eq!(c.cast::<u8>().as_ptr() as usize, a, "a freed block of the same class is reused");
        let memory = scratch.run_memory();
        assert_eq!(memory.peak_bytes, 2000);
        assert_eq!(memory.carved_bytes, 2 * 1024);
        assert_eq!(memory.mapped_in_run_bytes, MIN_CHUNK_BYTES as u64);
        assert_eq!(memory.huge_page_bytes, None);
    }

    #[test]
    fn warm_keeps_regions_and_cold_maps_them_again() {
        for policy in MemoryPolicy::ALL {
            let mut scratch = Scratch::new(&HeapChunks, policy);
            let mut first = None;
            for run in 0..3 {
                scratch.begin_run();
                let lines = scratch.lines(100_000).unwrap();
                lines[99_999] = Line([run; 8]);
                let address = lines.as_ptr() as usize;
                let memory = scratch.run_memory();
                assert_eq!(memory.peak_bytes, 6_400_000);
                match (policy, run) {
                    (_, 0) | (MemoryPolicy::Cold, _) => assert!(memory.mapped_in_run_bytes >= 6_400_000),
                    (MemoryPolicy::Warm, _) => {
                        assert_eq!(memory.mapped_in_run_bytes, 0, "run {run} reuses the pool");
                        assert_eq!(Some(address), first, "and the same block of it");
                    }
                }
                first.get_or_insert(address);
            }
        }
    }

    #[test]
    fn hashbrown_and_vec_live_in_scratch() {
        let mut scratch = Scratch::new(&HeapChunks, MemoryPolicy::Cold);
        scratch.begin_run();
        let mut map = hashbrown::HashMap::with_hasher_in(ahash::RandomState::with_seeds(1, 2, 3, 4), scratch.alloc());
        let mut vec = allocator_api2::vec::Vec::new_in(scratch.alloc());
        for key in 0..50_000i64 {
            *map.entry(key % 20_000).or_insert(0u64) += 1;
            vec.push(key);
        }
        assert_eq!(map.len(), 20_000);
        assert_eq!(map[&7], 3);
        assert_eq!(vec.iter().sum::<i64>(), 50_000 * 49_999 / 2);
        drop((map, vec));
        let memory = scratch.run_memory();
        // 20,000 groups of 16 bytes in at least 2^15 buckets, and 50,000 keys of 8 bytes.
        assert!(memory.peak_bytes >= (1 << 15) * 17 + 400_000, "{memory:?}");
    }

    struct Refusing;
    impl ChunkSource for Refusing {
        fn map(&self, bytes: usize) -> Result<Box<dyn Chunk>, String> {
            Err(format!("no {bytes} bytes today"))
        }
    }

    #[test]
    fn a_refused_region_is_an_error_that_says_why() {
        let scratch = Scratch::new(&Refusing, MemoryPolicy::Warm);
        let error = scratch.lines(10).unwrap_err().to_string();
        assert!(error.contains("no 1048576 bytes today") && error.contains("640 B"), "{error}");
        assert!(scratch.alloc().allocate(Layout::new::<u64>()).is_err());
        assert!(scratch.lines(0).unwrap().is_empty());
    }
}
