//! The report format that every memwall front end writes and reads.
//!
//! One set of types serves the native CLI (which writes `memwall-report.json`), the browser
//! (which saves its own runs with `source: "browser"`) and the viewer (which overlays reports
//! from several hosts). Field names carry their units, numbers stay raw numbers, and every
//! report carries [`SCHEMA_VERSION`] so a reader can refuse what it does not understand instead
//! of misreading it. Unknown *fields* are ignored, so later versions may add fields freely
//! without bumping the version; renaming or changing the meaning of a field bumps it.

mod bandwidth;
mod check;
mod cores;
mod csv;
mod engines;
pub use check::{Implausible, MAX_ITEMS, MAX_REPORT_BYTES, Untrusted, check_size, too_large_stopped};
mod explain;
pub mod fleet;
mod groupby;
mod host;
pub mod index;
mod join;
mod ladder;
mod race;
mod report;
mod sensitivity;
pub mod shelf;
mod watch;
pub use bandwidth::{Bandwidth, BandwidthPoint, LoadedLatency};
pub use cores::{CorePair, CoreTier, Cores, DeclaredTopology};
pub use csv::{
    GROUPBY_CSV_HEADER, JOIN_CSV_HEADER, LADDER_CSV_HEADER, fleet_csv, groupby_csv, join_csv, ladder_csv, reports_csv,
    rows_csv,
};
pub use engines::{ADAPTIVE, EngineSweep, EngineSweepPoint, FIRST_WITHIN, MEMWALL_PREFIX, Standing};
pub use explain::{Cause, ChainsPoint, ClockCheck, ClockEstimate, Level, Parallelism};

pub use groupby::{
    BestPartitions, CostModel, Counters, Crossover, Dataset, Generator, GroupBy, GroupByFigures, GroupByRun,
    GroupBySweepFigures, Input, KeyCount, PhaseTime, Query, Sweep, SweepPoint, Totals,
};
pub use host::{Cache, Host};
pub use join::{
    BuildSizeCrossover, BuildSizeFastest, Join, JoinDataset, JoinFigures, JoinRun, JoinSweep, JoinSweepFigures,
    JoinSweepPoint,
};
pub use ladder::{Curve, Ladder, LadderPoint, Step, Summary, quantile};
pub use race::{AdaptiveChoice, Figures, RaceSweep, Run, speedup_over};
pub use sensitivity::{PressureLevel, Sensitivity, SensitivityReading, ServerProbe};
pub use watch::{PointStability, Stability, Watch, WatchPoint, WatchSample};

pub use report::{Report, ReportError, SCHEMA_VERSION, Source, Tool, checksum_hex};

#[cfg(test)]
mod tests;
