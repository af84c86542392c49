//! What a race on this page is sized by: the levels this page's own ladder read (the Latency
//! ladder tab's last run where one finished, else the first look), turned into the kernels' cache
//! budget by the core's one budget path, [`budget::for_host`], as the native races do
//! (`native/src/cache_budget.rs`); and the cost model's view of the host from the same ladder.
//! The page names the caches and where they came from; with no ladder yet, what stood in.

use memwall_core::budget::{self, BudgetSource, CacheBudget};
use memwall_core::cost::{Host, Machine, Measured};
use memwall_report::{Level, Report};
use serde::{Deserialize, Serialize};

/// Which of this page's ladders the levels are from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Origin {
    /// No ladder finished on this page yet.
    #[default]
    None,
    /// The first look, finished at this time (Unix seconds).
    FirstLook { at_unix_s: u64 },
    /// The Latency ladder tab's last run, finished at this time.
    LadderTab { at_unix_s: u64 },
}

impl Origin {
    /// Whose ladder, for a person: "this page's first look".
    pub fn name(self) -> Option<&'static str> {
        match self {
            Self::None => None,
            Self::FirstLook { .. } => Some("this page's first look"),
            Self::LadderTab { .. } => Some("the Latency ladder tab's run"),
        }
    }
}

/// The sizes of L1, L2 and L3 as a ladder read them (the largest part of each where it has a
/// slower part), never a declared size.
pub fn measured_caches(levels: &[Level]) -> [Option<u64>; 3] {
    [1u8, 2, 3].map(|n| {
        let name = format!("L{n}");
        levels.iter().filter(|l| l.name.split(' ').next() == Some(&name)).map(|l| l.size_bytes).max()
    })
}

/// The ladder a race is sized by, as its job carries it to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Sizing {
    pub origin: Origin,
    /// The levels the ladder read (empty with no ladder).
    pub levels: Vec<Level>,
    /// What else the ladder measured for the cost model: its parallelism knee and clock.
    pub knee_chains: Option<u32>,
    pub ghz: Option<f64>,
}

impl Sizing {
    /// From this page's ladders: the one that measured further up the hierarchy (a ladder tab's
    /// run over 16 to 256 KiB saw no L3 and no DRAM, which a first look did see), the ladder
    /// tab's run where both went as far (it is the later), else whichever there is, else none.
    pub fn of(first_look: Option<&Report>, ladder_tab: Option<&Report>) -> Self {
        let reach = |r: Option<&Report>| r.and_then(|r| r.ladder.as_ref()?.points.iter().map(|p| p.bytes).max());
        let ladder_tab = ladder_tab.filter(|_| reach(ladder_tab) >= reach(first_look));
        let from = |report: &Report, origin: Origin| {
            let ladder = report.ladder.as_ref()?;
            let measured = Measured::of(Some(ladder), None);
            Some(Self { origin, levels: ladder.levels.clone(), knee_chains: measured.knee_chains, ghz: measured.ghz })
        };
        ladder_tab
            .and_then(|r| from(r, Origin::LadderTab { at_unix_s: r.created_unix_s }))
            .or_else(|| first_look.and_then(|r| from(r, Origin::FirstLook { at_unix_s: r.created_unix_s })))
            .unwrap_or_default()
    }

    /// The budget the kernels run by: a browser declares no caches, one thread races, and the
    /// levels read replace the guess where a ladder read them.
    pub fn budget(&self) -> CacheBudget {
        budget::for_host(&[], 1, (self.origin != Origin::None).then_some(&self.levels[..]))
    }

    /// The cost model's view of this host, from the same ladder; `None` with no ladder.
    pub fn machine(&self) -> Option<Machine> {
        if self.origin == Origin::None {
            return None;
        }
        Machine::from_ladder(
            &self.levels,
            Measured { knee_chains: self.knee_chains, read_gb_per_s: None, ghz: self.ghz },
        )
    }

    /// The model's figures adaptive prices with while it runs: the same ladder's.
    pub fn host(&self) -> Option<Host> {
        self.machine().map(|m| m.host)
    }

    /// The caches a race is sized by and where they came from, for a person; `at` formats a
    /// time: "Sized by L2 1 MiB and L3 16 MiB, as the ladder read them: this page's first look at
    /// 12:03."
    pub fn describe(&self, at: impl Fn(u64) -> String) -> String {
        let budget = self.budget();
        let caches = budget.describe();
        match (self.origin, self.origin.name()) {
            (Origin::FirstLook { at_unix_s } | Origin::LadderTab { at_unix_s }, Some(whose)) => {
                format!("Sized by {caches}: {whose} at {}.", at(at_unix_s))
            }
            _ => {
                debug_assert_eq!(budget.source, BudgetSource::Guess);
                format!(
                    "Sized by {caches}. No ladder has been measured on this page yet: let the first look finish, or run \
                     the Latency ladder tab, and the next race is sized by what it read."
                )
            }
        }
    }
}

/// A time of day in the reader's time zone: "12:03".
pub fn clock_time(unix_s: u64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(unix_s as f64 * 1000.0));
    format!("{:02}:{:02}", date.get_hours(), date.get_minutes())
}

#[cfg(test)]
mod tests {
    use memwall_core::fixtures::level;
    use memwall_report::{Cause, Host, Ladder, Source};

    use super::*;

    /// A report whose ladder read `levels`, measured up to the last level's size.
    fn report(at: u64, levels: Vec<Level>) -> Report {
        let mut report = Report::new(Source::Browser, at, Host::default());
        let reach = levels.iter().map(|l| l.size_bytes).max().unwrap_or(0);
        let points = vec![memwall_core::fixtures::point(reach, 2.0)];
        report.ladder =
            Some(Ladder { levels, ..memwall_core::fixtures::ladder("random-cycle", "default", points, vec![]) });
        report
    }

    #[test]
    fn the_ladder_that_went_further_wins_and_any_ladder_over_the_guess() {
        let first = report(100, vec![level("L2", 1 << 20, Cause::Cache), level("L3", 16 << 20, Cause::Cache)]);
        let tab = report(200, vec![level("L2", 2 << 20, Cause::Cache), level("DRAM", 64 << 20, Cause::Dram)]);
        let hhmm = |t: u64| format!("t{t}");

        let none = Sizing::of(None, None);
        assert_eq!(none.budget(), CacheBudget::GUESS);
        assert!(none.machine().is_none());
        assert!(
            none.describe(hhmm).contains("No ladder has been measured on this page yet"),
            "{}",
            none.describe(hhmm)
        );

        let sized = Sizing::of(Some(&first), None);
        assert_eq!(sized.budget(), budget::for_host(&[], 1, Some(&first.ladder.as_ref().unwrap().levels)));
        assert_eq!((sized.budget().per_core_bytes, sized.budget().last_level_bytes), (1 << 20, 16 << 20));
        assert_eq!(
            sized.describe(hhmm),
            "Sized by L2 1 MiB and L3 16 MiB, as the ladder read them: this page's first look at t100."
        );
        assert_eq!(measured_caches(&sized.levels), [None, Some(1 << 20), Some(16 << 20)]);
        let machine = sized.machine().unwrap();
        assert!(machine.missing.iter().any(|m| m.starts_with("parallelism knee")), "{:?}", machine.missing);
        assert!(machine.missing.iter().any(|m| m.starts_with("read bandwidth")), "{:?}", machine.missing);

        let both = Sizing::of(Some(&first), Some(&tab));
        assert_eq!(both.origin, Origin::LadderTab { at_unix_s: 200 });
        assert_eq!(both.budget().per_core_bytes, 2 << 20);
        assert!(both.describe(hhmm).ends_with("the Latency ladder tab's run at t200."), "{}", both.describe(hhmm));
        // A ladder tab's run that stopped short of where the first look went does not replace it.
        let short = report(300, vec![level("L1", 32 << 10, Cause::Cache), level("L2", 256 << 10, Cause::Cache)]);
        assert_eq!(Sizing::of(Some(&first), Some(&short)).origin, Origin::FirstLook { at_unix_s: 100 });
        assert_eq!(Sizing::of(None, Some(&short)).origin, Origin::LadderTab { at_unix_s: 300 });
    }
}
