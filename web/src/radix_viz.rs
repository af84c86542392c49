//! How radix partitioning gets around the memory wall, drawn from the real thing: the distinct
//! keys the core's generator makes, put in partitions by the core's `partition_of` (the top bits
//! of the tuned kernel's hash). Every count shown is counted, and the sizes are the bytes the
//! kernels take for those counts (tuned's tables and write-combining buffers, naive's hashbrown
//! table), set against the caches a report declares.

use std::rc::Rc;

use memwall_core::datagen::key_at;
use memwall_core::groupby::{
    MAX_PARTITIONS, MIN_PARTITIONS, WC_BYTES_PER_PARTITION, partition_of, table_bytes_per_group,
};
use memwall_core::ladder::LINE_BYTES;
use memwall_core::size::format_bytes;
use memwall_report::Cache;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

use crate::chart::{self, format_number};
use crate::partition_view;
use crate::theme::{CHART_FONT, Palette};
use crate::util;

/// The grid never draws more cells than this; beyond, a cell stands for several partitions.
const MAX_CELLS: u32 = 4096;
/// Keys the animation drops one by one before it speeds up, and how many it drops in all.
const ANIMATED_KEYS: u64 = 60_000;
const ANIMATION_MS: f64 = 6000.0;
const FALL_MS: f64 = 450.0;

#[derive(Properties, PartialEq)]
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
    /// Caches declared by a report, and whose they are.
    pub caches: Option<(String, Rc<Vec<Cache>>)>,
}

pub enum Msg {
    Frame(f64),
    Replay,
}

/// Distinct keys per partition, counted over every distinct key of the data set.
#[derive(Debug, Clone, PartialEq)]
struct Counts {
    keys: u64,
    seed: u64,
    partitions: u32,
    per_partition: Vec<u32>,
}

impl Counts {
    fn count(keys: u64, seed: u64, partitions: u32) -> Self {
        let mut per_partition = vec![0u32; partitions as usize];
        for i in 0..keys {
            per_partition[partition_of(key_at(i, seed), partitions) as usize] += 1;
        }
        Self { keys, seed, partitions, per_partition }
    }
}

pub struct RadixViz {
    counts: Counts,
    canvas: NodeRef,
    /// Animation: start time, keys dropped so far and their cells' counts.
    started: Option<f64>,
    dropped: u64,
    anim_counts: Vec<u32>,
    last_keys: Vec<(i64, u32)>,
    frame: Option<Closure<dyn FnMut(f64)>>,
    /// A frame is requested and not yet delivered (so a restart does not start a second loop).
    frame_pending: std::cell::Cell<bool>,
    /// The pending frame's handle, cancelled when the component goes (the closure goes with it).
    frame_handle: std::cell::Cell<Option<i32>>,
    reduced_motion: bool,
}

fn grid(partitions: u32) -> (u32, u32, u32) {
    let cells = partitions.min(MAX_CELLS);
    let bits = cells.trailing_zeros();
    let cols = 1 << bits.div_ceil(2);
    (cols, cells / cols, partitions / cells)
}

impl Component for RadixViz {
    type Message = Msg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        let p = ctx.props();
        let reduced_motion =
            util::window().match_media("(prefers-reduced-motion: reduce)").ok().flatten().is_some_and(|m| m.matches());
        let link = ctx.link().clone();
        let mut this = Self {
            counts: Counts::count(p.keys, p.seed, p.partitions),
            canvas: NodeRef::default(),
            started: None,
            dropped: 0,
            anim_counts: Vec::new(),
            last_keys: Vec::new(),
            frame: Some(Closure::new(move |t: f64| link.send_message(Msg::Frame(t)))),
            frame_pending: std::cell::Cell::new(false),
            frame_handle: std::cell::Cell::new(None),
            reduced_motion,
        };
        this.restart();
        this
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Props) -> bool {
        let p = ctx.props();
        if (self.counts.keys, self.counts.seed, self.counts.partitions) != (p.keys, p.seed, p.partitions) {
            self.counts = Counts::count(p.keys, p.seed, p.partitions);
            self.restart();
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Replay => {
                self.restart();
                true
            }
            Msg::Frame(now) => {
                self.frame_pending.set(false);
                self.frame_handle.set(None);
                if self.dropped >= self.counts.keys {
                    return false;
                }
                let started = *self.started.get_or_insert(now);
                let t = ((now - started) / ANIMATION_MS).clamp(0.0, 1.0);
                let total = ANIMATED_KEYS.min(self.counts.keys);
                // Cubic: the first keys fall one at a time, then the rest pour in.
                let target = ((total as f64) * t * t * t) as u64;
                let (_, _, per_cell) = grid(self.counts.partitions);
                while self.dropped < target {
                    let key = key_at(self.dropped, self.counts.seed);
                    let partition = partition_of(key, self.counts.partitions);
                    self.anim_counts[(partition / per_cell) as usize] += 1;
                    self.last_keys.push((key, partition));
                    self.dropped += 1;
                }
                let keep = self.last_keys.len().saturating_sub(6);
                self.last_keys.drain(..keep);
                let done = t >= 1.0 && now - started >= ANIMATION_MS + FALL_MS;
                if done {
                    self.started = None;
                    self.dropped = self.counts.keys;
                } else {
                    self.request_frame();
                }
                self.draw(ctx.props().palette, now, started);
                true
            }
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, _first: bool) {
        if self.dropped >= self.counts.keys {
            self.draw(ctx.props().palette, 0.0, 0.0);
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let (cols, rows, per_cell) = grid(p.partitions);
        let bits = p.partitions.trailing_zeros();
        let on_slider = {
            let on = p.on_partitions.clone();
            Callback::from(move |e: InputEvent| {
                if let Some(input) = chart::target::<web_sys::HtmlInputElement>(&e)
                    && let Ok(bits) = input.value().parse::<u32>()
                {
                    on.emit(1 << bits);
                }
            })
        };
        let ticker = if self.started.is_some() {
            let lines: Vec<String> = self
                .last_keys
                .iter()
                .rev()
                .take(3)
                .map(|(key, partition)| format!("key {key} → top {bits} bits of its hash → partition {partition}"))
                .collect();
            html! { <div class="ticker" aria-hidden="true">{ for lines.into_iter().map(|l| html! { <div>{ l }</div> }) }</div> }
        } else {
            html! {
                <p class="muted small">{ format!("All {} distinct keys counted{}.", group_digits(self.counts.keys),
                    if per_cell > 1 { format!("; each cell is {per_cell} partitions") } else { String::new() }) }</p>
            }
        };
        let min_bits = MIN_PARTITIONS.trailing_zeros().max(4);
        html! {
            <div class="viz">
                <label class="slider">
                    <span>{ format!("Partitions: {} ", p.partitions) }<span class="muted">{ format!("(top {bits} bits of the hash)") }</span></span>
                    <input type="range" min={min_bits.to_string()} max={MAX_PARTITIONS.trailing_zeros().to_string()} step="1" value={bits.to_string()}
                        oninput={on_slider} aria-valuetext={format!("{} partitions", p.partitions)} />
                </label>
                <div class="viz-grid">
                    <div>
                        <canvas ref={self.canvas.clone()} class="partition-grid" width="640" height={(640 * rows / cols).to_string()}
                            role="img" aria-label={format!("A grid of {} partitions, shaded by how many distinct keys fell in each; the histogram and sizes beside it give the numbers.", p.partitions)} />
                        { ticker }
                        <button type="button" onclick={ctx.link().callback(|_| Msg::Replay)} disabled={self.reduced_motion}>{ "Replay" }</button>
                    </div>
                    <div>
                        { partition_view::histogram(&self.counts.per_partition, p.palette, "Distinct keys per partition", "distinct keys") }
                    </div>
                </div>
                { self.sizes(p) }
            </div>
        }
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        if let Some(handle) = self.frame_handle.take() {
            let _ = util::window().cancel_animation_frame(handle);
        }
        self.frame = None;
    }
}

impl RadixViz {
    fn restart(&mut self) {
        let (cols, rows, _) = grid(self.counts.partitions);
        self.anim_counts = vec![0; (cols * rows) as usize];
        self.dropped = 0;
        self.last_keys.clear();
        if self.reduced_motion || self.counts.keys == 0 {
            self.started = None;
            self.dropped = self.counts.keys;
        } else {
            self.started = None;
            self.request_frame();
        }
    }

    fn request_frame(&self) {
        if self.frame_pending.replace(true) {
            return;
        }
        if let Some(frame) = &self.frame {
            self.frame_handle.set(util::window().request_animation_frame(frame.as_ref().unchecked_ref()).ok());
        }
    }

    fn draw(&self, palette: Palette, now: f64, started: f64) {
        let Some(canvas) = self.canvas.cast::<web_sys::HtmlCanvasElement>() else { return };
        let Ok(Some(context)) = canvas.get_context("2d") else { return };
        let Ok(context) = context.dyn_into::<web_sys::CanvasRenderingContext2d>() else { return };
        let (cols, rows, per_cell) = grid(self.counts.partitions);
        let (w, h) = (f64::from(canvas.width()), f64::from(canvas.height()));
        let (cw, ch) = (w / f64::from(cols), h / f64::from(rows));
        let animating = self.dropped < self.counts.keys;
        let cells: Vec<u32> = if animating {
            self.anim_counts.clone()
        } else {
            self.counts.per_partition.chunks(per_cell as usize).map(|c| c.iter().sum()).collect()
        };
        let dropped = if animating { self.dropped } else { self.counts.keys };
        let mean = dropped as f64 / cells.len().max(1) as f64;
        context.set_global_alpha(1.0);
        context.set_fill_style_str(palette.background);
        context.fill_rect(0.0, 0.0, w, h);
        context.set_fill_style_str(palette.color(0));
        let gap = if cw > 6.0 { 1.0 } else { 0.0 };
        for (i, &count) in cells.iter().enumerate() {
            let (x, y) = ((i as u32 % cols) as f64 * cw, (i as u32 / cols) as f64 * ch);
            // Shade by count against the mean: mid-tone is an average partition.
            let v = if mean > 0.0 { (count as f64 / mean / 2.0).min(1.0) } else { 0.0 };
            context.set_global_alpha(if count == 0 { 0.06 } else { 0.12 + 0.85 * v });
            context.fill_rect(x + gap, y + gap, cw - gap, ch - gap);
        }
        // The first keys fall from the top edge into their cell.
        if animating && self.dropped > 0 {
            let total = ANIMATED_KEYS.min(self.counts.keys) as f64;
            context.set_global_alpha(1.0);
            context.set_fill_style_str(palette.color(1));
            for i in 0..self.dropped.min(80) {
                let start = started + ANIMATION_MS * (i as f64 / total).cbrt();
                let t = (now - start) / FALL_MS;
                if !(0.0..1.0).contains(&t) {
                    continue;
                }
                let cell = partition_of(key_at(i, self.counts.seed), self.counts.partitions) / per_cell;
                let (tx, ty) = ((cell % cols) as f64 * cw + cw / 2.0, (cell / cols) as f64 * ch + ch / 2.0);
                let ease = 1.0 - (1.0 - t) * (1.0 - t);
                let (x, y) = (w / 2.0 + (tx - w / 2.0) * ease, ty * ease);
                context.begin_path();
                let _ = context.arc(x, y, 4.0, 0.0, std::f64::consts::TAU);
                context.fill();
            }
        }
    }

    /// The trade-off in bytes: one partition's table and the scatter's write streams against L1
    /// and L2, one big table against L3.
    fn sizes(&self, p: &Props) -> Html {
        let counts = &self.counts.per_partition;
        let largest = counts.iter().copied().max().unwrap_or(0) as u64;
        let mut sorted = counts.clone();
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
        let big_table = (self.counts.keys * 8 / 7 + 1).next_power_of_two() * (group_bytes + 1);
        let cache = |level: u8| -> Option<u64> {
            let (_, caches) = p.caches.as_ref()?;
            caches.iter().find(|c| c.level == level && c.kind != "Instruction").map(|c| c.size_bytes)
        };
        let (l1, l2, l3) = (cache(1), cache(2), cache(3));
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
            (
                format!("naive: one hashbrown table ({} keys × {} B)", group_digits(self.counts.keys), group_bytes + 1),
                big_table,
                2,
            ),
        ];
        let max = items.iter().map(|i| i.1).chain([l3.unwrap_or(0)]).max().unwrap_or(1).max(1 << 20) as f64 * 2.0;
        let min = LINE_BYTES as f64;
        let (w, left, row) = (chart::view_width(), 16.0, 30.0);
        let top = 30.0;
        let h = top + items.len() as f64 * row + 36.0;
        let x_of = |b: f64| left + (b.max(min).log2() - min.log2()) / (max.log2() - min.log2()) * (w - left - 20.0);
        let markers: Vec<(String, u64)> =
            [(l1, "L1d"), (l2, "L2"), (l3, "L3")].into_iter().filter_map(|(s, n)| Some((n.to_string(), s?))).collect();
        let palette = p.palette;

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
                "Open a native report on the Reports page to set these sizes against the caches of a real host.".into(),
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
        html! {
            <div class="sizes">
                <svg viewBox={format!("0 0 {w} {h}")} role="img" font-family={CHART_FONT} aria-label="Sizes of the tables and write streams against the declared caches, on a log scale; the sentences below say the same.">
                    <rect x="0" y="0" width={w.to_string()} height={h.to_string()} fill={palette.background} />
                    <text x={left.to_string()} y="18" font-size="13" font-weight="600" fill={palette.text}>
                        { match &p.caches { Some((who, _)) => format!("Bytes against the caches of {who} (log scale)"), None => "Bytes (log scale)".to_string() } }
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
                    p.state_bytes, p.row_bytes, group_bytes, format_number(self.counts.keys as f64 / f64::from(p.partitions))) }</p>
            </div>
        }
    }
}

/// 1700000 → "1,700,000".
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_grouped() {
        assert_eq!(group_digits(1_700_000), "1,700,000");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(0), "0");
    }

    #[test]
    fn the_grid_is_square_or_twice_as_wide_and_never_over_4096_cells() {
        assert_eq!(grid(4096), (64, 64, 1));
        assert_eq!(grid(32), (8, 4, 1));
        assert_eq!(grid(65536), (64, 64, 16));
        assert_eq!(grid(16), (4, 4, 1));
    }

    #[test]
    fn every_distinct_key_is_counted_once() {
        let counts = Counts::count(10_000, 42, 256);
        assert_eq!(counts.per_partition.iter().map(|&c| u64::from(c)).sum::<u64>(), 10_000);
        assert_eq!(counts.per_partition.len(), 256);
    }
}
