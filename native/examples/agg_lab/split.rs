use super::*;

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
pub fn split_then_count(partitions: &mut Partitions, keys: &[u64], bits: u32, split: u32, load_inverse: usize) {
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
