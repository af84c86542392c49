//! Reading a `memwall sensitivity` curve (the interference method of Mars et al., "Bubble-Up",
//! MICRO 2011): a workload's wall time while a neighbour on another CPU holds growing shares of
//! the last-level cache, then streams DRAM.
//!
//! Nothing here is a fixed percentage: a level slows the workload only when every one of its
//! runs is slower than every no-pressure run *and* its median slowdown exceeds the no-pressure
//! runs' own spread. A workload whose runs wander by 10% alone is not called sensitive for a
//! 5% change.

use memwall_report::{PressureLevel, Sensitivity, SensitivityReading, Summary};

use crate::size::format_bytes;

/// The pressure levels over a last-level cache of `llc_bytes`: none, 1/4, 1/2, 1x and 2x of it,
/// then a DRAM stream over `dram_bytes`. Returns (name, bytes).
pub fn pressure_levels(llc_bytes: u64, dram_bytes: u64) -> Vec<(String, u64)> {
    let mut levels = vec![("none".to_string(), 0)];
    for (name, bytes) in
        [("1/4 LLC", llc_bytes / 4), ("1/2 LLC", llc_bytes / 2), ("1x LLC", llc_bytes), ("2x LLC", llc_bytes * 2)]
    {
        levels.push((name.to_string(), bytes.max(4096)));
    }
    levels.push(("DRAM stream".to_string(), dram_bytes));
    levels
}

/// The DRAM stream's buffer: sixteen times the larger of the measured and the declared last-level
/// cache, so that neither the share the ladder found nor the whole cache the OS declares (which
/// other tenants' pressure may free up) can hold more than a sixteenth of it.
pub fn dram_stream_bytes(measured_llc_bytes: u64, declared_llc_bytes: Option<u64>) -> u64 {
    measured_llc_bytes.max(declared_llc_bytes.unwrap_or(0)).saturating_mul(16)
}

/// The reading of a curve whose first level is "none"; `None` without one.
///
/// The command's CPU time is read where every level has it, wall time otherwise: on a shared
/// host the pressure thread takes a CPU other processes were using, they crowd onto the
/// command's, and wall time then measures the queue for the CPU rather than the caches.
pub fn read(levels: &[PressureLevel], llc_bytes: u64) -> Option<SensitivityReading> {
    levels.first().filter(|l| l.pressure_bytes == 0)?;
    let (basis, times) = basis_times(levels);
    let none = times[0];
    let noise = if none.median > 0.0 { (none.max - none.min) / none.median } else { 0.0 };
    let slowdowns: Vec<f64> =
        times.iter().map(|t| if none.median > 0.0 { t.median / none.median - 1.0 } else { 0.0 }).collect();
    let beyond_noise: Vec<bool> = levels
        .iter()
        .zip(&times)
        .zip(&slowdowns)
        .map(|((l, t), &slow)| l.pressure_bytes > 0 && t.min > none.max && slow > noise)
        .collect();
    let by = if basis == "cpu" { "in its CPU time" } else { "in wall time" };
    let is_cache = |l: &PressureLevel| l.pressure_bytes <= llc_bytes.saturating_mul(2);
    let first_cache = levels.iter().zip(&beyond_noise).position(|(l, &b)| b && is_cache(l));
    let worst = (0..levels.len()).filter(|&i| beyond_noise[i]).max_by(|&a, &b| slowdowns[a].total_cmp(&slowdowns[b]));
    let worst_slowdown = worst.map_or(0.0, |i| slowdowns[i]);
    let pct = |s: f64| format!("{:.0}%", s * 100.0);
    let largest_change = (1..levels.len()).max_by(|&a, &b| slowdowns[a].abs().total_cmp(&slowdowns[b].abs()));
    let (class, verdict) = match (first_cache, worst) {
        (Some(first), Some(worst)) => {
            let w = &levels[worst];
            let holds = if is_cache(w) {
                format!("holds {} of the LLC", format_bytes(w.pressure_bytes))
            } else {
                format!("streams {} of DRAM", format_bytes(w.pressure_bytes))
            };
            let onset = if first == worst {
                String::new()
            } else {
                format!(
                    " (already {} at {}, {})",
                    pct(slowdowns[first]),
                    levels[first].name,
                    format_bytes(levels[first].pressure_bytes)
                )
            };
            (
                "cache-sensitive",
                format!(
                    "slows {} {by} when a neighbour {holds}{onset}, against {} noise without pressure: \
                     cache-sensitive; keep it off shared hosts or give it a dedicated one",
                    pct(worst_slowdown),
                    pct(noise)
                ),
            )
        }
        (None, Some(worst)) => (
            "bandwidth-sensitive",
            format!(
                "flat while a neighbour holds up to {} of the LLC, but slows {} {by} when one streams {} of DRAM \
                 (noise {}): bandwidth-sensitive; avoid hosts whose neighbours stream memory",
                format_bytes(llc_bytes * 2),
                pct(worst_slowdown),
                format_bytes(levels[worst].pressure_bytes),
                pct(noise)
            ),
        ),
        _ => (
            "flat",
            format!(
                "flat: no pressure level slowed it {by} beyond the no-pressure runs' own spread of {}{}: fine \
                 beside neighbours",
                pct(noise),
                largest_change.map_or(String::new(), |i| format!(
                    " (the largest change, {:+.0}%, at {})",
                    slowdowns[i] * 100.0,
                    levels[i].name
                ))
            ),
        ),
    };
    Some(SensitivityReading {
        basis: basis.into(),
        noise,
        slowdowns,
        beyond_noise,
        class: class.into(),
        worst_slowdown,
        verdict,
    })
}

/// A level as a chart draws it: its median slowdown, and the range of its runs, each against the
/// no-pressure median on the reading's basis (so the whisker is the same spread the reading's
/// rules look at).
#[derive(Debug, Clone, PartialEq)]
pub struct LevelSlowdown {
    pub name: String,
    pub pressure_bytes: u64,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub beyond_noise: bool,
}

/// A curve as a chart draws it: the pressure levels (the no-pressure level is the zero they are
/// measured from), and the no-pressure runs' own range around that zero, the noise.
#[derive(Debug, Clone, PartialEq)]
pub struct Slowdowns {
    /// "cpu" or "wall", as the reading's.
    pub basis: String,
    pub levels: Vec<LevelSlowdown>,
    pub noise_lo: f64,
    pub noise_hi: f64,
}

/// The times the reading goes by: the command's CPU time where every level has it, else wall time.
fn basis_times(levels: &[PressureLevel]) -> (&'static str, Vec<Summary>) {
    match levels.iter().map(|l| l.cpu_seconds).collect::<Option<Vec<Summary>>>() {
        Some(cpu) => ("cpu", cpu),
        None => ("wall", levels.iter().map(|l| l.seconds).collect()),
    }
}

/// The curve's slowdowns for a chart, read by the current rules; `None` without a no-pressure
/// level to measure from.
pub fn slowdowns(curve: &Sensitivity) -> Option<Slowdowns> {
    let reading = read(&curve.levels, curve.llc_bytes)?;
    let (_, times) = basis_times(&curve.levels);
    let none = times[0].median;
    let against = |t: f64| if none > 0.0 { t / none - 1.0 } else { 0.0 };
    let levels = curve
        .levels
        .iter()
        .zip(&times)
        .enumerate()
        .skip(1)
        .map(|(i, (l, t))| LevelSlowdown {
            name: l.name.clone(),
            pressure_bytes: l.pressure_bytes,
            median: reading.slowdowns[i],
            min: against(t.min),
            max: against(t.max),
            beyond_noise: reading.beyond_noise[i],
        })
        .collect();
    Some(Slowdowns { basis: reading.basis, levels, noise_lo: against(times[0].min), noise_hi: against(times[0].max) })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LLC: u64 = 8 << 20;

    fn curve(runs: &[&[f64]]) -> Vec<PressureLevel> {
        pressure_levels(LLC, dram_stream_bytes(LLC, Some(32 << 20)))
            .into_iter()
            .zip(runs)
            .map(|((name, bytes), secs)| PressureLevel::timed(name, bytes, secs.to_vec()).unwrap())
            .collect()
    }

    fn curve_of(levels: Vec<PressureLevel>) -> Sensitivity {
        Sensitivity {
            command: vec!["work".into()],
            server_probe: None,
            workload: "work".into(),
            workload_cpu: 0,
            pressure_cpu: 1,
            runs_per_level: 3,
            llc_bytes: LLC,
            llc_source: "declared".into(),
            levels,
            reading: None,
        }
    }

    /// The chart's points are the reading's medians, with each level's runs as the whisker and
    /// the no-pressure runs as the noise band, all against the no-pressure median.
    #[test]
    fn a_chart_gets_the_readings_slowdowns_and_the_runs_spread() {
        let levels = curve(&[
            &[1.00, 1.02, 0.98],
            &[1.03, 1.01, 1.02],
            &[1.10, 1.12, 1.11],
            &[1.38, 1.40, 1.37],
            &[1.45, 1.44, 1.47],
            &[1.60, 1.62, 1.58],
        ]);
        let chart = slowdowns(&curve_of(levels.clone())).unwrap();
        let reading = read(&levels, LLC).unwrap();
        assert_eq!(chart.basis, "wall");
        assert_eq!(chart.levels.len(), 5, "the no-pressure level is the zero, not a point");
        assert_eq!(chart.levels[0].name, "1/4 LLC");
        for (i, level) in chart.levels.iter().enumerate() {
            assert_eq!(level.median, reading.slowdowns[i + 1]);
            assert_eq!(level.beyond_noise, reading.beyond_noise[i + 1]);
            assert!(level.min <= level.median && level.median <= level.max, "{level:?}");
        }
        assert!((chart.levels[4].min - 0.58).abs() < 1e-9 && (chart.levels[4].max - 0.62).abs() < 1e-9);
        assert!((chart.noise_lo + 0.02).abs() < 1e-9 && (chart.noise_hi - 0.02).abs() < 1e-9);
        assert!(slowdowns(&curve_of(levels[1..].to_vec())).is_none(), "no baseline, no chart");
    }

    #[test]
    fn levels_are_shares_of_the_llc_then_a_dram_stream() {
        let levels = pressure_levels(LLC, dram_stream_bytes(LLC, Some(32 << 20)));
        let bytes: Vec<u64> = levels.iter().map(|l| l.1).collect();
        assert_eq!(bytes, [0, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 512 << 20]);
        assert_eq!(levels[5].0, "DRAM stream");
        assert_eq!(dram_stream_bytes(2 << 20, None), 32 << 20);
    }

    #[test]
    fn a_memory_bound_workload_is_cache_sensitive() {
        let r = read(
            &curve(&[
                &[1.00, 1.02, 1.01],
                &[1.03, 1.01, 1.02],
                &[1.10, 1.12, 1.11],
                &[1.38, 1.40, 1.37],
                &[1.45, 1.44, 1.47],
                &[1.60, 1.62, 1.58],
            ]),
            LLC,
        )
        .unwrap();
        assert_eq!(r.class, "cache-sensitive");
        assert_eq!(r.beyond_noise, [false, false, true, true, true, true]);
        assert!((r.noise - 0.0198).abs() < 0.001, "{}", r.noise);
        assert!((r.worst_slowdown - 0.584).abs() < 0.01, "{}", r.worst_slowdown);
        assert_eq!(
            r.verdict,
            "slows 58% in wall time when a neighbour streams 512 MiB of DRAM (already 10% at 1/2 LLC, 4 MiB), against \
             2% noise without pressure: cache-sensitive; keep it off shared hosts or give it a dedicated one"
        );
    }

    #[test]
    fn a_compute_bound_workload_is_flat_even_with_noise() {
        // The runs wander by ~8% on their own; a 5% higher median at 2x LLC is within that.
        let r = read(
            &curve(&[
                &[1.00, 1.08, 1.03],
                &[1.02, 1.04, 1.01],
                &[1.00, 1.05, 1.03],
                &[1.03, 1.02, 1.06],
                &[1.09, 1.06, 1.08],
                &[1.04, 1.01, 1.03],
            ]),
            LLC,
        )
        .unwrap();
        assert_eq!(r.class, "flat");
        assert!(r.beyond_noise.iter().all(|b| !b));
        assert_eq!(r.worst_slowdown, 0.0);
        assert!(r.verdict.starts_with(
            "flat: no pressure level slowed it in wall time beyond the no-pressure runs' own spread of 8%"
        ));
        assert!(r.verdict.contains("(the largest change, +5%, at 2x LLC)"), "{}", r.verdict);
    }

    #[test]
    fn slowing_only_under_a_dram_stream_is_bandwidth_sensitivity() {
        let r =
            read(&curve(&[&[1.0, 1.01], &[1.0, 1.01], &[1.005, 1.0], &[1.01, 1.0], &[1.0, 1.01], &[1.2, 1.22]]), LLC)
                .unwrap();
        assert_eq!(r.class, "bandwidth-sensitive");
        assert!(r.verdict.starts_with(
            "flat while a neighbour holds up to 16 MiB of the LLC, but slows 20% in wall time when one streams 512 MiB"
        ));
        assert!(read(&curve(&[&[1.0]])[1..], LLC).is_none(), "no baseline, no reading");
    }

    /// On a shared host the wall times swing with the queue for the CPU; the command's CPU time
    /// is what the reading goes by when every level has it.
    #[test]
    fn cpu_time_is_read_when_every_level_has_it() {
        let wall: [&[f64]; 6] = [
            &[1.0, 2.0, 1.5],
            &[2.5, 1.2, 1.9],
            &[1.1, 2.2, 1.4],
            &[2.0, 1.3, 1.6],
            &[1.2, 2.4, 1.8],
            &[1.6, 2.1, 1.3],
        ];
        let cpu: [&[f64]; 6] = [
            &[1.0, 1.01, 1.0],
            &[1.0, 1.01, 1.01],
            &[1.02, 1.01, 1.0],
            &[1.25, 1.24, 1.26],
            &[1.4, 1.41, 1.39],
            &[1.5, 1.5, 1.52],
        ];
        let mut levels = curve(&wall);
        assert_eq!(read(&levels, LLC).unwrap().class, "flat", "wall time alone is noise here");
        for (level, cpu) in levels.iter_mut().zip(cpu) {
            level.samples_cpu_seconds = cpu.to_vec();
            level.cpu_seconds = Summary::of(cpu);
        }
        let r = read(&levels, LLC).unwrap();
        assert_eq!((r.basis.as_str(), r.class.as_str()), ("cpu", "cache-sensitive"));
        assert!(
            r.verdict.starts_with(
                "slows 50% in its CPU time when a neighbour streams 512 MiB of DRAM (already 25% at 1x LLC"
            ),
            "{}",
            r.verdict
        );
        levels[2].cpu_seconds = None;
        assert_eq!(read(&levels, LLC).unwrap().basis, "wall", "one level without CPU time: wall time for all");
    }
}
