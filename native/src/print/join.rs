//! The join race as the CLI prints it: the table, the rules and checks, the exact sums, choices.

use std::io::Write;

use memwall_core::join;
use memwall_report::Join;

use super::race;
use crate::output::Table;

/// One row per kernel (see [`race::table`]; build and probe are medians of their own), the
/// rules below it.
pub fn table(join: &Join) -> Table {
    race::table(&join.runs, memwall_core::race::rules::rules(&join.runs, &join::race::CHECKS))
}

/// The race as a table, then the rules and checks, the exact sums and adaptive's choice.
pub fn print_race(out: &mut dyn Write, join: &Join, label: &str) -> std::io::Result<()> {
    let d = &join.dataset;
    writeln!(
        out,
        "{label}: {} build keys (8-byte payloads), {} probe rows, {} of them missing from the build side",
        d.build_keys, d.probe_rows, d.misses
    )?;
    race::write_table(out, &table(join))?;
    if let Some(run) = join.runs.first()
        && let (Some(keys), Some(payloads)) = (&run.key_sum, &run.payload_sum)
    {
        // Every kernel agreed with the first (the race checks it), so one line serves them all.
        writeln!(
            out,
            "exact sums over the matches (as SQL's sum(key), sum(payload) in 128 bits): keys {keys}, payloads {payloads}"
        )?;
    }
    race::choices(out, &join.runs)
}
