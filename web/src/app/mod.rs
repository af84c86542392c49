//! The first view's app: the shared state in a context, the page shell around the pages, and
//! the reports the URL or `memwall serve` names, opened on start.

mod load;
mod shell;
mod views_host;

use yew::prelude::*;

pub use crate::context::{AppAction, AppContext, AppState, Embed, Page, use_app};
use crate::util;
pub use views_host::ViewsStatus;

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
