//! The visitor's own hosts as the Cloud page sets them beside the shelf.

use memwall_core::cloud::near::{Compared, NearError, compared_curve};
use memwall_core::fleet;
use memwall_report::Report;
use memwall_report::fleet::FleetRow;

/// One of the visitor's own hosts: how memwall reads it, and its curve most like the shelf's.
#[derive(Debug, Clone, PartialEq)]
pub struct Own {
    pub label: String,
    pub row: FleetRow,
    pub compared: Result<Compared, NearError>,
}

impl Own {
    pub(super) fn of(label: String, report: &Report) -> Self {
        Self { row: fleet::row(report.clone(), &label), compared: compared_curve(report), label }
    }
}
