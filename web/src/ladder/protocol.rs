//! The ladder's job and events between the page and its worker, as short lines of text.
//!
//! Not JSON: the ladder is the first view, and serde's code for the report types, instantiated
//! once more for these messages, weighed more than the ladder page itself. A point is a handful
//! of numbers; Rust prints an f64 so that parsing it back gives the same bits, so nothing is lost.
//! The page reads the levels from the points itself, with the core's `explain::measured::read`.

use memwall_core::ladder::Pattern;
use memwall_report::{ChainsPoint, LadderPoint, Summary};
use wasm_bindgen::JsValue;

use crate::worker::Protocol;

#[derive(Debug, Clone, PartialEq)]
pub struct LadderJob {
    pub sizes: Vec<u64>,
    /// Timed samples per size; 0 picks from the timer.
    pub samples: u32,
    pub seed: u64,
    /// Patterns measured after the main random curve: each becomes a curve of the report.
    pub patterns: Vec<Pattern>,
    /// Chase counts for memory-level parallelism (see `ladder::CHAIN_COUNTS`), measured last
    /// over the largest size up to `ladder::DEFAULT_CHAINS_AT`; empty for none.
    pub chains: Vec<u32>,
    /// The first look: shorter samples and fewer retries, for a verdict in seconds.
    pub quick: bool,
}

/// What a ladder worker posts as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum LadderEvent {
    Started {
        timer_resolution_ns: f64,
        target_sample_ns: f64,
        samples: u32,
        cross_origin_isolated: bool,
    },
    /// `curve` 0 is the main random curve, then the job's patterns in order.
    Measuring {
        curve: usize,
        bytes: u64,
    },
    Point {
        curve: usize,
        point: LadderPoint,
    },
    /// Measuring memory-level parallelism over `bytes`.
    Chains {
        bytes: u64,
    },
    /// Every curve is measured; the chases' points, if asked for, come with it.
    Done {
        duration_s: f64,
        chains: Option<(u64, Vec<ChainsPoint>)>,
    },
}

impl LadderJob {
    /// The main random curve first, then the extra patterns, each once.
    pub fn curves(&self) -> Vec<Pattern> {
        let mut curves = vec![Pattern::Random];
        for &pattern in &self.patterns {
            if !curves.contains(&pattern) {
                curves.push(pattern);
            }
        }
        curves
    }

    /// Points over every curve (page-stride skips sizes under two pages).
    pub fn planned_points(&self) -> usize {
        self.curves().iter().map(|&p| self.sizes.iter().filter(|&&b| measured_at(p, b)).count()).sum()
    }

    /// Where memory-level parallelism is measured.
    pub fn chains_at(&self) -> u64 {
        self.sizes.last().copied().unwrap_or(0).min(memwall_core::ladder::DEFAULT_CHAINS_AT)
    }
}

/// Whether `pattern` has a point at `bytes`: a page-stride ring needs two whole pages.
pub fn measured_at(pattern: Pattern, bytes: u64) -> bool {
    pattern != Pattern::PageStride || bytes >= 2 * memwall_core::ladder::PATTERN_PAGE_BYTES as u64
}

/// Words of a message, read one by one, each failure naming what was expected.
struct Words<'a>(std::str::SplitWhitespace<'a>);

impl Words<'_> {
    fn next<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, String> {
        let word = self.0.next().ok_or_else(|| format!("no {what}"))?;
        word.parse().map_err(|_| format!("bad {what} '{word}'"))
    }
}

fn join<T: ToString>(items: &[T]) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

fn split<T: std::str::FromStr>(list: &str, what: &str) -> Result<Vec<T>, String> {
    list.split(',').filter(|s| !s.is_empty()).map(|s| s.parse().map_err(|_| format!("bad {what} '{s}'"))).collect()
}

fn text(message: &JsValue) -> Result<String, String> {
    message.as_string().ok_or_else(|| "not text".to_string())
}

/// "job <seed> <samples> <quick> <sizes,...> <patterns,...|-> <chains,...|->".
pub fn encode_job(job: &LadderJob) -> String {
    let names: Vec<&str> = job.patterns.iter().map(|p| p.name()).collect();
    let or_dash = |s: String| if s.is_empty() { "-".to_string() } else { s };
    format!(
        "job {} {} {} {} {} {}",
        job.seed,
        job.samples,
        u8::from(job.quick),
        join(&job.sizes),
        or_dash(names.join(",")),
        or_dash(join(&job.chains))
    )
}

pub fn decode_job(line: &str) -> Result<LadderJob, String> {
    let mut w = Words(line.split_whitespace());
    if w.next::<String>("kind")? != "job" {
        return Err("not a ladder job".into());
    }
    let seed = w.next("seed")?;
    let samples = w.next("samples")?;
    let quick = w.next::<u8>("quick")? == 1;
    let sizes = split(&w.next::<String>("sizes")?, "size")?;
    let names = w.next::<String>("patterns")?;
    let patterns = names
        .split(',')
        .filter(|n| !n.is_empty() && *n != "-")
        .map(|n| Pattern::parse(n).ok_or_else(|| format!("unknown pattern '{n}'")))
        .collect::<Result<_, _>>()?;
    let chains = w.next::<String>("chains")?;
    let chains = if chains == "-" { Vec::new() } else { split(&chains, "chase count")? };
    Ok(LadderJob { sizes, samples, seed, patterns, chains, quick })
}

pub fn encode_event(event: &LadderEvent) -> String {
    match event {
        LadderEvent::Started { timer_resolution_ns, target_sample_ns, samples, cross_origin_isolated } => {
            format!("started {timer_resolution_ns} {target_sample_ns} {samples} {}", u8::from(*cross_origin_isolated))
        }
        LadderEvent::Measuring { curve, bytes } => format!("measuring {curve} {bytes}"),
        LadderEvent::Point { curve, point: p } => {
            let s = &p.ns_per_load;
            format!(
                "point {curve} {} {} {} {} {} {} {} {}",
                p.bytes,
                s.min,
                s.median,
                s.p90,
                s.max,
                p.loads_per_sample,
                p.attempts,
                join(&p.samples_ns_per_load)
            )
        }
        LadderEvent::Chains { bytes } => format!("chains {bytes}"),
        LadderEvent::Done { duration_s, chains } => match chains {
            None => format!("done {duration_s} -"),
            Some((bytes, points)) => {
                let points: Vec<String> = points
                    .iter()
                    .map(|c| format!("{}:{}:{}", c.chains, c.ns_per_load, c.ns_per_load_median.unwrap_or(f64::NAN)))
                    .collect();
                format!("done {duration_s} {bytes} {}", points.join(","))
            }
        },
    }
}

pub fn decode_event(line: &str) -> Result<LadderEvent, String> {
    let mut w = Words(line.split_whitespace());
    Ok(match w.next::<String>("kind")?.as_str() {
        "started" => LadderEvent::Started {
            timer_resolution_ns: w.next("timer resolution")?,
            target_sample_ns: w.next("sample length")?,
            samples: w.next("samples")?,
            cross_origin_isolated: w.next::<u8>("isolation")? == 1,
        },
        "measuring" => LadderEvent::Measuring { curve: w.next("curve")?, bytes: w.next("size")? },
        "point" => {
            let curve = w.next("curve")?;
            let bytes = w.next("size")?;
            let ns_per_load =
                Summary { min: w.next("min")?, median: w.next("median")?, p90: w.next("p90")?, max: w.next("max")? };
            let loads_per_sample = w.next("loads per sample")?;
            let attempts = w.next("attempts")?;
            let samples_ns_per_load: Vec<f64> = split(&w.next::<String>("samples")?, "sample")?;
            let point = LadderPoint {
                bytes,
                ns_per_load,
                cycles_per_load: None,
                ghz: None,
                clock_moved: false,
                loads_per_sample,
                samples: samples_ns_per_load.len() as u32,
                samples_ns_per_load,
                attempts,
                visits_ns_per_load: Vec::new(),
                huge_page_bytes: None,
            };
            LadderEvent::Point { curve, point }
        }
        "chains" => LadderEvent::Chains { bytes: w.next("size")? },
        "done" => {
            let duration_s = w.next("duration")?;
            let bytes = w.next::<String>("chains size")?;
            let chains = if bytes == "-" {
                None
            } else {
                let bytes = bytes.parse().map_err(|_| format!("bad chains size '{bytes}'"))?;
                let points = w.next::<String>("chains")?;
                let points = points.split(',').map(chains_point).collect::<Result<_, String>>()?;
                Some((bytes, points))
            };
            LadderEvent::Done { duration_s, chains }
        }
        other => return Err(format!("unknown event '{other}'")),
    })
}

/// "chains:ns_per_load:median" (the median `NaN` when there was none).
fn chains_point(text: &str) -> Result<ChainsPoint, String> {
    let spaced = text.replace(':', " ");
    let mut w = Words(spaced.split_whitespace());
    let chains = w.next("chase count")?;
    let ns_per_load = w.next("ns per load")?;
    let median: f64 = w.next("median")?;
    Ok(ChainsPoint { chains, ns_per_load, ns_per_load_median: Some(median).filter(|m| !m.is_nan()) })
}

/// The ladder's messages between the page and the worker.
#[derive(Debug)]
pub struct Ladder;

impl Protocol for Ladder {
    type Job = LadderJob;
    type Event = LadderEvent;

    fn encode_job(job: &LadderJob) -> Result<JsValue, String> {
        Ok(JsValue::from_str(&encode_job(job)))
    }
    fn decode_job(message: &JsValue) -> Result<LadderJob, String> {
        decode_job(&text(message)?)
    }
    fn encode_event(event: &LadderEvent) -> JsValue {
        JsValue::from_str(&encode_event(event))
    }
    fn decode_event(message: &JsValue) -> Result<LadderEvent, String> {
        decode_event(&text(message)?)
    }
    fn is_last(event: &LadderEvent) -> bool {
        matches!(event, LadderEvent::Done { .. })
    }
}
