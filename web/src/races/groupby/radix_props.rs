//! What the radix view is given: the race's keys and partitions, the rows it scatters, and the
//! caches a ladder measured (shared by the view, `radix_viz.rs`, and its sizes, `radix_sizes.rs`).

use yew::prelude::*;

use crate::theme::Palette;

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub keys: u64,
    pub seed: u64,
    pub partitions: u32,
    /// Rows the race scatters, and the bytes of each it moves (a key, and a value when an
    /// aggregate reads one: the core's `Aggregates::row_bytes`).
    pub rows: u64,
    pub row_bytes: u64,
    /// Aggregate state a group keeps beside its key (the core's `Aggregates::state_bytes`).
    pub state_bytes: u64,
    pub on_partitions: Callback<u32>,
    pub palette: Palette,
    /// L1, L2 and L3 as a ladder measured them (never as declared), and whose ladder that was:
    /// "this page's first look".
    pub caches: Option<(String, [Option<u64>; 3])>,
}
