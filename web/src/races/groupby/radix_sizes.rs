//! The trade-off in bytes: one partition's table and the scatter's write streams against L1
//! and L2, one big table against L3, as the kernels size them for the chosen aggregates.

use memwall_core::groupby::{WC_BYTES_PER_PARTITION, table_bytes_per_group};
use memwall_core::ladder::LINE_BYTES;
use memwall_core::size::format_bytes;
use yew::prelude::*;

use super::radix_props::Props;
use crate::chart::{self, format_number};
use crate::theme::CHART_FONT;
use crate::util::group_digits;

/// The size of the cache at `level` (1 to 3) as the marked ladder measured it.
fn cache(p: &Props, level: usize) -> Option<u64> {
    p.caches.as_ref()?.1[level - 1]
}

/// The trade-off in bytes: one partition's table and the scatter's write streams against L1
/// and L2, one big table against L3.
pub fn sizes(counts: &[u32], keys: u64, p: &Props) -> Html {
    let largest = counts.iter().copied().max().unwrap_or(0) as u64;
    let mut sorted = counts.to_vec();
    sorted.sort_unstable();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0) as u64;
    // What the kernels really use for the chosen aggregates: tuned's flat table (slots of
    // the key and the state, at most a quarter full), its write-combining buffers and the
    // rows it scatters (key, and value when one is read); naive's hashbrown table (entries
    // of the key and the state and a control byte per bucket, at most 7/8 full, buckets a
    // power of two).
    let group_bytes = 8 + p.state_bytes;
    let per_group = table_bytes_per_group(p.state_bytes);
    let partition_table = median * per_group;
    let largest_table = largest * per_group;
    let streams = u64::from(p.partitions) * WC_BYTES_PER_PARTITION;
    let partition_rows = p.rows.div_ceil(u64::from(p.partitions).max(1)) * p.row_bytes;
    let big_table = (keys * 8 / 7 + 1).next_power_of_two() * (group_bytes + 1);
    let (l1, l2, l3) = (cache(p, 1), cache(p, 2), cache(p, 3));
    let items = [
        (format!("tuned: one partition's table (median, {median} keys × {per_group} B)"), partition_table, 0usize),
        (format!("tuned: largest partition's table ({largest} keys)"), largest_table, 0),
        (
            format!("tuned: write-combining buffers ({} partitions × {WC_BYTES_PER_PARTITION} B)", p.partitions),
            streams,
            1,
        ),
        (
            format!(
                "tuned: one partition's scattered rows (mean, {} rows × {} B)",
                group_digits(p.rows.div_ceil(u64::from(p.partitions).max(1))),
                p.row_bytes
            ),
            partition_rows,
            1,
        ),
        (format!("naive: one hashbrown table ({} keys × {} B)", group_digits(keys), group_bytes + 1), big_table, 2),
    ];
    let max = items.iter().map(|i| i.1).chain([l3.unwrap_or(0)]).max().unwrap_or(1).max(1 << 20) as f64 * 2.0;
    let min = LINE_BYTES as f64;
    let (w, left, row, top) = (chart::view_width(), 16.0, 30.0, 30.0);
    let h = top + items.len() as f64 * row + 36.0;
    let x_of = |b: f64| left + (b.max(min).log2() - min.log2()) / (max.log2() - min.log2()) * (w - left - 20.0);
    let markers: Vec<(String, u64)> =
        [(l1, "L1d"), (l2, "L2"), (l3, "L3")].into_iter().filter_map(|(s, n)| Some((n.to_string(), s?))).collect();
    let palette = p.palette;

    let verdicts = verdicts((l1, l2, l3), partition_table, streams, big_table, p);
    html! {
        <div class="sizes">
            <svg viewBox={format!("0 0 {w} {h}")} role="img" font-family={CHART_FONT} aria-label="Sizes of the tables and write streams against the caches a ladder measured, on a log scale; the sentences below say the same.">
                <rect x="0" y="0" width={w.to_string()} height={h.to_string()} fill={palette.background} />
                <text x={left.to_string()} y="18" font-size="13" font-weight="600" fill={palette.text}>
                    { match &p.caches { Some((who, _)) => format!("Bytes against the caches read by {who} (log scale)"), None => "Bytes (log scale)".to_string() } }
                </text>
                { for markers.iter().map(|(name, bytes)| { let x = x_of(*bytes as f64); html! {
                    <g>
                        <line x1={x.to_string()} x2={x.to_string()} y1={(top - 4.0).to_string()} y2={(h - 30.0).to_string()} stroke={palette.marker} stroke-dasharray="4 3" />
                        <text x={(x + 3.0).to_string()} y={(h - 18.0).to_string()} font-size="10.5" fill={palette.marker}>{ format!("{name} {}", format_bytes(*bytes)) }</text>
                    </g>
                }}) }
                { for items.iter().enumerate().map(|(i, (label, bytes, color))| {
                    let y = top + i as f64 * row;
                    let x = x_of(*bytes as f64);
                    html! {
                        <g>
                            <rect x={left.to_string()} y={(y + 4.0).to_string()} width={(x - left).max(2.0).to_string()} height={(row - 10.0).to_string()} rx="3" fill={palette.color(*color)} opacity="0.85" />
                            <text x={(left + 6.0).to_string()} y={(y + row / 2.0 + 3.0).to_string()} font-size="11" fill={palette.text} stroke={palette.background} stroke-width="3" paint-order="stroke">
                                { format!("{label}: {}", format_bytes(*bytes)) }
                            </text>
                        </g>
                    }
                }) }
                <text x={left.to_string()} y={(h - 4.0).to_string()} font-size="10" fill={palette.muted}>{ format!("{} … {}", format_bytes(min as u64), format_bytes(max as u64)) }</text>
            </svg>
            <ul class="verdicts">{ for verdicts.into_iter().map(|v| html! { <li>{ v }</li> }) }</ul>
            <p class="muted small" id="radix-state">{ format!("Sized for the chosen aggregates: {} B of state a group beside its 8-byte key, {} B a scattered row. Tuned's table takes {per_group} B a group (at most a quarter full); naive's table is the least hashbrown takes ({} B an entry and a control byte). Counted, not estimated: every distinct key hashed by the core's partition function. Mean {} keys per partition.",
                p.state_bytes, p.row_bytes, group_bytes, format_number(keys as f64 / f64::from(p.partitions))) }</p>
        </div>
    }
}

/// The trade-off in words: which side of it the chosen partition count is on, and whether one
/// big table would fit.
fn verdicts(
    (l1, l2, l3): (Option<u64>, Option<u64>, Option<u64>),
    partition_table: u64,
    streams: u64,
    big_table: u64,
    p: &Props,
) -> Vec<String> {
    // The scatter keeps one line per partition being filled; those lines must stay cached, in
    // L2 at least (with many partitions they cannot all be in L1d, which the sentence says).
    let mut verdicts = Vec::new();
    match (l1, l2) {
        (Some(l1), Some(l2)) => {
            if partition_table > l2 {
                verdicts.push(format!("Too few partitions: a typical partition's table ({}) is bigger than L2 ({}), so its lookups miss like the big table's.", format_bytes(partition_table), format_bytes(l2)));
            } else if streams > l2 {
                verdicts.push(format!("Too many partitions: the scatter fills {} partitions at once ({} of buffers, {} rows of {} B to a line), more than L2 ({}) holds, so the scatter itself starts to miss.", p.partitions, format_bytes(streams), LINE_BYTES as u64 / p.row_bytes.max(1), p.row_bytes, format_bytes(l2)));
            } else {
                verdicts.push(format!("Balanced: each partition's table ({}) fits in L2 ({}), and so do the {} lines the scatter fills at once ({}{}).", format_bytes(partition_table), format_bytes(l2), p.partitions, format_bytes(streams),
                    if streams > l1 { format!("; L1d, {}, holds only {} of them", format_bytes(l1), l1 / LINE_BYTES as u64) } else { String::new() }));
            }
        }
        _ => verdicts.push(
            "Let the first look finish, run the Latency ladder tab, or open a report with a ladder on the Reports page, to set these sizes against caches a ladder measured.".into(),
        ),
    }
    if let Some(l3) = l3 {
        verdicts.push(if big_table > l3 {
            format!(
                "One big table needs at least {}: {:.1}× the L3 ({}), so nearly every row waits for DRAM.",
                format_bytes(big_table),
                big_table as f64 / l3 as f64,
                format_bytes(l3)
            )
        } else {
            format!(
                "One big table ({}) fits in L3 ({}): at this size partitioning has little to win.",
                format_bytes(big_table),
                format_bytes(l3)
            )
        });
    }
    verdicts
}
