//! How much memory this process may still take before the kernel swaps or kills it: the least of
//! MemAvailable and what its cgroup (v2 `memory.max`, or v1 `memory.limit_in_bytes`) leaves.
//!
//! In a container MemAvailable describes the whole machine, while the cgroup limit is what the
//! OOM killer enforces: a plan checked against MemAvailable alone is killed halfway instead of
//! refused. Everything is read below a root folder (`/` for real), so tests feed fake
//! `/proc` and `/sys/fs/cgroup` trees.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use memwall_core::size::format_bytes;

use crate::error::CliError;
use procfs::{FromBufRead, ProcessCGroups};

/// What a plan may use, and what set that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Headroom {
    pub bytes: u64,
    /// "MemAvailable", or the cgroup file and its figures.
    pub limited_by: String,
}

/// A cgroup's limit and usage, as read from its files.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CgroupLimit {
    limit: u64,
    usage: u64,
    /// Page cache the kernel drops before it fails an allocation: counted in usage, yet free.
    reclaimable: u64,
    file: PathBuf,
}

impl CgroupLimit {
    fn headroom(&self) -> u64 {
        self.limit.saturating_sub(self.usage.saturating_sub(self.reclaimable))
    }
}

/// MemAvailable (or MemFree on kernels before 3.14) from `/proc/meminfo` text.
pub fn parse_meminfo_available(text: &str) -> Option<u64> {
    let info = procfs::Meminfo::from_buf_read(Cursor::new(text)).ok()?;
    Some(info.mem_available.unwrap_or(info.mem_free))
}

/// A cgroup v2 `memory.max`: bytes, or `None` for "max" (no limit).
pub fn parse_v2_max(text: &str) -> Option<u64> {
    match text.trim() {
        "max" => None,
        n => n.parse().ok(),
    }
}

/// A cgroup v1 `memory.limit_in_bytes`: bytes, or `None` when unlimited. v1 has no word for
/// unlimited: it writes the largest page-aligned signed 64-bit number (9223372036854771712 with
/// 4 KiB pages), so anything from 2^62 up means "no limit".
pub fn parse_v1_limit(text: &str) -> Option<u64> {
    text.trim().parse().ok().filter(|&n: &u64| n < 1 << 62)
}

/// One `key value` line of a cgroup's `memory.stat`.
fn stat_field(stat: &str, key: &str) -> Option<u64> {
    stat.lines().find_map(|line| line.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
}

fn read(root: &Path, path: &Path) -> Option<String> {
    std::fs::read_to_string(root.join(path.strip_prefix("/").unwrap_or(path))).ok()
}

/// The tightest limit of a v2 cgroup and its ancestors (a parent's `memory.max` binds its
/// children too; the root cgroup has no `memory.max`).
fn v2_limit(root: &Path, cgroup: &str) -> Option<CgroupLimit> {
    let base = Path::new("/sys/fs/cgroup");
    let mut dir = base.join(cgroup.trim_start_matches('/'));
    let mut tightest: Option<CgroupLimit> = None;
    loop {
        if let Some(limit) = read(root, &dir.join("memory.max")).as_deref().and_then(parse_v2_max) {
            let usage = read(root, &dir.join("memory.current")).and_then(|t| t.trim().parse().ok()).unwrap_or(0);
            let reclaimable = read(root, &dir.join("memory.stat")).and_then(|s| stat_field(&s, "inactive_file"));
            let found =
                CgroupLimit { limit, usage, reclaimable: reclaimable.unwrap_or(0), file: dir.join("memory.max") };
            if tightest.as_ref().is_none_or(|t| found.headroom() < t.headroom()) {
                tightest = Some(found);
            }
        }
        if dir == base || !dir.pop() {
            return tightest;
        }
    }
}

/// A v1 memory cgroup's limit; `hierarchical_memory_limit` in its `memory.stat` already folds in
/// its ancestors'. Inside a cgroup namespace the process's path is not under the mount, so the
/// mount's own files are tried too.
fn v1_limit(root: &Path, cgroup: &str) -> Option<CgroupLimit> {
    let base = Path::new("/sys/fs/cgroup/memory");
    [base.join(cgroup.trim_start_matches('/')), base.to_path_buf()].into_iter().find_map(|dir| {
        let own = read(root, &dir.join("memory.limit_in_bytes"))?;
        let stat = read(root, &dir.join("memory.stat")).unwrap_or_default();
        let hierarchical = stat_field(&stat, "hierarchical_memory_limit").filter(|&n| n < 1 << 62);
        let limit = match (parse_v1_limit(&own), hierarchical) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        let usage = read(root, &dir.join("memory.usage_in_bytes")).and_then(|t| t.trim().parse().ok()).unwrap_or(0);
        let reclaimable = stat_field(&stat, "total_inactive_file").or_else(|| stat_field(&stat, "inactive_file"));
        Some(CgroupLimit {
            limit,
            usage,
            reclaimable: reclaimable.unwrap_or(0),
            file: dir.join("memory.limit_in_bytes"),
        })
    })
}

/// The process's cgroup limit, if it has one: v2 (the `0::` line) first, then v1's memory
/// controller.
fn cgroup_limit(root: &Path) -> Option<CgroupLimit> {
    let text = read(root, Path::new("/proc/self/cgroup"))?;
    let groups = ProcessCGroups::from_buf_read(Cursor::new(text)).ok()?;
    let v2 = groups.0.iter().find(|g| g.hierarchy == 0).and_then(|g| v2_limit(root, &g.pathname));
    v2.or_else(|| {
        let memory = groups.0.iter().find(|g| g.controllers.iter().any(|c| c == "memory"))?;
        v1_limit(root, &memory.pathname)
    })
}

/// What a process whose `/` is `root` may still allocate; `None` when not even MemAvailable can
/// be read (not Linux).
pub fn headroom_in(root: &Path) -> Option<Headroom> {
    let available = read(root, Path::new("/proc/meminfo")).as_deref().and_then(parse_meminfo_available);
    let cgroup = cgroup_limit(root);
    match (available, cgroup) {
        (Some(available), Some(cgroup)) if cgroup.headroom() >= available => {
            Some(Headroom { bytes: available, limited_by: "MemAvailable".into() })
        }
        (_, Some(cgroup)) => Some(Headroom {
            bytes: cgroup.headroom(),
            limited_by: format!(
                "its cgroup's limit of {} ({}) with {} in use",
                format_bytes(cgroup.limit),
                cgroup.file.display(),
                format_bytes(cgroup.usage.saturating_sub(cgroup.reclaimable))
            ),
        }),
        (Some(available), None) => Some(Headroom { bytes: available, limited_by: "MemAvailable".into() }),
        (None, None) => None,
    }
}

/// This process's headroom.
pub fn headroom() -> Option<Headroom> {
    headroom_in(Path::new("/"))
}

/// Whether `needed_bytes` fit in `headroom` (see [`crate::platform::check_fits_in_memory`]).
pub fn fits(needed_bytes: u64, what: &str, headroom: &Headroom) -> Result<(), CliError> {
    // Leave room for the rest of the system; an OOM kill is worse than a refusal.
    let budget = headroom.bytes / 10 * 9;
    if needed_bytes > budget {
        return Err(CliError::usage(format!(
            "{what} needs about {} but only {} can be allocated here ({} free by {}, less a tenth memwall keeps free)",
            format_bytes(needed_bytes),
            format_bytes(budget),
            format_bytes(headroom.bytes),
            headroom.limited_by
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    fn meminfo(available_kib: u64) -> String {
        format!(
            "MemTotal:       24684096 kB\nMemFree:         1000000 kB\nMemAvailable:   {available_kib} kB\nBuffers:           1000 kB\nCached:          1000000 kB\nSwapCached:            0 kB\nActive:          1000000 kB\nInactive:        1000000 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\nDirty:                 0 kB\nWriteback:             0 kB\nMapped:           100000 kB\nShmem:              1000 kB\nSlab:             100000 kB\nCommitLimit:    12342048 kB\nCommitted_AS:    2000000 kB\nVmallocTotal:   34359738367 kB\nVmallocUsed:       50000 kB\nVmallocChunk:          0 kB\n"
        )
    }

    /// A fake root with these files (path relative to `/`, content).
    fn fake(files: &[(&str, String)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let at = dir.path().join(path);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, text).unwrap();
        }
        dir
    }

    #[test]
    fn meminfo_gives_mem_available() {
        assert_eq!(parse_meminfo_available(&meminfo(23368256)), Some(23368256 * 1024));
        assert_eq!(parse_meminfo_available("garbage"), None);
    }

    #[test]
    fn limit_files_parse_and_unlimited_is_none() {
        assert_eq!(parse_v2_max("max\n"), None);
        assert_eq!(parse_v2_max("2147483648\n"), Some(2 * GIB));
        assert_eq!(parse_v1_limit("9223372036854771712\n"), None);
        assert_eq!(parse_v1_limit("536870912\n"), Some(GIB / 2));
        assert_eq!(parse_v1_limit(""), None);
    }

    #[test]
    fn v2_max_means_mem_available_rules() {
        let root = fake(&[
            ("proc/meminfo", meminfo(8 << 20)),
            ("proc/self/cgroup", "0::/user.slice/app\n".into()),
            ("sys/fs/cgroup/user.slice/app/memory.max", "max\n".into()),
            ("sys/fs/cgroup/user.slice/app/memory.current", "1073741824\n".into()),
        ]);
        assert_eq!(headroom_in(root.path()), Some(Headroom { bytes: 8 * GIB, limited_by: "MemAvailable".into() }));
    }

    #[test]
    fn a_v2_cgroup_smaller_than_mem_available_rules_and_says_so() {
        let root = fake(&[
            ("proc/meminfo", meminfo(8 << 20)),
            ("proc/self/cgroup", "0::/ci/job\n".into()),
            ("sys/fs/cgroup/ci/job/memory.max", "max\n".into()),
            // The parent's limit binds the child: 2 GiB, 1.5 GiB used of which 0.5 GiB is cache.
            ("sys/fs/cgroup/ci/memory.max", "2147483648\n".into()),
            ("sys/fs/cgroup/ci/memory.current", "1610612736\n".into()),
            ("sys/fs/cgroup/ci/memory.stat", "anon 1073741824\nfile 536870912\ninactive_file 536870912\n".into()),
        ]);
        let headroom = headroom_in(root.path()).unwrap();
        assert_eq!(headroom.bytes, GIB);
        assert_eq!(headroom.limited_by, "its cgroup's limit of 2 GiB (/sys/fs/cgroup/ci/memory.max) with 1 GiB in use");
    }

    #[test]
    fn a_v2_cgroup_over_its_limit_leaves_nothing() {
        let root = fake(&[
            ("proc/meminfo", meminfo(8 << 20)),
            ("proc/self/cgroup", "0::/\n".into()),
            ("sys/fs/cgroup/memory.max", "1073741824\n".into()),
            ("sys/fs/cgroup/memory.current", "2147483648\n".into()),
        ]);
        assert_eq!(headroom_in(root.path()).unwrap().bytes, 0);
    }

    #[test]
    fn v1_unlimited_is_the_huge_number_and_mem_available_rules() {
        // As on this project's VM: v1, a nested memory cgroup, no limit anywhere.
        let group = "sys/fs/cgroup/memory/process_api/71d7";
        let root = fake(&[
            ("proc/meminfo", meminfo(23368256)),
            ("proc/self/cgroup", "4:memory:/process_api/71d7\n1:cpu:/\n0::/\n".into()),
            (&format!("{group}/memory.limit_in_bytes"), "9223372036854771712\n".into()),
            (&format!("{group}/memory.usage_in_bytes"), "1197342720\n".into()),
            (
                &format!("{group}/memory.stat"),
                "inactive_file 602165248\nhierarchical_memory_limit 9223372036854771712\n".into(),
            ),
        ]);
        assert_eq!(
            headroom_in(root.path()).unwrap(),
            Headroom { bytes: 23368256 * 1024, limited_by: "MemAvailable".into() }
        );
    }

    #[test]
    fn a_v1_limit_set_on_an_ancestor_binds() {
        let group = "sys/fs/cgroup/memory/docker/abc";
        let root = fake(&[
            ("proc/meminfo", meminfo(8 << 20)),
            ("proc/self/cgroup", "5:memory:/docker/abc\n".into()),
            (&format!("{group}/memory.limit_in_bytes"), "9223372036854771712\n".into()),
            (&format!("{group}/memory.usage_in_bytes"), "268435456\n".into()),
            (&format!("{group}/memory.stat"), "hierarchical_memory_limit 1073741824\ntotal_inactive_file 0\n".into()),
        ]);
        let headroom = headroom_in(root.path()).unwrap();
        assert_eq!(headroom.bytes, 3 * GIB / 4);
        assert!(headroom.limited_by.contains("limit of 1 GiB"), "{}", headroom.limited_by);
    }

    #[test]
    fn a_v1_namespace_reads_the_mount_s_own_files() {
        let root = fake(&[
            ("proc/meminfo", meminfo(8 << 20)),
            ("proc/self/cgroup", "5:memory:/kubepods/pod1/c1\n".into()),
            ("sys/fs/cgroup/memory/memory.limit_in_bytes", "536870912\n".into()),
            ("sys/fs/cgroup/memory/memory.usage_in_bytes", "0\n".into()),
        ]);
        assert_eq!(headroom_in(root.path()).unwrap().bytes, GIB / 2);
    }

    #[test]
    fn no_cgroup_files_leaves_mem_available_and_no_proc_leaves_nothing() {
        let root = fake(&[("proc/meminfo", meminfo(1 << 20))]);
        assert_eq!(headroom_in(root.path()).unwrap().bytes, GIB);
        let empty = fake(&[]);
        assert_eq!(headroom_in(empty.path()), None);
    }

    #[test]
    fn a_refusal_names_the_amounts_and_the_limit() {
        let headroom = Headroom { bytes: GIB, limited_by: "its cgroup's limit of 2 GiB".into() };
        assert!(fits(GIB / 2, "--max 512 MiB", &headroom).is_ok());
        let refused = fits(GIB, "--max 1 GiB", &headroom).unwrap_err();
        assert_eq!(
            format!("{} (exit {})", refused.message, refused.code),
            "--max 1 GiB needs about 1 GiB but only 921.60 MiB can be allocated here (1 GiB free by its cgroup's limit of 2 GiB, less a tenth memwall keeps free) (exit 2)"
        );
    }

    #[test]
    fn this_host_has_some_headroom() {
        // Whatever the host: Linux always has /proc/meminfo, and a test process has room.
        let headroom = headroom().expect("/proc/meminfo");
        assert!(headroom.bytes > 0, "{headroom:?}");
    }
}
