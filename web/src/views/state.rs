//! What the pages of the second module share, in a context they import from here ([`ViewsContext`]),
//! and the reports open, held by the second module: opened files, links, `memwall serve`'s list,
//! this browser's runs; with the messages about reports that could not be opened.

use std::rc::Rc;

use memwall_report::{Report, Untrusted};
use yew::prelude::*;

use crate::overlay::THIS_PAGE;
use crate::reports::{LoadedReport, Reports, report_label};
use crate::theme::Palette;

/// What the pages of the second module share.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewsContext {
    pub palette: Palette,
    /// The first view's page: "ladder", "groupby", "join", "reports", "fleet".
    pub page: String,
    /// "report", "groupby", "join", "fleet" in an embed.
    pub embed: Option<String>,
    pub reports: UseReducerHandle<ReportsState>,
    /// This browser's first look, read as a report (the first view sends it once measured).
    pub first_look: Option<Rc<memwall_report::Report>>,
    /// The ladder tab's last finished run, read as a report (the races are sized by it).
    pub ladder_run: Option<Rc<memwall_report::Report>>,
}

#[hook]
pub fn use_views() -> ViewsContext {
    use_context::<ViewsContext>().expect("the second module's pages sit under its app")
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReportsState {
    pub reports: Reports,
    next_id: u32,
    /// Why the last report could not be opened.
    pub error: Option<String>,
    /// Reports that parsed but whose figures could not have been measured: listed with why,
    /// never drawn.
    pub implausible: Vec<String>,
    /// Bumped when a report the URL named is read: the Reports page should show.
    pub shown: u32,
    /// The reports picked in the Fleet tab, shown alone on the Reports page (the others stay
    /// open) until "show all".
    pub focus: Option<Vec<u32>>,
    /// How many reports `memwall serve` lists that were left to the Fleet tab, not opened here.
    pub left_to_fleet: usize,
}

#[derive(Debug)]
pub enum ReportsAction {
    /// JSON text to read as a report; `origin` names where it came from in messages; `show`
    /// asks for the Reports page once it is read (a report the URL named).
    Load {
        text: String,
        origin: String,
        show: bool,
    },
    /// A report `memwall serve` lists: loaded alongside, so it neither shows itself nor clears a
    /// message about a report the URL named.
    Served {
        text: String,
        origin: String,
    },
    /// A report measured in this browser (a race here, or the first view's ladder as JSON).
    Add(Box<Report>),
    AddJson(String),
    /// Reports picked in the Fleet tab, as (JSON text, where it came from): each opened, or
    /// found open already by where it came from, then shown alone.
    Focus(Vec<(String, String)>),
    ShowAll,
    /// `memwall serve` lists this many reports: too many to open here, they are the Fleet tab's.
    LeftToFleet(usize),
    Remove(u32),
    Error(String),
    DismissError,
}

impl Reducible for ReportsState {
    type Action = ReportsAction;

    fn reduce(self: Rc<Self>, action: ReportsAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            ReportsAction::Load { text, origin, show } => {
                if next.load(&text, origin) {
                    next.error = None;
                    next.shown += u32::from(show);
                }
            }
            ReportsAction::Served { text, origin } => {
                next.load(&text, origin);
            }
            ReportsAction::Add(report) => next.push(*report, THIS_PAGE.into()),
            ReportsAction::AddJson(json) => match Report::from_json(&json) {
                Ok(report) => next.push(report, THIS_PAGE.into()),
                Err(e) => next.error = Some(format!("{THIS_PAGE}: {e}")),
            },
            ReportsAction::Focus(picked) => {
                let mut ids = Vec::new();
                for (text, origin) in picked {
                    match next.reports.iter().find(|r| r.origin == origin).map(|r| r.id) {
                        Some(open) => ids.push(open),
                        None if next.load(&text, origin) => ids.push(next.next_id),
                        None => {}
                    }
                }
                if !ids.is_empty() {
                    next.focus = Some(ids);
                    next.shown += 1;
                }
            }
            ReportsAction::ShowAll => next.focus = None,
            ReportsAction::LeftToFleet(n) => next.left_to_fleet = n,
            ReportsAction::Remove(id) => {
                Rc::make_mut(&mut next.reports).retain(|r| r.id != id);
                if next.visible().is_empty() {
                    next.focus = None;
                }
            }
            ReportsAction::Error(message) => next.error = Some(message),
            ReportsAction::DismissError => next.error = None,
        }
        Rc::new(next)
    }
}

impl ReportsState {
    /// The reports the Reports page shows: those picked in the fleet, else every one open.
    pub fn visible(&self) -> Vec<&LoadedReport> {
        match &self.focus {
            Some(ids) => self.reports.iter().filter(|r| ids.contains(&r.id)).collect(),
            None => self.reports.iter().collect(),
        }
    }

    /// Parses, checks and adds a report; says whether it was added. A report that cannot be
    /// read sets the message (naming where it came from; nothing else changes), one with
    /// impossible figures is listed as not drawn. Its levels, verdict and advice are read again by
    /// the core's current rules, as `memwall explain` does, so an old report gets today's reading.
    fn load(&mut self, text: &str, origin: String) -> bool {
        match Report::from_untrusted_json(text) {
            Ok(mut report) => {
                memwall_core::explain::reread(&mut report);
                self.push(report, origin);
                true
            }
            Err(Untrusted::Implausible(e)) => {
                self.implausible.push(format!("{origin}: {e}"));
                false
            }
            Err(e) => {
                self.error = Some(format!("{origin}: {e}"));
                false
            }
        }
    }

    fn push(&mut self, report: Report, origin: String) {
        let id = self.next_id + 1;
        self.next_id = id;
        // Two reports from one host (or two runs) must still be told apart in legends.
        let base = report_label(&report);
        let taken = |label: &str| self.reports.iter().any(|r| r.label == label);
        let label = (1..)
            .map(|n| if n == 1 { base.clone() } else { format!("{base} ({n})") })
            .find(|l| !taken(l))
            .unwrap_or(base);
        Rc::make_mut(&mut self.reports).push(LoadedReport { id, label, origin, report: Rc::new(report) });
    }
}
