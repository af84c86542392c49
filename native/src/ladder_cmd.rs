//! `memwall ladder`: ns per load from L1 to DRAM.

use memwall_report::Report;

use crate::error::{CliError, CliResult};
use crate::ladder_measure::{LadderArgs, measure};
use crate::output;
use crate::platform::NativeClock;

pub fn ladder(args: LadderArgs) -> CliResult {
    let clock = NativeClock::new();
    let host = crate::host::measured(&clock);
    args.export.check()?;
    let ladder = measure(&args, &host, &clock)?;
    crate::print::ladder::print_ladder(&mut *args.export.human(), &ladder, &host.caches)
        .map_err(|e| CliError::runtime(e.to_string()))?;
    args.export.write(
        || Report { ladder: Some(ladder.clone()), ..output::new_report(host.clone()) },
        || memwall_report::ladder_csv(&ladder.points),
        || crate::print::ladder::table(&ladder),
    )
}
