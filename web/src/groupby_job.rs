//! The GROUP BY race and the partitions sweep, in a worker: the core's kernels over the core's
//! generated keys, timed with the browser's clock, single-threaded (wasm has no threads here).

use core::ops::ControlFlow;

use memwall_core::clock::{self, Clock, time_ns};
use memwall_core::exec::Sequential;
use memwall_core::groupby::datagen::{self, DataSpec, Skew};
use memwall_core::groupby::sweep::{SweepEvent, Sweeper};
use memwall_core::groupby::{self, GroupByConfig, GroupResult, HeapMemory, Kernel, Outcome};
use memwall_report::{Dataset, Generator, GroupBy, GroupByRun, Summary, Sweep, SweepPoint};
use serde::{Deserialize, Serialize};

use crate::clock::cross_origin_isolated;

/// The keys to generate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataJob {
    pub rows: u64,
    pub keys: u64,
    /// "uniform" or "zipf:<exponent>".
    pub skew: String,
    pub seed: u64,
    /// The preset these came from, if unchanged.
    pub preset: Option<String>,
}

impl DataJob {
    pub fn spec(&self) -> Result<DataSpec, String> {
        let spec = DataSpec { rows: self.rows, keys: self.keys, skew: Skew::parse(&self.skew)?, seed: self.seed };
        spec.check().map_err(|e| e.to_string())?;
        Ok(spec)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Task {
    Race { kernels: Vec<String>, partitions: u32, runs: u32 },
    SweepPartitions { kernels: Vec<String>, partitions: Vec<u32>, runs: u32 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupByJob {
    pub data: DataJob,
    pub task: Task,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum GroupByEvent {
    Generating,
    Generated { seconds: f64, timer_resolution_ns: f64, cross_origin_isolated: bool },
    Running { kernel: String, run: u32, runs: u32, x: Option<u64> },
    Timed { kernel: String, run: u32, seconds: f64 },
    RaceDone { groupby: GroupBy },
    SweepPoint { point: SweepPoint },
    SweepDone { sweep: Sweep },
    Failed { message: String },
}

/// Kernels by name, refusing unknown ones.
pub fn kernels(names: &[String]) -> Result<Vec<Kernel>, String> {
    names.iter().map(|n| Kernel::parse(n).ok_or_else(|| format!("unknown kernel '{n}'"))).collect()
}

/// The most memory a job may need, so that the page can refuse a plan that cannot fit in a
/// browser's wasm memory before generating anything.
pub fn bytes_needed(data: &DataJob, kernels: &[Kernel], config: &GroupByConfig) -> u64 {
    let scratch = kernels.iter().map(|&k| groupby::scratch_bytes(k, data.rows, data.keys, config, 1)).max().unwrap_or(0);
    data.rows.saturating_mul(8).saturating_add(scratch)
}

pub fn run(job: &GroupByJob, clock: &dyn Clock, post: &mut dyn FnMut(GroupByEvent)) {
    if let Err(message) = run_inner(job, clock, post) {
        post(GroupByEvent::Failed { message });
    }
}

fn run_inner(job: &GroupByJob, clock: &dyn Clock, post: &mut dyn FnMut(GroupByEvent)) -> Result<(), String> {
    let spec = job.data.spec()?;
    let config = GroupByConfig {
        partitions: match &job.task {
            Task::Race { partitions, .. } => *partitions,
            Task::SweepPartitions { .. } => groupby::DEFAULT_PARTITIONS,
        },
        ..GroupByConfig::default()
    };
    config.validate().map_err(|e| e.to_string())?;
    post(GroupByEvent::Generating);
    let (generate_ns, keys) = time_ns(clock, || datagen::generate(&spec));
    let keys = keys.map_err(|e| e.to_string())?;
    post(GroupByEvent::Generated {
        seconds: generate_ns / 1e9,
        timer_resolution_ns: clock::resolution_ns(clock, 20),
        cross_origin_isolated: cross_origin_isolated(),
    });
    let dataset = Dataset {
        rows: spec.rows,
        distinct_keys: spec.keys,
        generator: Some(Generator { preset: job.data.preset.clone(), skew: spec.skew.name() }),
        input: None,
        seed: Some(spec.seed),
        max_rows_per_key: None,
    };
    match &job.task {
        Task::Race { kernels: names, runs, .. } => {
            let groupby = race(&kernels(names)?, &keys, &config, *runs, dataset, clock, post)?;
            post(GroupByEvent::RaceDone { groupby });
        }
        Task::SweepPartitions { kernels: names, partitions, runs } => {
            let kernels = kernels(names)?;
            let sweeper = Sweeper { kernels: &kernels, config, exec: &Sequential, memory: &HeapMemory, clock, runs: *runs };
            let sweep = sweeper
                .partitions(&keys, partitions, &mut |event| {
                    match event {
                        SweepEvent::Running { x, kernel, run, runs } => {
                            post(GroupByEvent::Running { kernel: kernel.name().into(), run, runs, x: Some(x) });
                        }
                        SweepEvent::Measured { x, kernel, ns_per_row } => post(GroupByEvent::SweepPoint {
                            point: SweepPoint { x, kernel: kernel.name().into(), ns_per_row, seconds: ns_per_row * spec.rows as f64 / 1e9 },
                        }),
                        SweepEvent::Generating { .. } => {}
                    }
                    ControlFlow::Continue(())
                })
                .map_err(|e| e.to_string())?;
            post(GroupByEvent::SweepDone { sweep });
        }
    }
    Ok(())
}

/// Times every kernel `runs` times, kernels taking turns so that a change in the machine's load
/// hits all alike, and checks that all agree exactly (as the CLI's race does).
fn race(
    kernels: &[Kernel],
    keys: &[i64],
    config: &GroupByConfig,
    runs: u32,
    mut dataset: Dataset,
    clock: &dyn Clock,
    post: &mut dyn FnMut(GroupByEvent),
) -> Result<GroupBy, String> {
    let runs = runs.max(1);
    let mut seconds = vec![Vec::new(); kernels.len()];
    let mut outcomes: Vec<Option<Outcome>> = vec![None; kernels.len()];
    let mut expected: Option<(Kernel, GroupResult)> = None;
    for run in 0..runs {
        for (k, &kernel) in kernels.iter().enumerate() {
            post(GroupByEvent::Running { kernel: kernel.name().into(), run, runs, x: None });
            let (ns, outcome) = time_ns(clock, || groupby::run(kernel, keys, config, &Sequential));
            let outcome = outcome.map_err(|e| format!("{}: {e}", kernel.name()))?;
            match &expected {
                None => expected = Some((kernel, outcome.result.clone())),
                Some((first, result)) if *result != outcome.result => {
                    return Err(format!("{} and {} disagree on the result: a kernel is wrong", first.name(), kernel.name()));
                }
                Some(_) => {}
            }
            post(GroupByEvent::Timed { kernel: kernel.name().into(), run, seconds: ns / 1e9 });
            seconds[k].push(ns / 1e9);
            outcomes[k] = Some(outcome);
        }
    }
    let rows = keys.len().max(1) as f64;
    let mut out = Vec::with_capacity(kernels.len());
    for ((&kernel, samples), outcome) in kernels.iter().zip(seconds).zip(outcomes) {
        let outcome = outcome.ok_or("a kernel did not run")?;
        let summary = Summary::of(&samples).ok_or("a run took no measurable time")?;
        out.push(GroupByRun {
            kernel: kernel.name().into(),
            threads: 1,
            partitions: outcome.partitions,
            seconds: summary,
            ns_per_row: summary.median * 1e9 / rows,
            samples_seconds: samples,
            groups: outcome.result.groups,
            checksum: memwall_report::checksum_hex(outcome.result.checksum),
            top: outcome.result.top.clone(),
            choice: outcome.choice,
            counters: None,
        });
    }
    if let Some((_, result)) = &expected {
        dataset.distinct_keys = result.groups;
        dataset.max_rows_per_key = result.top.first().map(|kc| kc.count);
    }
    Ok(GroupBy { dataset, runs: out, sweeps: Vec::new() })
}
