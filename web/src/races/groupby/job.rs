//! The GROUP BY race and the partitions sweep, in a worker: the core's kernels over the core's
//! generated keys, timed with the browser's clock, single-threaded (wasm has no threads here).

use core::ops::ControlFlow;

use memwall_core::clock::{self, Clock, time_ns};
use memwall_core::cost;
use memwall_core::datagen::{self, DataSpec, Skew};
use memwall_core::exec::Sequential;
use memwall_core::groupby::race::{Racer, Truth};
use memwall_core::groupby::sweep::SweepEvent;
use memwall_core::groupby::{self, Aggregates, GroupByConfig, Kernel, ValueColumn, ValueType, Values};
use memwall_core::scratch::{HeapChunks, MemoryPolicy};
use memwall_report::{Dataset, Generator, SweepPoint};
use serde::{Deserialize, Serialize};

use crate::clock::{PerformanceClock, cross_origin_isolated};
use crate::races::messages::{Progress, RaceMessage, progress_of};
use crate::races::sizing::Sizing;

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
    /// What to compute per group: a comma list of count, sum, min, max, avg.
    pub aggregates: String,
    /// The generated value column's type, "i64" or "f64" (read unless only counting).
    pub value_type: String,
}

impl DataJob {
    pub fn spec(&self) -> Result<DataSpec, String> {
        let spec = DataSpec { rows: self.rows, keys: self.keys, skew: Skew::parse(&self.skew)?, seed: self.seed };
        spec.check().map_err(|e| e.to_string())?;
        Ok(spec)
    }

    /// The aggregates and the value type, as the CLI's `--agg` and `--value-type` parse them.
    pub fn query(&self) -> Result<(Aggregates, ValueType), String> {
        super::agg_choice::parse(&self.aggregates, &self.value_type)
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
    /// The ladder the kernels' caches are sized by.
    pub sizing: Sizing,
}

/// Kernels by name, refusing unknown ones.
pub fn kernels(names: &[String]) -> Result<Vec<Kernel>, String> {
    names.iter().map(|n| Kernel::parse(n).ok_or_else(|| format!("unknown kernel '{n}'"))).collect()
}

/// The most memory a job may need, so that the page can refuse a plan that cannot fit in a
/// browser's wasm memory before generating anything.
/// `config.aggregates` decides the rest: a value column beside the keys, bigger table slots,
/// wider scattered rows and the reference's row order.
pub fn bytes_needed(data: &DataJob, kernels: &[Kernel], config: &GroupByConfig) -> u64 {
    let scratch =
        kernels.iter().map(|&k| groupby::scratch_bytes(k, data.rows, data.keys, config, 1)).max().unwrap_or(0);
    let reference = if Truth::by_default(data.rows, None).reference {
        groupby::reference_bytes(data.rows, config.aggregates)
    } else {
        0
    };
    groupby::input_bytes(data.rows, config.aggregates).saturating_add(scratch).saturating_add(reference)
}

/// The rules the browser races under, those of the native default: one warm scratch pool for
/// every kernel (here wasm heap memory, reused from run to run), every run checked against the
/// generator's key count, the row total, the other kernels and, below the native limit, the
/// reference.
fn rules<'a>(config: GroupByConfig, clock: &'a dyn Clock, spec: &DataSpec, values: Values<'a>) -> Racer<'a> {
    Racer {
        kernels: &[],
        memory: &HeapChunks,
        policy: MemoryPolicy::Warm,
        runs: 1,
        work: groupby::race::GroupByWork {
            config,
            exec: &Sequential,
            clock,
            truth: Truth::by_default(spec.rows, Some(spec.keys)),
            phases: None,
            values,
        },
    }
}

/// Generates the data and runs the task, posting its progress and its result.
pub fn run(job: &GroupByJob, post: &mut dyn FnMut(RaceMessage)) -> Result<(), String> {
    let clock = PerformanceClock::new()?;
    let spec = job.data.spec()?;
    let (aggregates, value_type) = job.data.query()?;
    let config = GroupByConfig {
        aggregates,
        partitions: match &job.task {
            Task::Race { partitions, .. } => *partitions,
            Task::SweepPartitions { .. } => groupby::DEFAULT_PARTITIONS,
        },
        budget: job.sizing.budget(),
        host: job.sizing.host(),
    };
    config.validate().map_err(|e| e.to_string())?;
    post(RaceMessage::Progress(Progress::Generating));
    let (generate_ns, keys) = time_ns(&clock, || datagen::generate(&spec));
    let keys = keys.map_err(|e| e.to_string())?;
    // The native generator's column: row i gets the same value in both, so the totals agree.
    let column: Option<ValueColumn> = aggregates
        .needs_values()
        .then(|| memwall_core::groupby::values::generate_values(&spec, value_type, &Sequential));
    let values = column.as_ref().map_or(Values::None, ValueColumn::values);
    post(RaceMessage::Progress(Progress::Generated {
        seconds: generate_ns / 1e9,
        timer_resolution_ns: clock::resolution_ns(&clock, 20),
        cross_origin_isolated: cross_origin_isolated(),
    }));
    let dataset = Dataset {
        rows: spec.rows,
        distinct_keys: spec.keys,
        generator: Some(Generator { preset: job.data.preset.clone(), skew: spec.skew.name(), shape: None }),
        input: None,
        seed: Some(spec.seed),
        max_rows_per_key: None,
    };
    match &job.task {
        Task::Race { kernels: names, runs, .. } => {
            let kernels = kernels(names)?;
            let racer = Racer { kernels: &kernels, runs: *runs, ..rules(config, &clock, &spec, values) };
            let mut groupby =
                racer.race(&keys, dataset, &mut progress_of(Kernel::name, post)).map_err(|e| e.to_string())?;
            // Predicted beside measured, from the same ladder the kernels were sized by.
            if let Some(machine) = job.sizing.machine() {
                cost::annotate(&mut groupby, &keys, &machine, &config);
            }
            post(RaceMessage::GroupByDone(groupby));
        }
        Task::SweepPartitions { kernels: names, partitions, runs } => {
            let kernels = kernels(names)?;
            let sweeper = Racer { kernels: &kernels, runs: *runs, ..rules(config, &clock, &spec, values) };
            let sweep = sweeper
                .partitions(&keys, partitions, &mut |event| {
                    match event {
                        SweepEvent::Running { x, kernel, run, runs } => {
                            post(RaceMessage::Progress(Progress::Running {
                                kernel: kernel.name().into(),
                                run,
                                runs,
                                x: Some(x),
                            }));
                        }
                        SweepEvent::Measured { x, kernel, ns_per_row } => post(RaceMessage::SweepPoint(SweepPoint {
                            x,
                            kernel: kernel.name().into(),
                            ns_per_row,
                            seconds: ns_per_row * spec.rows as f64 / 1e9,
                            predicted_ns_per_row: None,
                        })),
                        SweepEvent::Generating { .. } => {}
                    }
                    ControlFlow::Continue(())
                })
                .map_err(|e| e.to_string())?;
            post(RaceMessage::SweepDone(sweep));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(aggregates: &str, value_type: &str) -> DataJob {
        DataJob {
            rows: 10_000_000,
            keys: 1_700_000,
            skew: "uniform".into(),
            seed: 1,
            preset: None,
            aggregates: aggregates.into(),
            value_type: value_type.into(),
        }
    }

    #[test]
    fn a_bigger_state_needs_more_memory_and_a_bad_one_is_refused() {
        let needed = |job: &DataJob| {
            let (aggregates, _) = job.query().unwrap();
            let config = GroupByConfig { aggregates, ..GroupByConfig::default() };
            bytes_needed(job, &Kernel::ALL, &config)
        };
        let count = needed(&data("count", "i64"));
        let sum = needed(&data("sum", "i64"));
        let all = needed(&data("count,sum,min,max,avg", "i64"));
        // The value column alone adds 8 bytes a row.
        assert!(sum >= count + 10_000_000 * 8, "{count} {sum}");
        assert!(all > sum, "{sum} {all}");
        assert!(data("sum,median", "i64").query().unwrap_err().contains("median"));
        assert!(data("sum", "i32").query().unwrap_err().contains("i32"));
    }
}
