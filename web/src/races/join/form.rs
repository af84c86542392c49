//! The join race's form, read: build keys, probe rows, miss rate and kernels, as typed or as the
//! URL set them (`?build=&probe=&miss=&kernels=`), and the race they describe.

use std::collections::BTreeSet;

use memwall_core::join::Kernel;
use memwall_core::join::race::Check;

use super::job::JoinJob;
use crate::races::sizing::Sizing;
use crate::util;

/// Timed runs per kernel; the bars and the table show the median.
pub const RUNS: u32 = 3;

/// The race the form describes, or a one-line reason why it cannot run here.
pub fn job(
    build: &str,
    probe: &str,
    miss: &str,
    kernels: &BTreeSet<Kernel>,
    sizing: &Sizing,
) -> Result<JoinJob, String> {
    let count = |text: &str, what: &str| memwall_core::size::parse_count(text).map_err(|e| format!("{what}: {e}"));
    let build_keys = count(build, "build keys")?;
    let probe_rows = count(probe, "probe rows")?;
    let miss_rate =
        miss.trim().parse::<f64>().map_err(|_| format!("miss rate: '{miss}' is not a number from 0 to 1"))?;
    if kernels.is_empty() {
        return Err("pick at least one kernel".into());
    }
    if probe_rows == 0 {
        return Err("there must be at least one probe row".into());
    }
    let job = JoinJob {
        build_keys,
        probe_rows,
        miss_rate,
        kernels: kernels.iter().map(|k| k.name().to_string()).collect(),
        runs: RUNS,
        sizing: sizing.clone(),
    };
    let spec = job.spec()?;
    let kernels: Vec<Kernel> = kernels.iter().copied().collect();
    util::fits_in_browser(job.bytes_needed(&spec, &kernels))?;
    Ok(job)
}

/// "every run of every kernel …", from the names of the checks a run passed.
pub fn checks_sentence(verified_by: &[String]) -> Option<String> {
    let all = [
        Check::Reference(memwall_core::race::Reference::SortAndMerge),
        Check::KnownMatches,
        Check::CrossKernel,
        Check::Repeatable,
    ];
    let done: Vec<&str> =
        verified_by.iter().filter_map(|name| all.iter().find(|c| c.name() == name)).map(|c| c.describe()).collect();
    (!done.is_empty()).then(|| format!("Checked: every run of every kernel {}.", done.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> BTreeSet<Kernel> {
        Kernel::ALL.into_iter().collect()
    }

    #[test]
    fn the_default_form_is_a_race_that_fits() {
        let job = job("1,700,000", "10,000,000", "0.1", &all(), &Sizing::default()).unwrap();
        assert_eq!((job.build_keys, job.probe_rows, job.kernels.len()), (1_700_000, 10_000_000, 5));
    }

    #[test]
    fn bad_input_is_a_message_not_a_panic() {
        assert!(job("ten", "1M", "0", &all(), &Sizing::default()).unwrap_err().starts_with("build keys:"));
        assert!(job("1000", "1M", "lots", &all(), &Sizing::default()).unwrap_err().starts_with("miss rate:"));
        assert!(job("1000", "1M", "1.5", &all(), &Sizing::default()).unwrap_err().contains("miss rate"));
        assert_eq!(
            job("1000", "1M", "0", &BTreeSet::new(), &Sizing::default()).unwrap_err(),
            "pick at least one kernel"
        );
        let too_big = job("1G", "10G", "0", &all(), &Sizing::default()).unwrap_err();
        assert!(too_big.contains("at most 4 GiB"), "{too_big}");
    }

    #[test]
    fn the_checks_sentence_names_only_known_checks() {
        let names = ["reference".to_string(), "cross-kernel".to_string(), "bogus".to_string()];
        let line = checks_sentence(&names).unwrap();
        assert!(line.contains("sort-and-merge reference") && line.contains("every other kernel"), "{line}");
        assert_eq!(checks_sentence(&[]), None);
    }
}
