//! What every part of the first view shares, held once in a context (pages import it from here,
//! never from the app that provides it): the page shown, the theme,
//! whether the second module (reports and races) is wanted, and what it says back about the
//! reports it holds: how many, and each one's part for the ladder's chart.

use std::rc::Rc;

use yew::prelude::*;

use crate::overlay::Overlay;
use crate::theme::Theme;
use crate::util;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Ladder,
    GroupBy,
    Join,
    Reports,
    Fleet,
    Cloud,
}

impl Page {
    pub const ALL: [Page; 6] = [Page::Ladder, Page::GroupBy, Page::Join, Page::Reports, Page::Fleet, Page::Cloud];

    pub fn slug(self) -> &'static str {
        match self {
            Self::Ladder => "ladder",
            Self::GroupBy => "groupby",
            Self::Join => "join",
            Self::Reports => "reports",
            Self::Fleet => "fleet",
            Self::Cloud => "cloud",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Self::Ladder => "Latency ladder",
            Self::GroupBy => "GROUP BY race",
            Self::Join => "Join race",
            Self::Reports => "Reports",
            Self::Fleet => "Fleet",
            Self::Cloud => "Cloud",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.slug() == slug)
    }

    /// Whether the second module draws this page.
    pub fn is_view(self) -> bool {
        self != Self::Ladder
    }
}

/// What `?embed=` asks for: one compact widget, no navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embed {
    Ladder,
    GroupBy,
    Join,
    Report,
    Fleet,
}

impl Embed {
    pub fn from_query() -> Option<Self> {
        match util::query("embed")?.as_str() {
            "ladder" => Some(Self::Ladder),
            "groupby" => Some(Self::GroupBy),
            "join" => Some(Self::Join),
            "report" => Some(Self::Report),
            "fleet" => Some(Self::Fleet),
            _ => None,
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Self::Ladder => "ladder",
            Self::GroupBy => "groupby",
            Self::Join => "join",
            Self::Report => "report",
            Self::Fleet => "fleet",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct AppState {
    pub page: Page,
    pub theme: Theme,
    pub embed: Option<Embed>,
    /// The second module is wanted: a page of its was shown, a report was named or added.
    /// Once wanted, it stays.
    pub views: bool,
    /// Reports open in the second module.
    pub reports: usize,
    pub overlays: Rc<Vec<Overlay>>,
    /// Browser reports (JSON) to add, held until the second module is there to take them.
    pub outbox: Rc<Vec<String>>,
    /// This browser's first look as a report's JSON, once measured (the Cloud tab places it;
    /// the races are sized by it until the ladder tab runs).
    pub first_look: Option<Rc<String>>,
    /// The ladder tab's last finished run as a report's JSON (the races are sized by it).
    pub ladder_run: Option<Rc<String>>,
}

impl AppState {
    pub fn new(page: Page, theme: Theme, embed: Option<Embed>) -> Self {
        let views = page != Page::Ladder || embed.is_some_and(|e| e != Embed::Ladder);
        Self {
            page,
            theme,
            embed,
            views,
            reports: 0,
            overlays: Rc::new(Vec::new()),
            outbox: Rc::new(Vec::new()),
            first_look: None,
            ladder_run: None,
        }
    }
}

#[derive(Debug)]
pub enum AppAction {
    Navigate(Page),
    ToggleTheme,
    /// Something only the second module can show or hold is there (a report to open).
    WantViews,
    /// The second module's word on its reports.
    Reports {
        count: usize,
        overlays: Vec<Overlay>,
    },
    /// A report measured in this browser, as JSON, for the reports.
    Add(String),
    /// The second module took what was held for it.
    Sent,
    /// The first look's report, as JSON.
    FirstLook(String),
    /// The ladder tab's finished run, as a report's JSON.
    LadderRun(String),
}

/// The shared state as pages see it: read it, and dispatch [`AppAction`]s to change it.
pub type AppContext = UseReducerHandle<AppState>;

/// The app's shared state; every component of the first view sits under its provider.
#[hook]
pub fn use_app() -> AppContext {
    use_context::<AppContext>().expect("pages sit under the app's context provider")
}

impl Reducible for AppState {
    type Action = AppAction;

    fn reduce(self: Rc<Self>, action: AppAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            AppAction::Navigate(page) => {
                next.page = page;
                next.views |= page != Page::Ladder;
            }
            AppAction::ToggleTheme => next.theme = next.theme.toggled(),
            AppAction::WantViews => next.views = true,
            AppAction::Reports { count, overlays } => {
                next.reports = count;
                next.overlays = Rc::new(overlays);
            }
            AppAction::Add(json) => {
                next.views = true;
                Rc::make_mut(&mut next.outbox).push(json);
            }
            AppAction::Sent => next.outbox = Rc::new(Vec::new()),
            AppAction::FirstLook(json) => next.first_look = Some(Rc::new(json)),
            AppAction::LadderRun(json) => next.ladder_run = Some(Rc::new(json)),
        }
        Rc::new(next)
    }
}
