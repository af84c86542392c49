//! What this host says about itself: CPU, caches as declared, virtualization, pages, memory.
//!
//! Everything is read from the OS (sysfs, procfs) or CPUID and reported as declared; on a VM the
//! declared caches are the hypervisor's story, which the ladder's named levels (core `explain.rs`) then
//! set against what it measures.

use std::fs;
use std::path::Path;

use memwall_core::clock::Clock;

use memwall_report::{Cache, Host};

fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// The host as far as it can be known without measuring (the clock fields are filled by callers
/// that measure them).
pub fn describe() -> Host {
    Host {
        name: read_trimmed("/proc/sys/kernel/hostname"),
        cpu_model: cpu_model(),
        logical_cpus: std::thread::available_parallelism().ok().map(|n| n.get() as u32),
        caches: caches(Path::new("/sys/devices/system/cpu/cpu0/cache")),
        hypervisor: hypervisor(),
        os: os(),
        page_bytes: Some(procfs::page_size()),
        thp: read_trimmed("/sys/kernel/mm/transparent_hugepage/enabled").and_then(|s| bracketed(&s)),
        memory_bytes: crate::platform::total_memory_bytes(),
        core_ghz: None,
        core_clock: None,
        core_ghz_unavailable: None,
        timer_resolution_ns: None,
        user_agent: None,
        cross_origin_isolated: None,
    }
}

fn cpu_model() -> Option<String> {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").ok()?;
    cpuinfo
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once(':')?;
            matches!(key.trim(), "model name" | "Model" | "cpu model").then(|| value.trim().to_string())
        })
        .filter(|s| !s.is_empty())
}

/// The active choice in a sysfs list such as `always [madvise] never`.
fn bracketed(list: &str) -> Option<String> {
    let start = list.find('[')? + 1;
    let end = start + list[start..].find(']')?;
    Some(list[start..end].to_string())
}

/// Caches of CPU 0 as sysfs lists them (`index*/{level,type,size,...}`).
pub fn caches(dir: &Path) -> Vec<Cache> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut caches: Vec<Cache> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("index"))
        .filter_map(|e| {
            let path = e.path();
            Some(Cache {
                level: read_trimmed(path.join("level"))?.parse().ok()?,
                kind: read_trimmed(path.join("type"))?,
                size_bytes: memwall_core::size::parse_size(&read_trimmed(path.join("size"))?).ok()?,
                line_bytes: read_trimmed(path.join("coherency_line_size")).and_then(|s| s.parse().ok()),
                shared_by_cpus: read_trimmed(path.join("shared_cpu_list")).map(|s| count_cpu_list(&s)),
            })
        })
        .collect();
    caches.sort_by(|a, b| (a.level, &a.kind).cmp(&(b.level, &b.kind)));
    caches
}

/// Counts the CPUs in a list such as `0-3,8,10-11`.
fn count_cpu_list(list: &str) -> u32 {
    memwall_core::cores::parse_cpu_list(list).map_or(0, |cpus| cpus.len() as u32)
}

/// The hypervisor's name, "none" on bare metal, or None if it can't be told.
fn hypervisor() -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        let cpuid = raw_cpuid::CpuId::new();
        let virtualized = cpuid.get_feature_info().is_some_and(|f| f.has_hypervisor());
        if !virtualized {
            return Some("none".into());
        }
        if let Some(info) = cpuid.get_hypervisor_info() {
            return Some(format!("{:?}", info.identify()));
        }
        Some("unknown".into())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        read_trimmed("/sys/hypervisor/type")
    }
}

fn os() -> Option<String> {
    let kernel = match (read_trimmed("/proc/sys/kernel/ostype"), read_trimmed("/proc/sys/kernel/osrelease")) {
        (Some(t), Some(r)) => Some(format!("{t} {r}")),
        _ => None,
    };
    let distro = fs::read_to_string("/etc/os-release").ok().and_then(|text| {
        text.lines().find_map(|l| l.strip_prefix("PRETTY_NAME=")).map(|v| v.trim_matches('"').to_string())
    });
    match (kernel, distro) {
        (Some(k), Some(d)) => Some(format!("{k} ({d})")),
        (k, d) => k.or(d),
    }
}

/// Host facts that need measuring: timer resolution and core clock.
pub fn measured(clock: &dyn Clock) -> Host {
    let mut host = describe();
    host.timer_resolution_ns = Some(memwall_core::clock::resolution_ns(clock, 1000));
    // An emulator's add chain gives a clock that is nobody's: no cycles from it.
    if crate::emulation::warning().is_some() {
        host.core_ghz_unavailable =
            Some("withheld: this run looks emulated, and an emulator's add chain times no real core".into());
        return host;
    }
    match crate::platform::core_clock(clock) {
        Ok(estimate) => {
            host.core_ghz = Some(estimate.ghz);
            host.core_clock = Some(estimate);
        }
        Err(why) => host.core_ghz_unavailable = Some(why),
    }
    host
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_are_counted() {
        assert_eq!(count_cpu_list("0"), 1);
        assert_eq!(count_cpu_list("0-3,8,10-11"), 7);
        assert_eq!(count_cpu_list("0-1"), 2);
    }

    #[test]
    fn bracketed_choice() {
        assert_eq!(bracketed("always [madvise] never").as_deref(), Some("madvise"));
        assert_eq!(bracketed("never"), None);
    }

    #[test]
    fn caches_from_a_fake_sysfs() {
        let dir = tempfile::tempdir().unwrap();
        for (i, level, kind, size) in
            [(0, "1", "Data", "48K"), (1, "2", "Unified", "1024K"), (2, "3", "Unified", "32768K")]
        {
            let index = dir.path().join(format!("index{i}"));
            fs::create_dir(&index).unwrap();
            fs::write(index.join("level"), level).unwrap();
            fs::write(index.join("type"), kind).unwrap();
            fs::write(index.join("size"), size).unwrap();
            fs::write(index.join("coherency_line_size"), "64\n").unwrap();
            fs::write(index.join("shared_cpu_list"), "0-7\n").unwrap();
        }
        let caches = caches(dir.path());
        assert_eq!(caches.len(), 3);
        assert_eq!(caches[0].size_bytes, 48 * 1024);
        assert_eq!(caches[2].size_bytes, 32 << 20);
        assert_eq!(caches[1].line_bytes, Some(64));
        assert_eq!(caches[1].shared_by_cpus, Some(8));
        assert!(super::caches(Path::new("/nonexistent")).is_empty());
    }

    #[test]
    fn entries_without_a_size_are_not_declared_caches() {
        // As some Arm guests list them: a level and a type, no size.
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index0");
        fs::create_dir(&index).unwrap();
        fs::write(index.join("level"), "1").unwrap();
        fs::write(index.join("type"), "Data").unwrap();
        assert!(caches(dir.path()).is_empty());
        let host = Host { caches: caches(dir.path()), ..Default::default() };
        let mut out = Vec::new();
        crate::print::host::print_host(&mut out, &host).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("cache:       not declared"), "{text}");
    }

    #[test]
    fn describes_this_host() {
        let host = describe();
        assert!(host.logical_cpus.unwrap() >= 1);
        assert!(host.page_bytes.unwrap() >= 4096);
        assert!(host.memory_bytes.unwrap() > 0);
    }
}
