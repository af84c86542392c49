//! `memwall bandwidth`: streaming read, write and copy in GB/s per working set.

use memwall_report::Report;

use crate::bandwidth_measure::{BandwidthArgs, measure};
use crate::error::{CliError, CliResult};
use crate::output;
use crate::platform::NativeClock;
use crate::print::bandwidth::{print_bandwidth, table};

pub fn bandwidth(args: BandwidthArgs) -> CliResult {
    args.export.check()?;
    let clock = NativeClock::new();
    let measured = measure(&args, &clock)?;
    print_bandwidth(&mut *args.export.human(), &measured).map_err(|e| CliError::runtime(e.to_string()))?;
    args.export.write(
        || Report { bandwidth: Some(measured.clone()), ..output::new_report(crate::host::describe()) },
        || table(&measured).csv(),
        || table(&measured),
    )
}
