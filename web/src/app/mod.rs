//! The first view's app: the shared state in a context, the page shell around the pages, and
//! the reports the URL or `memwall serve` names, opened on start.

mod load;
mod shell;
pub mod state;
mod views_host;

use yew::prelude::*;

use crate::util;
pub use state::{AppAction, AppContext, AppState, use_app};
pub use views_host::ViewsStatus;

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
    fn from_query() -> Option<Self> {
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

/// Marks the moment the app is on screen and answers input, for measuring time to interactive
/// (`performance.getEntriesByName("memwall-interactive")`).
fn mark_interactive() {
    if let Some(performance) = util::window().performance() {
        let _ = performance.mark("memwall-interactive");
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| {
        // A fleet named in the URL (`?fleet=`, a shared link) is what the link was shared for.
        let first = if util::query("fleet").is_some() { Page::Fleet } else { Page::Ladder };
        let page = Page::from_slug(&util::fragment()).unwrap_or(first);
        AppState::new(page, crate::theme::Theme::preferred(), Embed::from_query())
    });
    load::use_reports_named_on_start(&state);
    let views = views_host::use_views(&state);
    {
        let theme = state.theme;
        use_effect_with(theme, |theme| {
            if let Some(root) = util::document().document_element() {
                let _ = root.set_attribute("data-theme", theme.name());
            }
        });
    }
    {
        // Opening on the fleet: its index downloads beside the second module rather than after it.
        let on_fleet = state.page == Page::Fleet || state.embed == Some(Embed::Fleet);
        use_effect_with((), move |_| {
            if on_fleet {
                crate::fleet::prefetch_index();
            }
        });
    }
    // The Cloud tab's shelf downloads beside the second module rather than after it.
    use_effect_with(state.page == Page::Cloud, |&on_cloud| {
        if on_cloud {
            crate::cloud::prefetch();
        }
    });
    use_effect_with((), |_| {
        if let Some(boot) = util::document().get_element_by_id("boot") {
            boot.remove();
        }
        mark_interactive();
    });
    html! {
        <ContextProvider<AppContext> context={state.clone()}>
            if state.embed.is_some() { <shell::EmbedView {views} /> } else { <shell::Shell {views} /> }
        </ContextProvider<AppContext>>
    }
}
