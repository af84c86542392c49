//! A lab for the tuned GROUP BY kernel's routes (issue 12): it times variants of the two phases
//! that tuned.rs is made of, in isolation, on the same keys, so the next attempt at a faster
//! kernel starts from figures rather than guesses. It is not part of any race.
//!
//! Times are this thread's CPU time (`/proc/thread-self/schedstat`, Linux only), not wall time:
//! on a shared machine a wall clock also counts the time other processes held the core, which
//! swamped the differences measured here. Caches are still shared, so compare variants within
//! one run, as ratios.
//!
//! ```sh
//! memwall generate --preset clickbench --out /tmp/keys.bin
//! cargo run --release -p memwall --example agg_lab -- /tmp/keys.bin scatter 12
//! cargo run --release -p memwall --example agg_lab -- /tmp/keys.bin aggregate 12 4
//! ```
//!
//! `scatter BITS`: the software write-combining scatter of tuned.rs into `2^BITS` partitions with
//! 1, 2, 4 and 8 lines of buffer per partition. `aggregate BITS LOAD_INVERSE`: the rows
//! scattered into `2^BITS` partitions, then each partition counted in a table `LOAD_INVERSE`
//! times its expected groups: tuned's linear probe; the home slot tried first, with the probe
//! loop out of line; the same without the probe loop (wrong
//! counts on collisions: a floor for timing only); with software prefetch 8 and 16 rows ahead;
//! and a two-choice cuckoo table whose choice is branch-free.
//!
//! `scatter-floors BITS`: the scatter with steps taken away (a histogram only; writes to the
//! write-combining buffers that are never flushed; the whole scatter). `floors BITS`: counting a partition with steps taken away (read and hash only; one `u32`
//! counter per hash; tuned's slot update without the probe loop; the whole probe), to see
//! what each step costs. `split BITS SPLIT_BITS LOAD_INVERSE`: each partition split again in
//! cache so that every piece's table fits L1, against one table a partition. `bucket BITS
//! LOAD_INVERSE`: buckets of four keys compared at once, branch-free, counts beside them or in
//! the same line, against tuned's linear probe. `simd BITS LOAD_INVERSE` (x86-64 with AVX-512):
//! buckets of eight keys compared in one instruction, written back whole or by lane.
//! `hashed-sort BITS`: each partition counting-sorted by the next hash bits into buckets of
//! about two groups, each bucket then counted by comparing keys (see `wide.rs`).

mod bucket;
mod floors;
mod split;
mod wide;

use memwall_core::arch::{Line, mix64, prefetch, stream_fence, stream_line};
use memwall_core::datagen;

fn hash(key: u64) -> u64 {
    mix64(key ^ 0x9e37_79b9_7f4a_7c15)
}

fn cpu_ns() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace().next().and_then(|ns| ns.parse().ok()).unwrap_or(f64::NAN)
}

/// `len` copies of `value` in transparent huge pages (as the kernels' scratch is), leaked.
fn huge<T: Copy>(len: usize, value: T) -> &'static mut [T] {
    const HUGE: usize = 2 << 20;
    let bytes = (len * size_of::<T>()).next_multiple_of(HUGE) + HUGE;
    let map = memmap2::MmapOptions::new().len(bytes).map_anon().expect("mmap");
    // A refused hint leaves small pages: slower, still correct.
    let _ = map.advise(memmap2::Advice::HugePage);
    let map = Box::leak(Box::new(map));
    let start = map.as_mut_ptr().align_offset(HUGE);
    let bytes = &mut map[start..start + len * size_of::<T>()];
    // SAFETY: `bytes` is within the leaked (never unmapped) mapping, aligned to 2 MiB (beyond
    // any `T`'s alignment), exclusively borrowed for 'static, and long enough for `len` values;
    // zeroed anonymous memory is overwritten by `fill` before anything reads it.
    let values = unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), len) };
    values.fill(value);
    values
}

struct Partitions {
    lines: &'static mut [Line],
    lines_each: usize,
    len: Vec<u32>,
}

impl Partitions {
    fn new(rows: usize, bits: u32) -> Self {
        let share = rows >> bits;
        // Room for a partition swollen by hot keys (the clickbench preset's hottest has 29,158).
        let words = (share + share / 2 + 65_536).next_multiple_of(64);
        Self { lines: huge((words / 8) << bits, Line::ZERO), lines_each: words / 8, len: vec![0; 1 << bits] }
    }

    fn rows(&self, p: usize) -> &[u64] {
        &Line::words(&self.lines[p * self.lines_each..])[..self.len[p] as usize]
    }

    /// tuned.rs's scatter with `L` lines of write-combining buffer a partition.
    fn scatter<const L: usize>(&mut self, keys: &[u64], bits: u32) {
        let mut pending = vec![[Line::ZERO; L]; 1 << bits];
        self.len.fill(0);
        for &key in keys {
            let p = (hash(key) >> (64 - bits)) as usize;
            let at = self.len[p] as usize;
            let word = at % (L * 8);
            pending[p][word / 8].0[word % 8] = key;
            self.len[p] += 1;
            if word == L * 8 - 1 {
                let first = p * self.lines_each + (at + 1 - L * 8) / 8;
                for (to, from) in self.lines[first..first + L].iter_mut().zip(&pending[p]) {
                    stream_line(to, from);
                }
            }
        }
        for (p, buffer) in pending.iter().enumerate() {
            let at = self.len[p] as usize;
            let filled = at % (L * 8);
            let start = p * self.lines_each * 8 + at - filled;
            Line::words_mut(self.lines)[start..start + filled].copy_from_slice(&Line::words(buffer)[..filled]);
        }
        stream_fence();
    }
}

type Scatter = fn(&mut Partitions, &[u64], u32);

/// Scatters `keys` into `2^bits` partitions as tuned does (4 lines of buffer each) for the
/// counting variants; returns the most rows one partition got.
fn scatter_for_counting(partitions: &mut Partitions, keys: &[u64], bits: u32) -> usize {
    partitions.scatter::<4>(keys, bits);
    (0..1 << bits).map(|p| partitions.rows(p).len()).max().unwrap_or(0)
}

/// The groups a table of one of `2^bits` pieces is sized for. The kernels size a partition's
/// table from the groups of the one before; here from the clickbench preset's keys (what the
/// lab is run on) shared evenly, plus 10%.
fn expected_groups(bits: u32) -> usize {
    let keys = datagen::preset("clickbench").map_or(0, |spec| spec.keys as usize);
    (keys >> bits) * 11 / 10
}
type Slot = (u64, u64);
/// Counts one partition's rows into `slots`; returns the slots it filled, listed in `filled`,
/// or `None` when it cannot list them (the table is then scanned).
type Variant = fn(&mut [Slot], &[u64], &mut [u32]) -> Option<usize>;

fn linear_probe(slots: &mut [Slot], rows: &[u64], filled: &mut [u32]) -> Option<usize> {
    let mask = slots.len() - 1;
    let mut fresh = 0;
    for &key in rows {
        let mut i = hash(key) as usize & mask;
        while (slots[i].0 != key) & (slots[i].1 != 0) {
            i = (i + 1) & mask;
        }
        fresh += record(&mut slots[i], key, i, filled, fresh);
    }
    Some(fresh)
}

/// tuned's table (4x the expected groups) and list of filled slots: the baseline each mode times
/// its variants against.
struct Baseline {
    slots: &'static mut [Slot],
    filled: &'static mut [u32],
}

impl Baseline {
    /// For partitions of at most `most` rows out of `2^bits`.
    fn new(bits: u32, most: usize) -> Self {
        Self { slots: huge((expected_groups(bits) * 4).next_power_of_two().max(1024), (0, 0)), filled: huge(most, 0) }
    }

    /// Counts every partition with tuned's linear probe, each emptied as tuned emits it: CPU
    /// ns/row and what it found.
    fn time(&mut self, partitions: &Partitions, bits: u32) -> (f64, Total) {
        let rows: usize = (0..1 << bits).map(|p| partitions.rows(p).len()).sum();
        let mut total = Total::default();
        let start = cpu_ns();
        for p in 0..1 << bits {
            let fresh = linear_probe(self.slots, partitions.rows(p), self.filled).unwrap_or(0);
            self.filled[..fresh].iter().for_each(|&i| total.add(std::mem::take(&mut self.slots[i as usize])));
        }
        ((cpu_ns() - start) / rows as f64, total)
    }

    /// Three rounds, the baseline and `candidate` taking turns: each one's CPU ns per row over
    /// `rows`, and what each found in its last round.
    fn against(
        &mut self,
        partitions: &Partitions,
        bits: u32,
        rows: f64,
        mut candidate: impl FnMut(&Partitions) -> Total,
    ) -> ([Vec<f64>; 2], [Total; 2]) {
        let mut samples = [Vec::new(), Vec::new()];
        let mut totals = [Total::default(), Total::default()];
        for _ in 0..3 {
            let (ns_per_row, total) = self.time(partitions, bits);
            samples[0].push(ns_per_row);
            totals[0] = total;
            let start = cpu_ns();
            totals[1] = candidate(partitions);
            samples[1].push((cpu_ns() - start) / rows);
        }
        (samples, totals)
    }
}

/// The linear probe with the home slot tried first, its store at an address known as soon as
/// the hash is: the probe loop only runs (out of line) when the home slot holds another key.
fn home_first(slots: &mut [Slot], rows: &[u64], filled: &mut [u32]) -> Option<usize> {
    let mask = slots.len() - 1;
    let mut fresh = 0;
    for &key in rows {
        let home = hash(key) as usize & mask;
        let at = slots[home];
        let i = if (at.0 == key) | (at.1 == 0) { home } else { probe_past(slots, key, home, mask) };
        fresh += record(&mut slots[i], key, i, filled, fresh);
    }
    Some(fresh)
}

#[inline(never)]
fn probe_past(slots: &[Slot], key: u64, home: usize, mask: usize) -> usize {
    let mut i = (home + 1) & mask;
    while (slots[i].0 != key) & (slots[i].1 != 0) {
        i = (i + 1) & mask;
    }
    i
}

fn no_probe_loop(slots: &mut [Slot], rows: &[u64], filled: &mut [u32]) -> Option<usize> {
    let mask = slots.len() - 1;
    let mut fresh = 0;
    for &key in rows {
        let i = hash(key) as usize & mask;
        fresh += record(&mut slots[i], key, i, filled, fresh);
    }
    Some(fresh)
}

fn prefetched<const AHEAD: usize>(slots: &mut [Slot], rows: &[u64], filled: &mut [u32]) -> Option<usize> {
    let mask = slots.len() - 1;
    let mut fresh = 0;
    for (r, &key) in rows.iter().enumerate() {
        if let Some(&ahead) = rows.get(r + AHEAD) {
            prefetch(&slots[hash(ahead) as usize & mask]);
        }
        let mut i = hash(key) as usize & mask;
        while (slots[i].0 != key) & (slots[i].1 != 0) {
            i = (i + 1) & mask;
        }
        fresh += record(&mut slots[i], key, i, filled, fresh);
    }
    Some(fresh)
}

#[inline(always)]
fn record(slot: &mut Slot, key: u64, i: usize, filled: &mut [u32], fresh: usize) -> usize {
    let new = slot.1 == 0;
    *slot = (key, slot.1 + 1);
    filled[fresh] = i as u32;
    usize::from(new)
}

/// The two places a key may be in the cuckoo table.
fn choices(key: u64, mask: usize) -> (usize, usize) {
    let h = hash(key);
    (h as usize & mask, (h >> 26) as usize & mask)
}

/// A key is in one of its two slots. Slots never empty (a displaced key takes another's place
/// at once), so an empty first choice means the key is nowhere yet: one branch-free pick.
fn cuckoo(slots: &mut [Slot], rows: &[u64], _: &mut [u32]) -> Option<usize> {
    let mask = slots.len() - 1;
    for &key in rows {
        let (one, two) = choices(key, mask);
        let (a, b) = (slots[one], slots[two]);
        let first = (a.0 == key) | (a.1 == 0);
        if !(first | (b.0 == key) | (b.1 == 0)) {
            displace(slots, key);
            continue;
        }
        let slot = &mut slots[if first { one } else { two }];
        *slot = (key, slot.1 + 1);
    }
    None
}

#[cold]
fn displace(slots: &mut [Slot], key: u64) {
    let mask = slots.len() - 1;
    let mut carried = (key, 1);
    let mut at = choices(key, mask).0;
    for _ in 0..10_000 {
        core::mem::swap(&mut slots[at], &mut carried);
        if carried.1 == 0 {
            return;
        }
        let (one, two) = choices(carried.0, mask);
        at = if at == one { two } else { one };
    }
    eprintln!("agg_lab: the cuckoo table is too full for these keys; use a larger LOAD_INVERSE");
    std::process::exit(1);
}

/// Groups, rows and an order-free checksum, as the kernels' results are compared.
#[derive(Debug, Default, PartialEq)]
struct Total(u64, u64, u64);

impl Total {
    fn add(&mut self, (key, count): Slot) {
        self.0 += 1;
        self.1 += count;
        self.2 = self.2.wrapping_add(mix64(mix64(key) ^ count.wrapping_mul(0xa409_3822_299f_31d1)));
    }
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: agg_lab KEYS.bin scatter BITS | agg_lab KEYS.bin aggregate BITS LOAD_INVERSE \
                 | agg_lab KEYS.bin split BITS SPLIT_BITS LOAD_INVERSE | agg_lab KEYS.bin simd BITS LOAD_INVERSE \
                 | agg_lab KEYS.bin hashed-sort BITS (and floors, scatter-floors, bucket)";
    let number = |i: usize| -> usize { args.get(i).and_then(|a| a.parse().ok()).unwrap_or_else(|| panic!("{usage}")) };
    let bytes = std::fs::read(args.first().expect(usage)).expect("read KEYS.bin");
    let keys: Vec<u64> = bytes.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().unwrap())).collect();
    let bits = number(2) as u32;
    assert!((1..=16).contains(&bits), "BITS from 1 to 16");
    let mut partitions = Partitions::new(keys.len(), bits);
    match args.get(1).map(String::as_str) {
        Some("scatter") => scatter_lines(&mut partitions, &keys, bits),
        Some("aggregate") => probe_variants(&mut partitions, &keys, bits, number(3)),
        Some("scatter-floors") => floors::scatter_floors(&mut partitions, &keys, bits),
        Some("floors") => floors::floors(&mut partitions, &keys, bits),
        Some("bucket") => bucket::bucketed_table(&mut partitions, &keys, bits, number(3)),
        Some("split") => split::split_then_count(&mut partitions, &keys, bits, number(3) as u32, number(4)),
        Some("simd") => wide::simd(&mut partitions, &keys, bits, number(3)),
        Some("hashed-sort") => wide::hashed_sort(&mut partitions, &keys, bits),
        _ => panic!("{usage}"),
    }
}

/// `scatter BITS`: the scatter with 1, 2, 4 and 8 lines of buffer per partition.
fn scatter_lines(partitions: &mut Partitions, keys: &[u64], bits: u32) {
    let rows = keys.len() as f64;
    let variants: [(usize, Scatter); 4] = [
        (1, Partitions::scatter::<1>),
        (2, Partitions::scatter::<2>),
        (4, Partitions::scatter::<4>),
        (8, Partitions::scatter::<8>),
    ];
    let mut samples = vec![Vec::new(); variants.len()];
    for _ in 0..3 {
        for ((_, scatter), samples) in variants.iter().zip(&mut samples) {
            let start = cpu_ns();
            scatter(partitions, keys, bits);
            samples.push((cpu_ns() - start) / rows);
        }
    }
    for ((lines, _), samples) in variants.iter().zip(samples) {
        println!("scatter into 2^{bits} partitions, {lines} lines of buffer each: {:.2} ns/row", median(samples));
    }
}

/// `aggregate BITS LOAD_INVERSE`: each partition counted by every probe variant, checked against
/// the linear probe.
fn probe_variants(partitions: &mut Partitions, keys: &[u64], bits: u32, load_inverse: usize) {
    let rows = keys.len() as f64;
    let most = scatter_for_counting(partitions, keys, bits);
    let groups = expected_groups(bits);
    let slots = huge((groups * load_inverse).next_power_of_two().max(1024), (0u64, 0u64));
    let filled = huge(most, 0u32);
    let variants: [(&str, Variant); 6] = [
        ("linear probe (tuned.rs)", linear_probe),
        ("home slot first, probe out of line", home_first),
        ("no probe loop (wrong on collisions: a floor)", no_probe_loop),
        ("prefetch 8 rows ahead", prefetched::<8>),
        ("prefetch 16 rows ahead", prefetched::<16>),
        ("two-choice cuckoo", cuckoo),
    ];
    let mut samples = vec![Vec::new(); variants.len()];
    let mut totals: Vec<Total> = variants.iter().map(|_| Total::default()).collect();
    for _ in 0..3 {
        for (v, (_, count)) in variants.iter().enumerate() {
            let mut total = Total::default();
            let start = cpu_ns();
            for p in 0..1 << bits {
                match count(slots, partitions.rows(p), filled) {
                    Some(fresh) => filled[..fresh].iter().for_each(|&i| {
                        total.add(std::mem::take(&mut slots[i as usize]));
                    }),
                    None => slots.iter_mut().filter(|s| s.1 != 0).for_each(|s| total.add(std::mem::take(s))),
                }
            }
            samples[v].push((cpu_ns() - start) / rows);
            totals[v] = total;
        }
    }
    println!(
        "2^{bits} partitions, tables of {} KiB ({load_inverse}x the mean groups), count and emit:",
        (slots.len() * 16) >> 10
    );
    for (v, ((name, _), samples)) in variants.iter().zip(samples).enumerate() {
        let agrees = if totals[v] == totals[0] { "agrees" } else { "DIFFERS from the linear probe" };
        println!("  {name}: {:.2} ns/row ({agrees})", median(samples));
    }
}
