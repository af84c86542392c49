use super::*;

/// What each step of counting a partition costs, by taking steps away: reading and hashing
/// every row only; adding one to a counter per row (no keys); tuned's slot update without the
/// probe loop; the whole linear probe.
pub fn floors(partitions: &mut Partitions, keys: &[u64], bits: u32) {
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

/// What each step of the scatter costs, by taking steps away: a histogram of the partitions
/// (read, hash, one counter a row); rows written to their partition's write-combining buffer
/// that is never flushed (it wraps: a floor, not a scatter); the whole scatter with 4 lines.
pub fn scatter_floors(partitions: &mut Partitions, keys: &[u64], bits: u32) {
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
