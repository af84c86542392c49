//! The host: what is known of the machine, and the caches it declares.

use serde::{Deserialize, Serialize};

use crate::explain::ClockEstimate;

/// What is known of the machine. Every field is optional because a browser sees little of it
/// and a VM may hide some; `None` means "not known", never "zero".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    /// A label for the host: the hostname natively, or what the user typed.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub cpu_model: Option<String>,
    #[serde(default)]
    pub logical_cpus: Option<u32>,
    /// Caches as the OS (or hypervisor) declares them, which is not always what the silicon has.
    #[serde(default)]
    pub caches: Vec<Cache>,
    /// The hypervisor's name (e.g. "KVM"), `"none"` on bare metal, `None` when unknown.
    #[serde(default)]
    pub hypervisor: Option<String>,
    #[serde(default)]
    pub os: Option<String>,
    #[serde(default)]
    pub page_bytes: Option<u64>,
    /// Transparent huge page mode: "always", "madvise" or "never".
    #[serde(default)]
    pub thp: Option<String>,
    #[serde(default)]
    pub memory_bytes: Option<u64>,
    /// Core clock estimated from a dependent add chain (not the nominal or TSC frequency).
    #[serde(default)]
    pub core_ghz: Option<f64>,
    /// How `core_ghz` was had and how far it can be trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_clock: Option<ClockEstimate>,
    /// Why `core_ghz` is missing, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core_ghz_unavailable: Option<String>,
    /// The smallest step the clock used for timing was seen to take.
    #[serde(default)]
    pub timer_resolution_ns: Option<f64>,
    /// Browser only: the user agent string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// Browser only: whether the page was cross-origin isolated (which buys finer timers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_origin_isolated: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cache {
    pub level: u8,
    /// "Data", "Instruction" or "Unified", as Linux spells them.
    pub kind: String,
    pub size_bytes: u64,
    #[serde(default)]
    pub line_bytes: Option<u32>,
    /// How many logical CPUs share one instance of this cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_by_cpus: Option<u32>,
}
