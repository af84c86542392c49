//! memwall against SQL engines at every cardinality, as `bench/sweep.py` measures it: the same
//! query at each point by memwall's kernels and by DuckDB, ClickHouse (chDB), Polars and
//! DataFusion, each with the rows in its own memory. The page draws it with the engines
//! overlaid; a report from any host may carry such sweeps.

use serde::{Deserialize, Serialize};

/// One sweep: every point of one run of the bench.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineSweep {
    /// The bench's name for the run: `sweep-quick`, `sweep-full`, `sweep-quick-join`, ...
    pub mode: String,
    /// Rows at every point (probe rows for the join).
    pub rows: u64,
    /// Timed runs per point and round, after one untimed; the fastest of all rounds counts.
    pub runs: u32,
    /// Rounds at each point, memwall and the engines taking turns, so that the host's slow
    /// swings land on every side alike (sweeps before rounds ran each side once: 1).
    #[serde(default = "one_round")]
    pub rounds: u32,
    pub elapsed_seconds: f64,
    /// Whether every engine's answer equalled memwall's at every point.
    pub all_agree: bool,
    /// The rules both sides ran under, in words (what is timed, memory, warm-up).
    pub rules: String,
    /// Each engine with its version, as the bench names it.
    #[serde(default)]
    pub engines: Vec<String>,
    pub points: Vec<EngineSweepPoint>,
}

fn one_round() -> u32 {
    1
}

impl EngineSweep {
    /// How each figure was taken, in words.
    pub fn taken(&self) -> String {
        let runs = if self.runs == 1 { "1 warm run".to_string() } else { format!("{} warm runs", self.runs) };
        match self.rounds {
            0 | 1 => format!("best of {runs} after one untimed"),
            n => format!("best of {runs} after one untimed in each of {n} rounds taking turns"),
        }
    }
}

/// One engine (or memwall kernel) at one point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineSweepPoint {
    /// `count`, `sum` or `join`.
    pub query: String,
    /// The keys' distribution (`uniform`, `zipf:1.1`), or the join's `miss 0.3`.
    pub series: String,
    /// Distinct keys (the join: keys on the build side).
    pub keys: u64,
    pub threads: u32,
    /// `memwall adaptive`, `memwall tuned`, `DuckDB 2.0.1`, ...
    pub engine: String,
    /// The fastest timed run, per row (per probe row for the join).
    pub ns_per_row: f64,
    pub samples_seconds: Vec<f64>,
    /// What memwall adaptive picked, for its points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chose: Option<String>,
    /// Whether every engine's answer equalled memwall's at this point.
    pub agrees: bool,
}

/// The name every memwall kernel's points start with; the rest are engines.
pub const MEMWALL_PREFIX: &str = "memwall ";
/// memwall's own pick at each point, the line every engine is held to.
pub const ADAPTIVE: &str = "memwall adaptive";

impl EngineSweepPoint {
    pub fn is_memwall(&self) -> bool {
        self.engine.starts_with(MEMWALL_PREFIX)
    }
}

/// memwall adaptive counts as first at a point where the fastest engine is at most this much
/// faster (bench/sweep.py uses the same bar).
pub const FIRST_WITHIN: f64 = 1.05;

/// How memwall adaptive stands against the fastest engine at one point.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing<'a> {
    pub keys: u64,
    pub adaptive: &'a EngineSweepPoint,
    pub best_engine: &'a EngineSweepPoint,
    /// The best engine's time over adaptive's: above 1, adaptive is ahead.
    pub lead: f64,
}

impl Standing<'_> {
    /// Adaptive within [`FIRST_WITHIN`] of the best engine, or ahead.
    pub fn first(&self) -> bool {
        self.lead * FIRST_WITHIN >= 1.0
    }
}

impl EngineSweep {
    /// Every panel the sweep holds: (query, series, threads), in order.
    pub fn panels(&self) -> Vec<(&str, &str, u32)> {
        let mut panels: Vec<(&str, &str, u32)> =
            self.points.iter().map(|p| (p.query.as_str(), p.series.as_str(), p.threads)).collect();
        panels.sort_unstable();
        panels.dedup();
        panels
    }

    /// Adaptive against the best engine at each number of keys of one panel.
    pub fn standings(&self, query: &str, series: &str, threads: u32) -> Vec<Standing<'_>> {
        let here: Vec<&EngineSweepPoint> =
            self.points.iter().filter(|p| p.query == query && p.series == series && p.threads == threads).collect();
        let mut keys: Vec<u64> = here.iter().map(|p| p.keys).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.into_iter()
            .filter_map(|k| {
                let at = here.iter().copied().filter(|p| p.keys == k);
                let adaptive = at.clone().find(|p| p.engine == ADAPTIVE)?;
                let best_engine =
                    at.filter(|p| !p.is_memwall()).min_by(|a, b| a.ns_per_row.total_cmp(&b.ns_per_row))?;
                Some(Standing { keys: k, adaptive, best_engine, lead: best_engine.ns_per_row / adaptive.ns_per_row })
            })
            .collect()
    }
}
