//! A browser's join race set against a native report's: the same kernels on the same sizes,
//! as a ratio of ns per probe row. One place for the page and its tests.

use memwall_report::Join;

/// One kernel that ran in both races.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRatio {
    pub kernel: String,
    pub browser_ns_per_probe: f64,
    pub native_ns_per_probe: f64,
    /// Threads the native run used (the browser's always use one).
    pub native_threads: u32,
    /// Browser over native: how many times slower the browser was.
    pub ratio: f64,
}

/// What can be said of two join races.
#[derive(Debug, Clone, PartialEq)]
pub enum Comparison {
    /// Same build keys, probe rows and miss rate: a ratio per kernel both ran. `same_answer`
    /// is whether they agreed on matches and checksum (the same generator and seed do).
    Ratios { kernels: Vec<KernelRatio>, same_answer: bool },
    /// Different joins: no ratio would mean anything, and this says why.
    Different(String),
}

/// Browser against native, kernel by kernel, only when both joined the same sizes.
pub fn browser_vs_native(browser: &Join, native: &Join) -> Comparison {
    let (b, n) = (&browser.dataset, &native.dataset);
    if (b.build_keys, b.probe_rows) != (n.build_keys, n.probe_rows) || b.miss_rate != n.miss_rate {
        return Comparison::Different(format!(
            "different joins: this browser joined {} build keys and {} probe rows (miss rate {}), the native report {} and {} (miss rate {}); run both on the same sizes for a ratio",
            b.build_keys, b.probe_rows, b.miss_rate, n.build_keys, n.probe_rows, n.miss_rate
        ));
    }
    let mut same_answer = true;
    let kernels: Vec<KernelRatio> = browser
        .runs
        .iter()
        .filter_map(|br| {
            let nr = native.runs.iter().find(|nr| nr.kernel == br.kernel)?;
            same_answer &= (br.matches, &br.checksum) == (nr.matches, &nr.checksum);
            (nr.ns_per_probe > 0.0).then(|| KernelRatio {
                kernel: br.kernel.clone(),
                browser_ns_per_probe: br.ns_per_probe,
                native_ns_per_probe: nr.ns_per_probe,
                native_threads: nr.threads,
                ratio: br.ns_per_probe / nr.ns_per_probe,
            })
        })
        .collect();
    if kernels.is_empty() {
        return Comparison::Different("the native report ran none of the kernels this browser ran".into());
    }
    Comparison::Ratios { kernels, same_answer }
}

#[cfg(test)]
mod tests {
    use memwall_report::{JoinDataset, JoinFigures, JoinRun, Summary};

    use super::*;

    fn join(build_keys: u64, probe_rows: u64, runs: &[(&str, f64, &str)]) -> Join {
        let seconds = |s: f64| Summary { min: s, median: s, p90: s, max: s };
        Join {
            dataset: JoinDataset { build_keys, probe_rows, miss_rate: 0.1, misses: 0, generator: None, seed: None },
            runs: runs
                .iter()
                .map(|&(kernel, ns, checksum)| JoinRun {
                    kernel: kernel.into(),
                    threads: 1,
                    partitions: None,
                    checksum: checksum.into(),
                    seconds: seconds(0.0),
                    samples_seconds: vec![],
                    choice: None,
                    memory: None,
                    first_run_seconds: None,
                    scratch_bytes: None,
                    mapped_in_run_bytes: None,
                    huge_page_share: None,
                    verified_by: vec![],
                    own: JoinFigures {
                        matches: 90,
                        key_sum: None,
                        payload_sum: None,
                        ns_per_probe: ns,
                        build_seconds: seconds(0.0),
                        probe_seconds: seconds(0.0),
                    },
                })
                .collect(),
            sweeps: vec![],
        }
    }

    #[test]
    fn the_same_sizes_give_a_ratio_per_kernel_both_ran() {
        let browser = join(10, 100, &[("naive", 30.0, "ab"), ("tuned", 12.0, "ab"), ("prefetch", 9.0, "ab")]);
        let native = join(10, 100, &[("tuned", 4.0, "ab"), ("naive", 20.0, "ab")]);
        let Comparison::Ratios { kernels, same_answer } = browser_vs_native(&browser, &native) else {
            panic!("same sizes compare")
        };
        assert!(same_answer);
        let ratios: Vec<(&str, f64)> = kernels.iter().map(|k| (k.kernel.as_str(), k.ratio)).collect();
        assert_eq!(ratios, vec![("naive", 1.5), ("tuned", 3.0)]);
        let other = join(10, 100, &[("naive", 20.0, "cd")]);
        assert!(matches!(browser_vs_native(&browser, &other), Comparison::Ratios { same_answer: false, .. }));
    }

    #[test]
    fn different_sizes_or_kernels_say_so_instead_of_a_ratio() {
        let browser = join(10, 100, &[("naive", 30.0, "ab")]);
        let Comparison::Different(why) = browser_vs_native(&browser, &join(10, 200, &[("naive", 1.0, "ab")])) else {
            panic!("different sizes must not compare")
        };
        assert!(why.contains("100 probe rows") && why.contains("200"), "{why}");
        let mut missing = join(10, 100, &[("naive", 1.0, "ab")]);
        missing.dataset.miss_rate = 0.5;
        assert!(matches!(browser_vs_native(&browser, &missing), Comparison::Different(_)));
        let Comparison::Different(why) = browser_vs_native(&browser, &join(10, 100, &[("tuned", 1.0, "ab")])) else {
            panic!("no shared kernel")
        };
        assert!(why.contains("none of the kernels"), "{why}");
    }
}
