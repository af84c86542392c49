//! The join race in a worker: the core's join kernels over the core's generated build and probe
//! sides, timed with the browser's clock, single-threaded (wasm has no threads here).

use memwall_core::clock::{self, time_ns};
use memwall_core::datagen::{self, DataSpec};
use memwall_core::exec::Sequential;
use memwall_core::join::data::{self, JoinSpec};
use memwall_core::join::race::{Racer, Truth};
use memwall_core::join::{self, BuildRow, JoinConfig, Kernel};
use memwall_core::scratch::{HeapChunks, MemoryPolicy};
use memwall_report::{Generator, JoinDataset};
use serde::{Deserialize, Serialize};

use crate::clock::{PerformanceClock, cross_origin_isolated};
use crate::races::messages::{Progress, RaceMessage, progress_of};
use crate::races::partition_view::count_partitions;
use crate::races::sizing::Sizing;

/// One race: the two sides to generate and the kernels to time on them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JoinJob {
    pub build_keys: u64,
    pub probe_rows: u64,
    /// Share of probe rows whose key is not on the build side, 0 to 1.
    pub miss_rate: f64,
    pub kernels: Vec<String>,
    pub runs: u32,
    /// The ladder the kernels' caches are sized by.
    pub sizing: Sizing,
}

impl JoinJob {
    /// The sides as the CLI's generator makes them: the `small` preset's skew and seed, so a
    /// browser race on the preset's sizes joins exactly what `memwall join --preset small` does.
    pub fn spec(&self) -> Result<JoinSpec, String> {
        let preset = datagen::preset("small").expect("a built-in preset");
        let spec = JoinSpec {
            data: DataSpec { rows: self.probe_rows, keys: self.build_keys, skew: preset.skew, seed: preset.seed },
            miss_rate: self.miss_rate,
        };
        spec.check().map_err(|e| e.to_string())?;
        Ok(spec)
    }

    /// Kernels by name, refusing unknown ones.
    pub fn kernels(&self) -> Result<Vec<Kernel>, String> {
        self.kernels.iter().map(|n| Kernel::parse(n).ok_or_else(|| format!("unknown join kernel '{n}'"))).collect()
    }

    /// The kernels' configuration: their caches sized by this page's ladder.
    pub fn config(&self) -> JoinConfig {
        JoinConfig::with_budget(self.sizing.budget())
    }

    /// The most memory the race may need (both sides, the largest kernel's scratch, and the
    /// reference's sorted copies), so that the page refuses what cannot fit before generating.
    pub fn bytes_needed(&self, spec: &JoinSpec, kernels: &[Kernel]) -> u64 {
        let config = self.config();
        let scratch = kernels
            .iter()
            .map(|&k| join::scratch_bytes(k, self.build_keys, self.probe_rows, &config, 1))
            .max()
            .unwrap_or(0);
        let reference = if Truth::by_default(self.probe_rows, None).reference {
            self.probe_rows
                .saturating_mul(8)
                .saturating_add(self.build_keys.saturating_mul(size_of::<BuildRow>() as u64))
        } else {
            0
        };
        spec.bytes().saturating_add(scratch).saturating_add(reference)
    }
}

/// Generates both sides and races the kernels on them, posting progress and the result.
pub fn run(job: &JoinJob, post: &mut dyn FnMut(RaceMessage)) -> Result<(), String> {
    let clock = PerformanceClock::new()?;
    let spec = job.spec()?;
    let kernels = job.kernels()?;
    post(RaceMessage::Progress(Progress::Generating));
    let (generate_ns, generated) = time_ns(&clock, || data::generate(&spec));
    let generated = generated.map_err(|e| e.to_string())?;
    post(RaceMessage::Progress(Progress::Generated {
        seconds: generate_ns / 1e9,
        timer_resolution_ns: clock::resolution_ns(&clock, 20),
        cross_origin_isolated: cross_origin_isolated(),
    }));
    let config = job.config();
    let partitions = config.partitions_for(spec.data.keys);
    post(RaceMessage::JoinPartitions {
        partitions,
        build: count_partitions(generated.build.iter().map(|r| r.key), partitions, join::partition_of),
        probe: count_partitions(generated.probe.iter().copied(), partitions, join::partition_of),
    });
    let dataset = JoinDataset {
        build_keys: spec.data.keys,
        probe_rows: spec.data.rows,
        miss_rate: spec.miss_rate,
        misses: generated.misses,
        generator: Some(Generator { preset: None, skew: spec.data.skew.name(), shape: None }),
        seed: Some(spec.data.seed),
    };
    // The native default's rules: one warm heap pool for every kernel, every run checked
    // against the generator's match count, the other kernels and, below the limit, the reference.
    let racer = Racer {
        kernels: &kernels,
        memory: &HeapChunks,
        policy: MemoryPolicy::Warm,
        runs: job.runs.max(1),
        work: memwall_core::join::race::JoinWork {
            config,
            exec: &Sequential,
            clock: &clock,
            truth: Truth::by_default(spec.data.rows, Some(spec.data.rows - generated.misses)),
        },
    };
    let join = racer
        .race(&generated.build, &generated.probe, dataset, &mut progress_of(Kernel::name, post))
        .map_err(|e| e.to_string())?;
    post(RaceMessage::JoinDone(join));
    Ok(())
}
