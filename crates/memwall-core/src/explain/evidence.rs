//! What a report holds that the reading can stand on: every latency curve (by pattern and page
//! size), the caches the OS declares, the bandwidth plateaus, the clock.

use memwall_report::{Bandwidth, Cache, Curve, Ladder, LadderPoint};

use crate::ladder::Pattern;
use crate::size::format_bytes;

/// One latency curve (one chase at a time) of a ladder.
#[derive(Debug, Clone, Copy)]
pub struct CurveView<'a> {
    pub pattern: Pattern,
    /// As the report names the backing: "off", "thp", "on" or "default".
    pub pages: &'a str,
    /// Whether the curve really ran on huge pages: asked for, and granted where the report says.
    pub huge: bool,
    pub points: &'a [LadderPoint],
}

impl<'a> CurveView<'a> {
    fn new(pattern: &str, pages: &'a str, points: &'a [LadderPoint]) -> Option<Self> {
        let pattern = Pattern::parse(pattern)?;
        Some(Self { pattern, pages, huge: granted_huge(pages, points), points })
    }

    /// A further curve of a ladder, when it is one chase at a time over a known pattern.
    pub fn of_curve(curve: &'a Curve) -> Option<Self> {
        if curve.chains != 1 {
            return None;
        }
        Self::new(&curve.pattern, &curve.huge_pages, &curve.points)
    }

    /// Whether the caches are read from this curve: page-local, or random on huge pages really
    /// granted, the curves without TLB misses in their way.
    pub fn reads_caches(&self) -> bool {
        self.pattern == Pattern::PageLocal || (self.pattern == Pattern::Random && self.huge)
    }

    /// "page-local on THP", "random on 4 KiB pages".
    pub fn label(&self) -> String {
        let pattern = match self.pattern {
            Pattern::Random => "random",
            other => other.name(),
        };
        let pages = match (self.pages, self.huge) {
            ("on", _) => "hugetlbfs pages",
            ("thp", true) => "THP",
            ("thp", false) => "small pages (THP asked, not granted)",
            ("default", _) => "the allocator's pages",
            _ => "4 KiB pages",
        };
        format!("{pattern} on {pages}")
    }

    pub fn bytes(&self) -> Vec<u64> {
        self.points.iter().map(|p| p.bytes).collect()
    }

    pub fn same_sizes(&self, other: &CurveView<'_>) -> bool {
        self.points.len() == other.points.len() && self.points.iter().zip(other.points).all(|(a, b)| a.bytes == b.bytes)
    }
}

/// Huge pages count where they were asked for and, when the report says how much of each ring
/// the kernel backed with them, where the largest ring got at least half.
fn granted_huge(pages: &str, points: &[LadderPoint]) -> bool {
    match pages {
        "on" => true,
        "thp" => points
            .iter()
            .rev()
            .find_map(|p| p.huge_page_bytes.map(|huge| huge.saturating_mul(2) >= p.bytes))
            .unwrap_or(true),
        _ => false,
    }
}

/// Everything the levels are read from.
#[derive(Debug, Clone)]
pub struct Evidence<'a> {
    /// The main curve first, then the others with one chase.
    pub curves: Vec<CurveView<'a>>,
    /// What the OS declares (a browser declares nothing).
    pub declared: &'a [Cache],
    pub bandwidth: Option<&'a Bandwidth>,
    /// The clock that turns ns into cycles, when it was measured and passed its check.
    pub ghz: Option<f64>,
}

impl<'a> Evidence<'a> {
    /// All a ladder holds, beside the host's declared caches and a bandwidth run if there was one.
    pub fn of(ladder: &'a Ladder, declared: &'a [Cache], bandwidth: Option<&'a Bandwidth>) -> Self {
        let main = CurveView::new(&ladder.pattern, &ladder.huge_pages, &ladder.points);
        let others = ladder.curves.iter().filter_map(CurveView::of_curve);
        Self { curves: main.into_iter().chain(others).collect(), declared, bandwidth, ghz: level_ghz(ladder) }
    }
}

/// The clock of the run as a whole: the median of the points' own estimates, else the ladder's;
/// none where the clock check withheld cycles.
fn level_ghz(ladder: &Ladder) -> Option<f64> {
    ladder.ghz?;
    let mut local: Vec<f64> = ladder.points.iter().filter_map(|p| p.ghz).collect();
    local.sort_by(f64::total_cmp);
    local.get(local.len() / 2).copied().or(ladder.ghz)
}

/// The data and unified caches the OS declares, one per level, smallest level first.
pub fn data_caches(declared: &[Cache]) -> Vec<&Cache> {
    let mut caches: Vec<&Cache> = declared.iter().filter(|c| c.kind != "Instruction").collect();
    caches.sort_by_key(|c| c.level);
    caches.dedup_by_key(|c| c.level);
    caches
}

/// "one thread streams 27-29 GB/s of reads from 4 MiB to 64 MiB", over the bandwidth points
/// that fall within `lo..=hi`.
pub(super) fn streams(evidence: &Evidence<'_>, lo: u64, hi: u64) -> Option<String> {
    let points: Vec<f64> = evidence
        .bandwidth?
        .points
        .iter()
        .filter(|p| p.threads == 1 && (lo..=hi).contains(&p.bytes))
        .map(|p| p.read_gb_per_s)
        .collect();
    let sizes: Vec<u64> = evidence
        .bandwidth?
        .points
        .iter()
        .filter(|p| p.threads == 1 && (lo..=hi).contains(&p.bytes))
        .map(|p| p.bytes)
        .collect();
    let (low, high) = points.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &g| (l.min(g), h.max(g)));
    let (&from, &to) = (sizes.first()?, sizes.last()?);
    let rate = if high - low < 0.5 { format!("{high:.0}") } else { format!("{low:.0}-{high:.0}") };
    Some(if from == to {
        format!("one thread streams {rate} GB/s of reads at {}", format_bytes(from))
    } else {
        format!("one thread streams {rate} GB/s of reads from {} to {}", format_bytes(from), format_bytes(to))
    })
}
