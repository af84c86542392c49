//! The levels of a ladder as chart markers (the ladder's chart and each overlaid report's).

use memwall_core::size::format_bytes;
use memwall_report::Ladder;

use crate::chart::Marker;

/// A line at each level the core named from the curves, up to where the level ends.
pub fn level_markers(ladder: &Ladder) -> Vec<Marker> {
    ladder
        .levels
        .iter()
        .map(|l| Marker {
            x: l.size_bytes as f64,
            label: format!("{} measured {}", l.name, format_bytes(l.size_bytes)),
        })
        .collect()
}
