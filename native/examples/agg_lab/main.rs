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
    let rows = keys.len() as f64;
    let bits = number(2) as u32;
    assert!((1..=16).contains(&bits), "BITS from 1 to 16");
    let mut partitions = Partitions::new(keys.len(), bits);
    match args.get(1).map(String::as_str) {
        Some("scatter") => {
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
                    scatter(&mut partitions, &keys, bits);
                    samples.push((cpu_ns() - start) / rows);
                }
            }
            for ((lines, _), samples) in variants.iter().zip(samples) {
                println!(
                    "scatter into 2^{bits} partitions, {lines} lines of buffer each: {:.2} ns/row",
                    median(samples)
                );
            }
        }
        Some("aggregate") => {
            let load_inverse = number(3);
            let most = scatter_for_counting(&mut partitions, &keys, bits);
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
        Some("scatter-floors") => scatter_floors(&mut partitions, &keys, bits),
        Some("floors") => floors(&mut partitions, &keys, bits),
        Some("bucket") => bucketed_table(&mut partitions, &keys, bits, number(3)),
        Some("split") => split_then_count(&mut partitions, &keys, bits, number(3) as u32, number(4)),
        Some("simd") => wide::simd(&mut partitions, &keys, bits, number(3)),
        Some("hashed-sort") => wide::hashed_sort(&mut partitions, &keys, bits),
        _ => panic!("{usage}"),
    }
}

/// Splits one partition's rows by the `split` hash bits below the partition's `bits` into
/// `out` (pieces back to back), in two passes over the partition: the first hashes each row
/// once, noting its piece and counting the pieces; the second copies. Returns the pieces' ends.
fn split_partition(rows: &[u64], bits: u32, split: u32, piece_of: &mut [u16], out: &mut [u64], ends: &mut Vec<usize>) {
    let pieces = 1usize << split;
    let mut starts = vec![0usize; pieces + 1];
    for (&key, piece) in rows.iter().zip(piece_of.iter_mut()) {
        let p = ((hash(key) << bits) >> (64 - split)) as usize;
        *piece = p as u16;
        starts[p + 1] += 1;
    }
    for p in 0..pieces {
        starts[p + 1] += starts[p];
    }
    ends.clear();
    ends.extend_from_slice(&starts[1..]);
    for (&key, &p) in rows.iter().zip(piece_of.iter()) {
        out[starts[p as usize]] = key;
        starts[p as usize] += 1;
    }
}

/// The route of a second partitioning pass in cache: each scattered partition split further by
/// `split` bits, so that every piece's table fits L1, then counted; against counting the whole
/// partition in one L2-sized table (tuned.rs today).
fn split_then_count(partitions: &mut Partitions, keys: &[u64], bits: u32, split: u32, load_inverse: usize) {
    assert!((1..=8).contains(&split), "SPLIT_BITS from 1 to 8");
    let rows = keys.len() as f64;
    let most = scatter_for_counting(partitions, keys, bits);
    let piece_groups = expected_groups(bits + split);
    let mut baseline = Baseline::new(bits, most);
    let small = huge((piece_groups * load_inverse).next_power_of_two().max(64), (0u64, 0u64));
    let filled = huge(most, 0u32);
    let piece_of = huge(most, 0u16);
    let out = huge(most, 0u64);
    let mut ends = Vec::new();
    let mut samples = [Vec::new(), Vec::new(), Vec::new()];
    let mut totals = [Total::default(), Total::default(), Total::default()];
    for _ in 0..3 {
        let (ns_per_row, total) = baseline.time(partitions, bits);
        samples[0].push(ns_per_row);
        totals[0] = total;

        let start = cpu_ns();
        for p in 0..1 << bits {
            let part = partitions.rows(p);
            split_partition(part, bits, split, piece_of, out, &mut ends);
        }
        samples[1].push((cpu_ns() - start) / rows);

        let mut total = Total::default();
        let start = cpu_ns();
        for p in 0..1 << bits {
            let part = partitions.rows(p);
            split_partition(part, bits, split, piece_of, out, &mut ends);
            let mut from = 0;
            for &end in &ends {
                let fresh = linear_probe(small, &out[from..end], filled).unwrap_or(0);
                filled[..fresh].iter().for_each(|&i| total.add(std::mem::take(&mut small[i as usize])));
                from = end;
            }
        }
        samples[2].push((cpu_ns() - start) / rows);
        totals[2] = total;
    }
    let [whole, split_only, both] = samples.map(median);
    println!("2^{bits} partitions, count and emit:");
    println!("  one table a partition ({} KiB, 4x its groups): {whole:.2} ns/row", (baseline.slots.len() * 16) >> 10);
    println!(
        "  split by {split} more bits in cache, then a table a piece ({} KiB, {load_inverse}x its groups): {both:.2} ns/row \
         (the split alone {split_only:.2}; {})",
        (small.len() * 16) >> 10,
        if totals[2] == totals[0] { "agrees" } else { "DIFFERS" }
    );
}

/// What each step of counting a partition costs, by taking steps away: reading and hashing
/// every row only; adding one to a counter per row (no keys); tuned's slot update without the
/// probe loop; the whole linear probe.
fn floors(partitions: &mut Partitions, keys: &[u64], bits: u32) {
    let rows = keys.len() as f64;
    let most = scatter_for_counting(partitions, keys, bits);
    let groups = expected_groups(bits);
    let slots = huge((groups * 4).next_power_of_two().max(1024), (0u64, 0u64));
    let counters = huge(slots.len(), 0u32);
    let filled = huge(most, 0u32);
    let mask = slots.len() - 1;
    let mut samples = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let mut sink = 0u64;
    for _ in 0..3 {
        let start = cpu_ns();
        for p in 0..1 << bits {
            sink = partitions.rows(p).iter().fold(sink, |acc, &key| acc ^ hash(key));
        }
        samples[0].push((cpu_ns() - start) / rows);

        let start = cpu_ns();
        for p in 0..1 << bits {
            for &key in partitions.rows(p) {
                counters[hash(key) as usize & mask] += 1;
            }
        }
        samples[1].push((cpu_ns() - start) / rows);
        counters.fill(0);

        let start = cpu_ns();
        for p in 0..1 << bits {
            let fresh = no_probe_loop(slots, partitions.rows(p), filled).unwrap_or(0);
            filled[..fresh].iter().for_each(|&i| slots[i as usize] = (0, 0));
        }
        samples[2].push((cpu_ns() - start) / rows);

        let start = cpu_ns();
        for p in 0..1 << bits {
            let fresh = linear_probe(slots, partitions.rows(p), filled).unwrap_or(0);
            filled[..fresh].iter().for_each(|&i| slots[i as usize] = (0, 0));
        }
        samples[3].push((cpu_ns() - start) / rows);
    }
    println!("2^{bits} partitions, tables of {} KiB (sink {sink}):", (slots.len() * 16) >> 10);
    let names = [
        "read and hash",
        "+1 on a u32 counter by hash",
        "slot update, no probe loop",
        "linear probe",
        "linear probe again",
    ];
    for (name, samples) in names.iter().zip(samples) {
        println!("  {name}: {:.2} ns/row", median(samples));
    }
}

/// The key no row is taken to have in a bucketed table: its empty lanes hold it. A row that does
/// have it is counted apart (a branch that is predicted right unless such rows are mixed in).
const VACANT: u64 = 0x8000_0000_0000_0001;
const LANES: usize = 4;

/// Counts `rows` in a table of buckets of [`LANES`] keys (`keys`, `counts` beside them), lanes
/// filling in order: a row's lane is the first holding its key or vacant, found by comparing
/// all lanes at once with no branch; only a full bucket (rare) moves on to the next one.
fn bucketed(keys: &mut [u64], counts: &mut [u64], rows: &[u64], filled: &mut [u32], vacant_rows: &mut u64) -> usize {
    let mask = keys.len() / LANES - 1;
    let mut fresh = 0;
    for &key in rows {
        if key == VACANT {
            *vacant_rows += 1;
            continue;
        }
        let mut bucket = hash(key) as usize & mask;
        let (lane, at) = loop {
            let lanes: &[u64; LANES] = keys[bucket * LANES..][..LANES].try_into().unwrap();
            let mut hits = 0u32;
            for (l, &k) in lanes.iter().enumerate() {
                hits |= u32::from((k == key) | (k == VACANT)) << l;
            }
            if hits != 0 {
                break (hits.trailing_zeros() as usize, bucket * LANES);
            }
            bucket = (bucket + 1) & mask;
        };
        let i = at + lane;
        let new = keys[i] == VACANT;
        keys[i] = key;
        counts[i] += 1;
        filled[fresh] = i as u32;
        fresh += usize::from(new);
    }
    fresh
}

fn bucketed_table(partitions: &mut Partitions, keys: &[u64], bits: u32, load_inverse: usize) {
    let rows = keys.len() as f64;
    let most = scatter_for_counting(partitions, keys, bits);
    let groups = expected_groups(bits);
    let mut baseline = Baseline::new(bits, most);
    let lanes = (groups * load_inverse).next_power_of_two().max(64);
    let table_keys = huge(lanes, VACANT);
    let counts = huge(lanes, 0u64);
    let filled = huge(most, 0u32);
    let mut samples = [Vec::new(), Vec::new()];
    let mut totals = [Total::default(), Total::default()];
    for _ in 0..3 {
        let (ns_per_row, total) = baseline.time(partitions, bits);
        samples[0].push(ns_per_row);
        totals[0] = total;

        let mut total = Total::default();
        let mut vacant_rows = 0;
        let start = cpu_ns();
        for p in 0..1 << bits {
            let fresh = bucketed(table_keys, counts, partitions.rows(p), filled, &mut vacant_rows);
            for &i in &filled[..fresh] {
                let i = i as usize;
                total.add((std::mem::replace(&mut table_keys[i], VACANT), std::mem::take(&mut counts[i])));
            }
        }
        if vacant_rows > 0 {
            total.add((VACANT, vacant_rows));
        }
        samples[1].push((cpu_ns() - start) / rows);
        totals[1] = total;
    }
    let mut lined_samples = Vec::new();
    let lines = huge(lanes / LANES, [VACANT, VACANT, VACANT, VACANT, 0, 0, 0, 0]);
    for _ in 0..3 {
        let mut total = Total::default();
        let mut vacant_rows = 0;
        let start = cpu_ns();
        for p in 0..1 << bits {
            let fresh = bucket_lines(lines, partitions.rows(p), filled, &mut vacant_rows);
            for &i in &filled[..fresh] {
                let line = &mut lines[i as usize / LANES];
                let lane = i as usize % LANES;
                total.add((std::mem::replace(&mut line[lane], VACANT), std::mem::take(&mut line[LANES + lane])));
            }
        }
        if vacant_rows > 0 {
            total.add((VACANT, vacant_rows));
        }
        lined_samples.push((cpu_ns() - start) / rows);
        assert_eq!(total, totals[0], "bucket lines differ");
    }
    println!("  buckets of {LANES} keys and their counts in one line: {:.2} ns/row (agrees)", median(lined_samples));
    let [linear, bucketed] = samples.map(median);
    println!("2^{bits} partitions, count and emit:");
    println!(
        "  linear probe, 16-byte slots ({} KiB, 4x the groups): {linear:.2} ns/row",
        (baseline.slots.len() * 16) >> 10
    );
    println!(
        "  buckets of {LANES} keys, counts beside ({} KiB, {load_inverse}x the groups): {bucketed:.2} ns/row ({})",
        (lanes * 16) >> 10,
        if totals[1] == totals[0] { "agrees" } else { "DIFFERS" }
    );
}

/// As [`bucketed`], with each bucket's keys and counts in one cache line.
fn bucket_lines(lines: &mut [[u64; 8]], rows: &[u64], filled: &mut [u32], vacant_rows: &mut u64) -> usize {
    let mask = lines.len() - 1;
    let mut fresh = 0;
    for &key in rows {
        if key == VACANT {
            *vacant_rows += 1;
            continue;
        }
        let mut bucket = hash(key) as usize & mask;
        let lane = loop {
            let line = &lines[bucket];
            let hits = u32::from((line[0] == key) | (line[0] == VACANT))
                | u32::from((line[1] == key) | (line[1] == VACANT)) << 1
                | u32::from((line[2] == key) | (line[2] == VACANT)) << 2
                | u32::from((line[3] == key) | (line[3] == VACANT)) << 3;
            if hits != 0 {
                break hits.trailing_zeros() as usize;
            }
            bucket = (bucket + 1) & mask;
        };
        let line = &mut lines[bucket];
        let new = line[lane & 3] == VACANT;
        line[lane & 3] = key;
        line[LANES + (lane & 3)] += 1;
        filled[fresh] = (bucket * LANES + (lane & 3)) as u32;
        fresh += usize::from(new);
    }
    fresh
}

/// What each step of the scatter costs, by taking steps away: a histogram of the partitions
/// (read, hash, one counter a row); rows written to their partition's write-combining buffer
/// that is never flushed (it wraps: a floor, not a scatter); the whole scatter with 4 lines.
fn scatter_floors(partitions: &mut Partitions, keys: &[u64], bits: u32) {
    const L: usize = 4;
    let rows = keys.len() as f64;
    let fanout = 1usize << bits;
    let mut counts = vec![0u32; fanout];
    let mut pending = vec![[Line::ZERO; L]; fanout];
    let mut samples = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..3 {
        counts.fill(0);
        let start = cpu_ns();
        for &key in keys {
            counts[(hash(key) >> (64 - bits)) as usize] += 1;
        }
        samples[0].push((cpu_ns() - start) / rows);

        counts.fill(0);
        let start = cpu_ns();
        for &key in keys {
            let p = (hash(key) >> (64 - bits)) as usize;
            let at = counts[p] as usize;
            let word = at % (L * 8);
            pending[p][word / 8].0[word % 8] = key;
            counts[p] += 1;
        }
        samples[1].push((cpu_ns() - start) / rows);

        let start = cpu_ns();
        partitions.scatter::<L>(keys, bits);
        samples[2].push((cpu_ns() - start) / rows);
    }
    let sink: u64 = pending.iter().map(|lines| lines[0].0[0]).fold(0, u64::wrapping_add);
    println!("scatter into 2^{bits} partitions (sink {sink}):");
    let names = ["histogram only", "into the buffers, never flushed", "the whole scatter, 4 lines"];
    for (name, samples) in names.iter().zip(samples) {
        println!("  {name}: {:.2} ns/row", median(samples));
    }
}
