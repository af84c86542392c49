use super::*;

/// The key no row is taken to have in a bucketed table: its empty lanes hold it. A row that does
/// have it is counted apart (a branch that is predicted right unless such rows are mixed in).
pub const VACANT: u64 = 0x8000_0000_0000_0001;

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

pub fn bucketed_table(partitions: &mut Partitions, keys: &[u64], bits: u32, load_inverse: usize) {
    let rows = keys.len() as f64;
    let most = scatter_for_counting(partitions, keys, bits);
    let groups = expected_groups(bits);
    let mut baseline = Baseline::new(bits, most);
    let lanes = (groups * load_inverse).next_power_of_two().max(64);
    let table_keys = huge(lanes, VACANT);
    let counts = huge(lanes, 0u64);
    let filled = huge(most, 0u32);
    let (samples, totals) = baseline.against(partitions, bits, rows, |partitions| {
        let mut total = Total::default();
        let mut vacant_rows = 0;
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
        total
    });
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
