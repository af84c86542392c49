//! A kernel's timed runs as a report keeps them: the fields every race's runs share
//! ([`memwall_report::Run`]) filled in once here, the workload's own figures beside them.

use memwall_report::{Run, Summary};

use super::{Named, RaceError, Timings, Workload};
use crate::scratch::MemoryPolicy;

impl<W: Workload> Timings<W> {
    /// These runs as a report keeps them, timed under `policy`: the shared fields from the
    /// seconds, the scratch taken and the last outcome; `own` makes the workload's figures from
    /// the seconds (their summary, every sample) and every outcome.
    pub fn report<A>(
        self,
        policy: MemoryPolicy,
        own: impl FnOnce(&Summary, &[f64], Vec<W::Outcome>) -> Result<A, RaceError<W::Error>>,
    ) -> Result<Run<A>, RaceError<W::Error>> {
        let kernel = self.kernel.name();
        let seconds = Summary::of(&self.seconds).ok_or(RaceError::Unmeasurable { kernel })?;
        let last = self.outcomes.last().map(W::ran).ok_or(RaceError::Unmeasurable { kernel })?;
        let own = own(&seconds, &self.seconds, self.outcomes)?;
        let most = |bytes: fn(&crate::scratch::RunMemory) -> u64| self.memory.iter().map(bytes).max();
        Ok(Run {
            kernel: kernel.into(),
            threads: last.threads as u32,
            partitions: last.partitions,
            seconds,
            checksum: memwall_report::checksum_hex(last.checksum),
            choice: last.choice,
            memory: Some(policy.name().into()),
            first_run_seconds: Some(self.first_seconds),
            scratch_bytes: most(|m| m.carved_bytes),
            mapped_in_run_bytes: most(|m| m.mapped_in_run_bytes),
            huge_page_share: self.memory.last().copied().unwrap_or_default().huge_page_share(),
            verified_by: self.verified_by.iter().map(|c| c.name().to_string()).collect(),
            own,
            samples_seconds: self.seconds,
        })
    }
}
