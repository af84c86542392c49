//! The third round of routes (issue 12): buckets of eight keys compared at once with AVX-512,
//! and hashed sorting of a partition. Both count each partition of tuned's scatter and emit its
//! groups, timed against tuned's linear probe in the same run.

use super::{
    Baseline, Partitions, Total, bucket::VACANT, cpu_ns, expected_groups, hash, huge, linear_probe, median,
    scatter_for_counting,
};

/// Eight keys (one line), then their eight counts (the next line). Lanes fill in order, so the
/// first lane that holds the row's key or [`VACANT`] is the row's lane.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Bucket([u64; 16]);

const EMPTY: Bucket = Bucket([VACANT, VACANT, VACANT, VACANT, VACANT, VACANT, VACANT, VACANT, 0, 0, 0, 0, 0, 0, 0, 0]);

/// How a partition's filled buckets are found again for the emit.
#[derive(Clone, Copy, PartialEq)]
enum Track {
    /// A byte a bucket, set by a plain store whose address comes from the hash alone.
    Flags,
    /// A bit a bucket: an or into a few words, which rows of one partition keep hitting.
    Bitmap,
    /// Nothing: every bucket is compared with [`VACANT`] at the end.
    Scan,
}

/// `simd BITS LOAD_INVERSE`: tuned's linear probe against buckets of eight keys compared with
/// one AVX-512 instruction, where a bucket's eight lanes are `LOAD_INVERSE` times the groups
/// expected. A row either writes both whole lines back (their address known from the hash
/// alone: a masked add and a masked move) or only its lane's key and count (an address that
/// waits for the compare).
#[cfg(not(target_arch = "x86_64"))]
pub fn simd(_: &mut Partitions, _: &[u64], _: u32, _: usize) {
    eprintln!("agg_lab: simd needs an x86-64 CPU with AVX-512F");
    std::process::exit(1);
}

#[cfg(target_arch = "x86_64")]
pub fn simd(partitions: &mut Partitions, keys: &[u64], bits: u32, load_inverse: usize) {
    if !std::arch::is_x86_feature_detected!("avx512f") {
        eprintln!("agg_lab: simd needs AVX-512F, which this CPU does not have");
        std::process::exit(1);
    }
    let rows = keys.len() as f64;
    let most = scatter_for_counting(partitions, keys, bits);
    let groups = expected_groups(bits);
    let Baseline { slots, filled } = Baseline::new(bits, most);
    let buckets = huge(((groups * load_inverse).next_power_of_two() / 8).max(64), EMPTY);
    let mut flags = vec![0u8; buckets.len()];
    let mut bitmap = vec![0u64; buckets.len() / 64];
    let variants = [
        ("linear probe (tuned.rs)", None),
        ("buckets, lines written back whole, a flag a bucket", Some((true, Track::Flags))),
        ("buckets, lines written back whole, a bitmap", Some((true, Track::Bitmap))),
        ("buckets, lines written back whole, all scanned", Some((true, Track::Scan))),
        ("buckets, the lane's key and count written", Some((false, Track::Flags))),
    ];
    let mut samples = vec![Vec::new(); variants.len()];
    let mut totals: Vec<Total> = variants.iter().map(|_| Total::default()).collect();
    for _ in 0..3 {
        for (v, (_, bucketed)) in variants.iter().enumerate() {
            let mut total = Total::default();
            let mut vacant_rows = 0;
            let start = cpu_ns();
            for p in 0..1 << bits {
                let rows = partitions.rows(p);
                match *bucketed {
                    None => {
                        let fresh = linear_probe(slots, rows, filled).unwrap_or(0);
                        filled[..fresh].iter().for_each(|&i| total.add(std::mem::take(&mut slots[i as usize])));
                    }
                    Some((whole, track)) => {
                        // SAFETY: AVX-512F was detected above.
                        unsafe {
                            count_buckets(buckets, rows, whole, track, &mut flags, &mut bitmap, &mut vacant_rows)
                        };
                        drain(buckets, track, &mut flags, &mut bitmap, &mut total);
                    }
                }
            }
            if vacant_rows > 0 {
                total.add((VACANT, vacant_rows));
            }
            samples[v].push((cpu_ns() - start) / rows);
            totals[v] = total;
        }
    }
    println!(
        "2^{bits} partitions, count and emit; linear probe {} KiB, buckets {} KiB ({load_inverse}x the mean groups):",
        (slots.len() * 16) >> 10,
        (buckets.len() * 128) >> 10
    );
    for (v, ((name, _), samples)) in variants.iter().zip(samples).enumerate() {
        let agrees = if totals[v] == totals[0] { "agrees" } else { "DIFFERS from the linear probe" };
        println!("  {name}: {:.2} ns/row ({agrees})", median(samples));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn count_buckets(
    buckets: &mut [Bucket],
    rows: &[u64],
    whole: bool,
    track: Track,
    flags: &mut [u8],
    bitmap: &mut [u64],
    vacant_rows: &mut u64,
) {
    use std::arch::x86_64::*;
    let mask = buckets.len() - 1;
    let vacant = _mm512_set1_epi64(VACANT as i64);
    let one = _mm512_set1_epi64(1);
    for &key in rows {
        if key == VACANT {
            *vacant_rows += 1;
            continue;
        }
        let wanted = _mm512_set1_epi64(key as i64);
        let mut b = hash(key) as usize & mask;
        loop {
            let bucket = &mut buckets[b].0;
            // SAFETY: a bucket is 128 bytes aligned to 64: two whole, aligned lines.
            let keys = unsafe { _mm512_load_epi64(bucket.as_ptr().cast()) };
            let lanes = _mm512_cmpeq_epi64_mask(keys, wanted) | _mm512_cmpeq_epi64_mask(keys, vacant);
            if lanes != 0 {
                if whole {
                    let lane = lanes & lanes.wrapping_neg();
                    // SAFETY: as above.
                    unsafe {
                        let counts = _mm512_load_epi64(bucket[8..].as_ptr().cast());
                        _mm512_store_epi64(bucket.as_mut_ptr().cast(), _mm512_mask_mov_epi64(keys, lane, wanted));
                        _mm512_store_epi64(
                            bucket[8..].as_mut_ptr().cast(),
                            _mm512_mask_add_epi64(counts, lane, counts, one),
                        );
                    }
                } else {
                    let lane = lanes.trailing_zeros() as usize;
                    bucket[lane] = key;
                    bucket[8 + lane] += 1;
                }
                match track {
                    Track::Flags => flags[b] = 1,
                    Track::Bitmap => bitmap[b / 64] |= 1 << (b % 64),
                    Track::Scan => {}
                }
                break;
            }
            b = (b + 1) & mask;
        }
    }
}

/// Hands every filled bucket's groups to `total` and empties it.
fn drain(buckets: &mut [Bucket], track: Track, flags: &mut [u8], bitmap: &mut [u64], total: &mut Total) {
    let mut take = |bucket: &mut Bucket| {
        for lane in 0..8 {
            if bucket.0[lane] != VACANT {
                total.add((bucket.0[lane], bucket.0[8 + lane]));
            }
        }
        *bucket = EMPTY;
    };
    match track {
        Track::Flags => {
            for (bucket, flag) in buckets.iter_mut().zip(flags.iter_mut()) {
                if std::mem::take(flag) != 0 {
                    take(bucket);
                }
            }
        }
        Track::Bitmap => {
            for (w, word) in bitmap.iter_mut().enumerate() {
                let mut bits = std::mem::take(word);
                while bits != 0 {
                    take(&mut buckets[w * 64 + bits.trailing_zeros() as usize]);
                    bits &= bits - 1;
                }
            }
        }
        Track::Scan => buckets.iter_mut().filter(|b| b.0[0] != VACANT).for_each(take),
    }
}

/// `hashed-sort BITS`: each partition sorted by the next hash bits (one counting-sort pass in
/// cache, into buckets of about two groups), then each bucket counted by comparing its rows with
/// the few keys it has shown so far; against tuned's linear probe.
pub fn hashed_sort(partitions: &mut Partitions, keys: &[u64], bits: u32) {
    let rows = keys.len() as f64;
    let most = scatter_for_counting(partitions, keys, bits);
    let groups = expected_groups(bits);
    let mut baseline = Baseline::new(bits, most);
    let sort_bits = (groups / 2).next_power_of_two().trailing_zeros();
    let mut starts = vec![0u32; (1 << sort_bits) + 1];
    let sorted = huge(most, 0u64);
    let mut found: Vec<(u64, u64)> = Vec::new();
    let (samples, totals) = baseline.against(partitions, bits, rows, |partitions| {
        let mut total = Total::default();
        let bucket_of = |key: u64| (hash(key) << bits >> (64 - sort_bits)) as usize;
        for p in 0..1 << bits {
            let rows = partitions.rows(p);
            starts.fill(0);
            rows.iter().for_each(|&key| starts[bucket_of(key) + 1] += 1);
            for b in 0..1 << sort_bits {
                starts[b + 1] += starts[b];
            }
            let mut next = starts.clone();
            for &key in rows {
                let b = bucket_of(key);
                sorted[next[b] as usize] = key;
                next[b] += 1;
            }
            for bucket in starts.windows(2) {
                found.clear();
                for &key in &sorted[bucket[0] as usize..bucket[1] as usize] {
                    match found.iter_mut().find(|group| group.0 == key) {
                        Some(group) => group.1 += 1,
                        None => found.push((key, 1)),
                    }
                }
                found.iter().for_each(|&group| total.add(group));
            }
        }
        total
    });
    let [linear, sorted] = samples.map(median);
    let agrees = if totals[1] == totals[0] { "agrees" } else { "DIFFERS from the linear probe" };
    println!("2^{bits} partitions, count and emit:");
    println!("  linear probe (tuned.rs): {linear:.2} ns/row");
    println!("  hashed sort, 2^{sort_bits} buckets a partition: {sorted:.2} ns/row ({agrees})");
}
