//! How radix partitioning gets around the memory wall, drawn from the real thing: the distinct
//! keys the core's generator makes, put in partitions by the core's `partition_of` (the top bits
//! of the tuned kernel's hash). Every count shown is counted, and the sizes are the bytes the
//! kernels take for those counts (tuned's tables and write-combining buffers, naive's hashbrown
//! table), set against the caches a ladder measured (`radix_sizes.rs`).

use std::cell::RefCell;
use std::rc::Rc;

use memwall_core::datagen::key_at;
use memwall_core::groupby::{MAX_PARTITIONS, MIN_PARTITIONS, partition_of};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

use super::radix_props::Props;
use super::radix_sizes::sizes;
use crate::chart;
use crate::races::partition_view::{self, count_partitions};
use crate::theme::Palette;
use crate::util::{self, group_digits};

/// The grid never draws more cells than this; beyond, a cell stands for several partitions.
const MAX_CELLS: u32 = 4096;
/// Keys the animation drops one by one before it speeds up, and how many it drops in all.
const ANIMATED_KEYS: u64 = 60_000;
const ANIMATION_MS: f64 = 6000.0;
const FALL_MS: f64 = 450.0;

fn grid(partitions: u32) -> (u32, u32, u32) {
    let cells = partitions.min(MAX_CELLS);
    let bits = cells.trailing_zeros();
    let cols = 1 << bits.div_ceil(2);
    (cols, cells / cols, partitions / cells)
}

type FrameCallback = Closure<dyn FnMut(f64)>;

/// The keys falling into their partitions, frame by frame.
#[derive(Debug, Default)]
struct Fall {
    started: Option<f64>,
    dropped: u64,
    cells: Vec<u32>,
    last_keys: Vec<(i64, u32)>,
    done: bool,
}

impl Fall {
    /// Advances to `now`; says whether to ask for another frame.
    fn advance(&mut self, now: f64, keys: u64, seed: u64, partitions: u32) -> bool {
        let started = *self.started.get_or_insert(now);
        let t = ((now - started) / ANIMATION_MS).clamp(0.0, 1.0);
        // Cubic: the first keys fall one at a time, then the rest pour in.
        let target = ((ANIMATED_KEYS.min(keys) as f64) * t * t * t) as u64;
        let (_, _, per_cell) = grid(partitions);
        while self.dropped < target {
            let key = key_at(self.dropped, seed);
            let partition = partition_of(key, partitions);
            self.cells[(partition / per_cell) as usize] += 1;
            self.last_keys.push((key, partition));
            self.dropped += 1;
        }
        let keep = self.last_keys.len().saturating_sub(6);
        self.last_keys.drain(..keep);
        self.done = t >= 1.0 && now - started >= ANIMATION_MS + FALL_MS;
        !self.done
    }
}

/// Shades each cell by its count against the mean (mid-tone is an average partition); while
/// keys fall, the first ones are drawn on their way from the top edge into their cell.
fn draw(
    canvas: &NodeRef,
    palette: Palette,
    partitions: u32,
    cells: &[u32],
    dropped: u64,
    fall: Option<(&Fall, f64, u64)>,
) {
    let Some(canvas) = canvas.cast::<web_sys::HtmlCanvasElement>() else { return };
    let Ok(Some(context)) = canvas.get_context("2d") else { return };
    let Ok(context) = context.dyn_into::<web_sys::CanvasRenderingContext2d>() else { return };
    let (w, h) = (f64::from(canvas.width()), f64::from(canvas.height()));
    let (cols, rows, per_cell) = grid(partitions);
    let (cw, ch) = (w / f64::from(cols), h / f64::from(rows));
    let mean = dropped as f64 / cells.len().max(1) as f64;
    context.set_global_alpha(1.0);
    context.set_fill_style_str(palette.background);
    context.fill_rect(0.0, 0.0, w, h);
    context.set_fill_style_str(palette.color(0));
    let gap = if cw > 6.0 { 1.0 } else { 0.0 };
    for (i, &count) in cells.iter().enumerate() {
        let (x, y) = ((i as u32 % cols) as f64 * cw, (i as u32 / cols) as f64 * ch);
        let v = if mean > 0.0 { (count as f64 / mean / 2.0).min(1.0) } else { 0.0 };
        context.set_global_alpha(if count == 0 { 0.06 } else { 0.12 + 0.85 * v });
        context.fill_rect(x + gap, y + gap, cw - gap, ch - gap);
    }
    let Some((fall, now, seed)) = fall else { return };
    let (Some(started), total) = (fall.started, ANIMATED_KEYS as f64) else { return };
    context.set_global_alpha(1.0);
    context.set_fill_style_str(palette.color(1));
    for i in 0..fall.dropped.min(80) {
        let t = (now - started - ANIMATION_MS * (i as f64 / total).cbrt()) / FALL_MS;
        if !(0.0..1.0).contains(&t) {
            continue;
        }
        let cell = partition_of(key_at(i, seed), partitions) / per_cell;
        let (tx, ty) = ((cell % cols) as f64 * cw + cw / 2.0, (cell / cols) as f64 * ch + ch / 2.0);
        let ease = 1.0 - (1.0 - t) * (1.0 - t);
        context.begin_path();
        let _ = context.arc(w / 2.0 + (tx - w / 2.0) * ease, ty * ease, 4.0, 0.0, std::f64::consts::TAU);
        context.fill();
    }
}

/// The keys falling into their partitions, one animation frame at a time (none with reduced
/// motion), started again when the data, the partition count or a replay changes.
#[hook]
fn use_falling_keys(
    fall: &Rc<RefCell<Fall>>,
    canvas: &NodeRef,
    frame: &UseStateHandle<u64>,
    p: &Props,
    reduced: bool,
    replays: u32,
) {
    let (fall, canvas, frame, palette) = (fall.clone(), canvas.clone(), frame.clone(), p.palette);
    let (keys, seed, partitions) = (p.keys, p.seed, p.partitions);
    use_effect_with((keys, seed, partitions, replays), move |_| {
        let (cols, rows, _) = grid(partitions);
        *fall.borrow_mut() =
            Fall { cells: vec![0; (cols * rows) as usize], done: reduced || keys == 0, ..Fall::default() };
        let handle = Rc::new(RefCell::new(None::<i32>));
        let callback: Rc<RefCell<Option<FrameCallback>>> = Rc::new(RefCell::new(None));
        if !fall.borrow().done {
            let (again, handle_in) = (callback.clone(), handle.clone());
            *callback.borrow_mut() = Some(Closure::new(move |now: f64| {
                let more = fall.borrow_mut().advance(now, keys, seed, partitions);
                {
                    let fall = fall.borrow();
                    draw(&canvas, palette, partitions, &fall.cells, fall.dropped, Some((&fall, now, seed)));
                }
                frame.set(fall.borrow().dropped);
                *handle_in.borrow_mut() = if more {
                    again
                        .borrow()
                        .as_ref()
                        .and_then(|c| util::window().request_animation_frame(c.as_ref().unchecked_ref()).ok())
                } else {
                    None
                };
            }));
            *handle.borrow_mut() = callback
                .borrow()
                .as_ref()
                .and_then(|c| util::window().request_animation_frame(c.as_ref().unchecked_ref()).ok());
        }
        move || {
            if let Some(id) = handle.borrow_mut().take() {
                let _ = util::window().cancel_animation_frame(id);
            }
            // The closure holds itself through `again`: break the cycle so it can go.
            callback.borrow_mut().take();
        }
    });
}

#[function_component(RadixViz)]
pub fn radix_viz(p: &Props) -> Html {
    let counts = use_memo((p.keys, p.seed, p.partitions), |&(keys, seed, partitions)| {
        count_partitions((0..keys).map(|i| key_at(i, seed)), partitions, partition_of)
    });
    let canvas = use_node_ref();
    let reduced_motion = use_memo((), |_| {
        util::window().match_media("(prefers-reduced-motion: reduce)").ok().flatten().is_some_and(|m| m.matches())
    });
    let fall = use_mut_ref(Fall::default);
    // Bumped each frame, so the ticker under the grid follows the keys.
    let frame = use_state(|| 0u64);
    let replays = use_state(|| 0u32);
    use_falling_keys(&fall, &canvas, &frame, p, *reduced_motion, *replays);
    {
        // Once the keys have fallen (or with reduced motion), the grid shows every key counted.
        let (fall, canvas, counts, palette, partitions, keys) =
            (fall.clone(), canvas.clone(), counts.clone(), p.palette, p.partitions, p.keys);
        use_effect(move || {
            if fall.borrow().done {
                let per_cell = grid(partitions).2 as usize;
                let cells: Vec<u32> = counts.chunks(per_cell).map(|c| c.iter().sum()).collect();
                draw(&canvas, palette, partitions, &cells, keys, None);
            }
        });
    }
    let (cols, rows, per_cell) = grid(p.partitions);
    let bits = p.partitions.trailing_zeros();
    let on_slider = p.on_partitions.reform(|bits: u32| 1 << bits);
    let on_slider = Callback::from(move |e: InputEvent| {
        if let Some(bits) = chart::target::<web_sys::HtmlInputElement>(&e).and_then(|i| i.value().parse::<u32>().ok()) {
            on_slider.emit(bits);
        }
    });
    let ticker = if !fall.borrow().done {
        let lines: Vec<String> = fall
            .borrow()
            .last_keys
            .iter()
            .rev()
            .take(3)
            .map(|(key, partition)| format!("key {key} → top {bits} bits of its hash → partition {partition}"))
            .collect();
        html! { <div class="ticker" aria-hidden="true">{ for lines.into_iter().map(|l| html! { <div>{ l }</div> }) }</div> }
    } else {
        html! {
            <p class="muted small">{ format!("All {} distinct keys counted{}.", group_digits(p.keys),
                if per_cell > 1 { format!("; each cell is {per_cell} partitions") } else { String::new() }) }</p>
        }
    };
    let replay = {
        let replays = replays.clone();
        Callback::from(move |_| replays.set(*replays + 1))
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
                    <canvas ref={canvas} class="partition-grid" width="640" height={(640 * rows / cols).to_string()}
                        role="img" aria-label={format!("A grid of {} partitions, shaded by how many distinct keys fell in each; the histogram and sizes beside it give the numbers.", p.partitions)} />
                    { ticker }
                    <button type="button" onclick={replay} disabled={*reduced_motion}>{ "Replay" }</button>
                </div>
                <div>
                    { partition_view::histogram(&counts, p.palette, "Distinct keys per partition", "distinct keys") }
                </div>
            </div>
            { sizes(&counts, p.keys, p) }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_square_or_twice_as_wide_and_never_over_4096_cells() {
        assert_eq!(grid(4096), (64, 64, 1));
        assert_eq!(grid(32), (8, 4, 1));
        assert_eq!(grid(65536), (64, 64, 16));
        assert_eq!(grid(16), (4, 4, 1));
    }

    #[test]
    fn every_distinct_key_is_counted_once() {
        let counts = count_partitions((0..10_000).map(|i| key_at(i, 42)), 256, partition_of);
        assert_eq!(counts.iter().map(|&c| u64::from(c)).sum::<u64>(), 10_000);
        assert_eq!(counts.len(), 256);
    }
}
