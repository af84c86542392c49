//! The ladder as CSV, one row per working set: the native `--csv` file and the web page's export
//! write the same columns.

use crate::{JoinRun, LadderPoint};

/// The columns of [`JoinRun::csv_row`].
pub const JOIN_CSV_HEADER: &str = "kernel,threads,partitions,matches,checksum,ns_per_probe,build_seconds_median,probe_seconds_median,seconds_min,seconds_median,seconds_max,memory,verified_by";

impl JoinRun {
    /// One CSV row (no newline); unknown values are empty fields, the checks joined by `;`.
    pub fn csv_row(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.kernel,
            self.threads,
            self.partitions.map_or(String::new(), |p| p.to_string()),
            self.matches,
            self.checksum,
            self.ns_per_probe,
            self.build_seconds.median,
            self.probe_seconds.median,
            self.seconds.min,
            self.seconds.median,
            self.seconds.max,
            self.memory.as_deref().unwrap_or(""),
            self.verified_by.join(";"),
        )
    }
}

/// The columns of [`LadderPoint::csv_row`].
pub const LADDER_CSV_HEADER: &str = "bytes,ns_per_load_min,ns_per_load_median,ns_per_load_p90,ns_per_load_max,cycles_per_load,loads_per_sample,samples,huge_page_bytes,attempts";

impl LadderPoint {
    /// One CSV row (no newline); unknown values are empty fields.
    pub fn csv_row(&self) -> String {
        let ns = &self.ns_per_load;
        format!(
            "{},{},{},{},{},{},{},{},{},{}",
            self.bytes,
            ns.min,
            ns.median,
            ns.p90,
            ns.max,
            self.cycles_per_load.map_or(String::new(), |c| c.to_string()),
            self.loads_per_sample,
            self.samples,
            self.huge_page_bytes.map_or(String::new(), |b| b.to_string()),
            self.attempts,
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::{LADDER_CSV_HEADER, LadderPoint, Summary};

    #[test]
    fn a_row_has_a_field_per_column() {
        let point = LadderPoint {
            bytes: 16384,
            ns_per_load: Summary { min: 1.0, median: 1.5, p90: 2.0, max: 3.0 },
            cycles_per_load: None,
            ghz: None,
            clock_moved: false,
            loads_per_sample: 1000,
            samples: 15,
            samples_ns_per_load: vec![],
            attempts: 2,
            huge_page_bytes: Some(0),
        };
        assert_eq!(point.csv_row(), "16384,1,1.5,2,3,,1000,15,0,2");
        assert_eq!(point.csv_row().split(',').count(), LADDER_CSV_HEADER.split(',').count());
    }
}
