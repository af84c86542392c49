//! The cloud shelf's file (`data/cloud/shelf.json`, written by `scripts/cloud-shelf.py`): the
//! latency curves of cloud instance types as another tool measured them, with what each type's
//! `lscpu` declared. It holds raw measurements only; `memwall_core::cloud` reads levels from them
//! when the shelf is loaded. The data is CC BY-SA 4.0 (`data/cloud/LICENSE.md`): whatever shows
//! a shelf figure shows [`Shelf::attribution`] with it.

use serde::{Deserialize, Serialize};

use crate::fleet::FleetRow;

/// The whole file: where it came from, how its curves were measured, one entry per type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shelf {
    /// The data's source (a repository URL) and the commit it was taken at.
    pub source: String,
    pub commit: String,
    pub license: String,
    /// How every curve was measured, in words.
    pub measured_by: String,
    /// The chase's pattern ("random") and the pages it ran on, in words.
    pub pattern: String,
    pub pages: String,
    pub hosts: Vec<ShelfEntry>,
}

/// One instance type as measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShelfEntry {
    /// `aws`, `azure`, `gcp`, `alicloud`, `hcloud`, `ovh`, `upcloud`, `vultr`.
    pub provider: String,
    /// The provider's name for the type, e.g. `m9g.large`.
    #[serde(rename = "type")]
    pub instance_type: String,
    /// The CPU model as `lscpu` names it (not normalised: providers spell one model differently).
    pub cpu: String,
    /// `x86_64` or `aarch64`.
    pub arch: String,
    pub vcpus: u32,
    /// A bare-metal type (`true`), a VM (`false`: `lscpu` names a hypervisor), or not said
    /// (`null`: Arm types, whose `lscpu` prints no hypervisor line).
    pub metal: Option<bool>,
    /// The hypervisor `lscpu` names (`KVM`, `Microsoft`, `Xen`).
    pub hypervisor: Option<String>,
    /// The day it was measured, `YYYY-MM-DD`.
    pub measured: String,
    /// The measuring tool and its version, e.g. `sc-membench 1.2.2`.
    pub tool: String,
    /// The caches `lscpu` declares: (level, kind, bytes of one cache, CPUs sharing one).
    pub caches: Vec<(u8, String, u64, Option<u32>)>,
    /// The latency curve: (working set bytes, ns per load), smallest first.
    pub latency: Vec<(u64, f64)>,
    pub bandwidth: ShelfBandwidth,
}

/// Streaming bandwidth with every thread, as measured: (bytes, MB/s, threads) per working set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShelfBandwidth {
    #[serde(default)]
    pub read: Vec<(u64, f64, u32)>,
    #[serde(default)]
    pub write: Vec<(u64, f64, u32)>,
    #[serde(default)]
    pub copy: Vec<(u64, f64, u32)>,
}

/// `memwall cloud --json`: the rows shown, with the attribution they are shown under; with
/// `--near`, what was compared and each row's distance; with `--pairs`, which rows pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CloudListing {
    pub schema_version: u32,
    pub attribution: String,
    pub rows: Vec<FleetRow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<NearListing>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pairs: Vec<PairListing>,
}

/// The rows ranked against a report: `distances[i]` is `rows[i]`'s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NearListing {
    pub report: String,
    /// The report's curve compared ("page-local on THP"), and why it is not like for like.
    pub curve: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caution: Option<String>,
    /// The RMS of log-latency differences at the type's sizes, and how many sizes were compared.
    pub distances: Vec<f64>,
    pub sizes_compared: Vec<usize>,
}

/// One provider's CPU model sold both as bare metal and as VMs: the types on each side, by the
/// rows' `host` (the type's name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairListing {
    pub provider: String,
    pub model: String,
    pub metal: Vec<String>,
    pub vms: Vec<String>,
}

/// Why a shelf file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ShelfError {
    #[error("not a cloud shelf: {0}")]
    Malformed(String),
    #[error("cloud shelf entry {provider} {instance_type}: {why}")]
    BadEntry { provider: String, instance_type: String, why: String },
}

impl Shelf {
    /// Parses a shelf file and checks each curve is one a reader can use: sizes growing, latencies
    /// finite and positive.
    pub fn from_json(text: &str) -> Result<Self, ShelfError> {
        let shelf: Self = serde_json::from_str(text).map_err(|e| ShelfError::Malformed(e.to_string()))?;
        for entry in &shelf.hosts {
            entry.check().map_err(|why| ShelfError::BadEntry {
                provider: entry.provider.clone(),
                instance_type: entry.instance_type.clone(),
                why,
            })?;
        }
        Ok(shelf)
    }

    /// The line every view of shelf figures carries (CC BY-SA 4.0 asks for it).
    pub fn attribution(&self) -> String {
        format!(
            "Cloud latency curves: Spare Cores (sparecores.com), {} at {}, {}; measured by {}",
            self.source,
            &self.commit[..self.commit.len().min(12)],
            self.license,
            self.measured_by
        )
    }
}

impl ShelfEntry {
    fn check(&self) -> Result<(), String> {
        if self.latency.is_empty() {
            return Err("no latency curve".into());
        }
        if self.latency.windows(2).any(|w| w[1].0 <= w[0].0) {
            return Err("the curve's sizes do not grow".into());
        }
        if self.latency.iter().any(|&(bytes, ns)| bytes == 0 || !ns.is_finite() || ns <= 0.0) {
            return Err("a latency that is not a positive number".into());
        }
        Ok(())
    }

    /// Unix seconds at the start of the day it was measured (UTC), `None` if the date is not one.
    pub fn measured_unix_s(&self) -> Option<u64> {
        let mut parts = self.measured.splitn(3, '-').map(str::parse::<i64>);
        let (Some(Ok(year)), Some(Ok(month)), Some(Ok(day))) = (parts.next(), parts.next(), parts.next()) else {
            return None;
        };
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || year < 1970 {
            return None;
        }
        u64::try_from(days_from_civil(year, month, day) * 86_400).ok()
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`, the
/// inverse of the `civil_from_days` the fleet table prints dates with).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"{"provider":"aws","type":"m9g.large","cpu":"Neoverse-V3","arch":"aarch64","vcpus":2,
        "metal":null,"hypervisor":null,"measured":"2026-03-01","tool":"sc-membench 1.2.2",
        "caches":[[1,"Data",65536,1],[2,"Unified",2097152,1],[3,"Unified",37748736,null]],
        "latency":[[16384,1.2],[1048576,4.0],[134217728,110.0]],
        "bandwidth":{"read":[[134217728,20000,2]],"write":[],"copy":[]}}"#;

    fn shelf(hosts: &str) -> String {
        format!(
            r#"{{"about":"x","source":"https://github.com/SpareCores/sc-inspector-data","commit":"804d3c71ddaec2fb",
            "license":"CC BY-SA 4.0","measured_by":"sc-membench","pattern":"random","pages":"huge","hosts":[{hosts}]}}"#
        )
    }

    #[test]
    fn a_shelf_parses_and_names_its_source() {
        let shelf = Shelf::from_json(&shelf(ONE)).unwrap();
        let entry = &shelf.hosts[0];
        assert_eq!((entry.instance_type.as_str(), entry.metal, entry.vcpus), ("m9g.large", None, 2));
        assert_eq!(entry.caches[2], (3, "Unified".to_string(), 37_748_736, None));
        assert_eq!(entry.bandwidth.read, [(134_217_728, 20000.0, 2)]);
        assert!(shelf.attribution().contains("Spare Cores") && shelf.attribution().contains("CC BY-SA 4.0"));
        // 2026-03-01 is 20,513 days after 1970-01-01.
        assert_eq!(entry.measured_unix_s(), Some(20_513 * 86_400));
    }

    #[test]
    fn curves_a_reader_cannot_use_are_refused_by_name() {
        let shrinking = ONE.replace("[1048576,4.0]", "[8192,4.0]");
        let err = Shelf::from_json(&shelf(&shrinking)).unwrap_err().to_string();
        assert_eq!(err, "cloud shelf entry aws m9g.large: the curve's sizes do not grow");
        let negative = ONE.replace("[1048576,4.0]", "[1048576,-4.0]");
        assert!(Shelf::from_json(&shelf(&negative)).unwrap_err().to_string().contains("positive"));
        assert!(Shelf::from_json("{}").unwrap_err().to_string().starts_with("not a cloud shelf"));
    }

    #[test]
    fn dates_count_days_from_1970() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
        assert_eq!(days_from_civil(2100, 3, 1), 47_541);
        let bad = |date: &str| ShelfEntry {
            measured: date.into(),
            ..Shelf::from_json(&shelf(ONE)).unwrap().hosts[0].clone()
        };
        assert_eq!(bad("2026-13-01").measured_unix_s(), None);
        assert_eq!(bad("yesterday").measured_unix_s(), None);
    }
}
