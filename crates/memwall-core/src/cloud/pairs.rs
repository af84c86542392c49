//! What a VM hides of its chip, from the shelf alone: within one provider, the types of one CPU
//! model sold as bare metal set beside the types of the same model sold as VMs (`memwall cloud
//! --pairs`, the Cloud tab's pairs view).
//!
//! Providers spell one model differently ("Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz" and
//! "Intel(R) Xeon(R) Platinum 8481C"), so models are compared by [`model_key`]. A name without a
//! digit names no model ("Intel(R) Xeon(R) CPU @ 2.20GHz", QEMU's "AMD EPYC-Genoa Processor") and
//! pairs with nothing. A type counts as bare metal where the shelf says so (its name says metal);
//! every other type of a model its provider also sells as metal counts as a VM, including Arm
//! types whose `lscpu` names no hypervisor.

use memwall_report::fleet::FleetRow;

use super::ShelfHost;
use super::table::metal_text;
use crate::size::format_bytes;

/// A CPU model as providers' names share it: lower case, without `(R)`, `(TM)`, the clock after
/// `@`, and the words `CPU`, `Processor` and `N-Core`; `None` for a name that names no model.
pub fn model_key(cpu: &str) -> Option<String> {
    let lower = cpu.to_lowercase().replace("(r)", " ").replace("(tm)", " ");
    let before_clock = lower.split('@').next().unwrap_or_default();
    let words: Vec<&str> = before_clock
        .split_whitespace()
        .filter(|w| !matches!(*w, "cpu" | "processor") && !w.ends_with("-core"))
        .collect();
    let key = words.join(" ");
    key.chars().any(|c| c.is_ascii_digit()).then_some(key)
}

/// One provider's CPU model on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub provider: String,
    /// The model as the metal type's `lscpu` names it.
    pub model: String,
    /// Indices of the hosts, bare metal and VMs, each side by vCPUs then name.
    pub metal: Vec<usize>,
    pub vms: Vec<usize>,
}

/// Every (provider, model) with at least one bare-metal type and one VM type, by provider and model.
pub fn pairs(hosts: &[ShelfHost]) -> Vec<Pair> {
    let mut keyed: Vec<(String, String, usize)> = hosts
        .iter()
        .enumerate()
        .filter_map(|(i, h)| Some((h.entry.provider.clone(), model_key(&h.entry.cpu)?, i)))
        .collect();
    keyed.sort();
    let mut out = Vec::new();
    for group in keyed.chunk_by(|a, b| (&a.0, &a.1) == (&b.0, &b.1)) {
        let order = |indices: Vec<usize>| {
            let mut indices = indices;
            indices.sort_by_key(|&i| (hosts[i].entry.vcpus, hosts[i].entry.instance_type.clone()));
            indices
        };
        let (metal, vms): (Vec<usize>, Vec<usize>) =
            group.iter().map(|g| g.2).partition(|&i| hosts[i].entry.metal == Some(true));
        if let (Some(&first), false) = (metal.first(), vms.is_empty()) {
            out.push(Pair {
                provider: group[0].0.clone(),
                model: hosts[first].entry.cpu.clone(),
                metal: order(metal),
                vms: order(vms),
            });
        }
    }
    out
}

/// A VM's figure against its metal type's: `vm / metal`, where both were read.
pub fn ratio(vm: Option<f64>, metal: Option<f64>) -> Option<f64> {
    match (vm, metal) {
        (Some(v), Some(m)) if m > 0.0 => Some(v / m),
        _ => None,
    }
}

/// "fast 50%, DRAM +12%": a VM's fast working set as a share of its metal type's, and its DRAM
/// latency above (or below) the metal type's.
pub fn against_metal(vm: &FleetRow, metal: &FleetRow) -> String {
    let fast = ratio(vm.effective_llc_bytes.map(|b| b as f64), metal.effective_llc_bytes.map(|b| b as f64));
    let dram = ratio(vm.dram_ns, metal.dram_ns);
    let fast = fast.map_or("fast -".into(), |r| {
        let share = r * 100.0;
        if share >= 10.0 { format!("fast {share:.0}%") } else { format!("fast {share:.1}%") }
    });
    let dram = dram.map_or("DRAM -".into(), |r| format!("DRAM {:+.0}%", (r - 1.0) * 100.0));
    format!("{fast}, {dram}")
}

/// The columns of the pairs' table, as `memwall cloud --pairs` prints it and the Cloud tab draws it.
pub const PAIR_HEADER: [&str; 9] =
    ["provider", "cpu", "type", "metal", "vCPUs", "fast", "fast ns", "DRAM ns", "vs metal"];

/// What "vs metal" means, printed under the table.
pub const PAIR_NOTE: &str = "vs metal: the VM's fast working set as a share of the pair's first bare-metal type's, and \
     its DRAM ns above or below that type's";

/// The pair's lines: its bare-metal types, then its VMs set against the first metal type, each as
/// (the type's index among the shelf's hosts, its cells under [`PAIR_HEADER`]). `row` gives a
/// host's row by that index.
pub fn pair_lines<'a>(pair: &Pair, row: impl Fn(usize) -> &'a FleetRow) -> Vec<(usize, Vec<String>)> {
    let num = |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
    let metal = row(pair.metal[0]);
    pair.metal
        .iter()
        .chain(&pair.vms)
        .map(|&i| {
            let r = row(i);
            let versus = if pair.metal.contains(&i) { "-".into() } else { against_metal(r, metal) };
            let cells = vec![
                pair.provider.clone(),
                pair.model.clone(),
                r.host.clone(),
                metal_text(r),
                r.vcpus.map_or("-".into(), |v| v.to_string()),
                r.effective_llc_bytes.map_or("-".into(), format_bytes),
                num(r.effective_llc_ns, 1),
                num(r.dram_ns, 0),
                versus,
            ];
            (i, cells)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_model_spelt_two_ways_is_one_model_and_generic_names_are_none() {
        let a = model_key("Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz");
        assert_eq!(a.as_deref(), Some("intel xeon platinum 8481c"));
        assert_eq!(a, model_key("Intel(R) Xeon(R) Platinum 8481C"));
        assert_eq!(
            model_key("INTEL(R) XEON(R) PLATINUM 8581C CPU @ 2.10GHz").as_deref(),
            Some("intel xeon platinum 8581c")
        );
        assert_eq!(model_key("AMD EPYC 7443P 24-Core Processor").as_deref(), Some("amd epyc 7443p"));
        assert_eq!(model_key("Neoverse-V3").as_deref(), Some("neoverse-v3"));
        for generic in ["Intel(R) Xeon(R) CPU @ 2.20GHz", "AMD EPYC-Genoa Processor", "Intel(R) Xeon(R) Platinum", ""] {
            assert_eq!(model_key(generic), None, "{generic}");
        }
    }
}
