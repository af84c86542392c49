//! The page around the pages: the header with its tabs and theme switch, the sections, the
//! footer; and the bare frame of an embed. The reports and the races are drawn by the second
//! module into the `#views-…` elements here (see `bridge.rs`).

use yew::prelude::*;

use super::views_host::ViewsStatus;
use crate::bridge::{ALERTS_HOST, CLOUD_HOST, FLEET_HOST, RACES_HOST, REPORTS_HOST};
use crate::context::{AppAction, Embed, Page, use_app};
use crate::ladder::LadderPage;
use crate::theme::Theme;
use crate::util;

#[function_component(Header)]
fn header() -> Html {
    let state = use_app();
    let go = |page: Page| {
        let state = state.clone();
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            util::set_fragment(page.slug());
            state.dispatch(AppAction::Navigate(page));
        })
    };
    let tabs = Page::ALL.iter().map(|&page| {
        let current = page == state.page;
        html! {
            <a href={format!("#{}", page.slug())} class={classes!("tab", current.then_some("current"))}
                aria-current={current.then_some("page")} onclick={go(page)}>
                { page.title() }
                if page == Page::Reports && state.reports > 0 {
                    <span class="count" aria-label={format!("{} loaded", state.reports)}>{ state.reports }</span>
                }
            </a>
        }
    });
    let theme_label = match state.theme {
        Theme::Light => "Switch to the dark theme",
        Theme::Dark => "Switch to the light theme",
    };
    let toggle = {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(AppAction::ToggleTheme))
    };
    html! {
        <header class="top">
            <div class="wrap top-inner">
                <a class="brand" href="#ladder" onclick={go(Page::Ladder)}>
                    <span class="logo" aria-hidden="true">{ "▮▮▯" }</span>
                    <span>{ "memwall" }</span>
                </a>
                <nav aria-label="Pages" class="tabs">{ for tabs }</nav>
                <button type="button" class="icon" onclick={toggle} aria-label={theme_label} title={theme_label}>
                    { if state.theme == Theme::Dark { "☀" } else { "☾" } }
                </button>
            </div>
        </header>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub views: ViewsStatus,
}

/// Where the second module stands, shown where its pages go until they are there.
fn views_status(status: &ViewsStatus) -> Html {
    match status {
        ViewsStatus::Fetching => html! {
            <p class="muted" aria-live="polite">{ "Loading the reports and races (a second module, fetched the first time one of them is wanted)…" }</p>
        },
        ViewsStatus::Failed(e) => html! { <div class="alert" role="alert">{ e.clone() }</div> },
        _ => html! {},
    }
}

#[function_component(Shell)]
pub fn shell(props: &Props) -> Html {
    let state = use_app();
    let page = state.page;
    html! {
        <>
            <Header />
            <main class="wrap">
                <div id={ALERTS_HOST}></div>
                if page.is_view() { { views_status(&props.views) } }
                <section hidden={page != Page::Ladder} aria-label="Latency ladder">
                    <LadderPage compact=false />
                </section>
                <div id={RACES_HOST} hidden={!matches!(page, Page::GroupBy | Page::Join)}></div>
                <section hidden={page != Page::Reports} aria-label="Reports">
                    <div id={REPORTS_HOST}></div>
                </section>
                <section hidden={page != Page::Fleet} aria-label="Fleet">
                    <div id={FLEET_HOST}></div>
                </section>
                <section hidden={page != Page::Cloud} aria-label="Cloud">
                    <div id={CLOUD_HOST}></div>
                </section>
            </main>
            <footer class="wrap foot">
                <p>{ "memwall measures in your browser with WebAssembly; nothing leaves this page unless you save or share it. For full precision on a host, run " }<code>{ "memwall run" }</code>{ " and open its report here." }</p>
            </footer>
        </>
    }
}

#[function_component(EmbedView)]
pub fn embed_view(props: &Props) -> Html {
    let state = use_app();
    let widget = match state.embed {
        Some(Embed::Ladder) => html! { <LadderPage compact=true /> },
        Some(Embed::Report) => html! { <><div id={REPORTS_HOST}></div>{ views_status(&props.views) }</> },
        Some(Embed::Fleet) => html! { <><div id={FLEET_HOST}></div>{ views_status(&props.views) }</> },
        Some(_) => html! { <><div id={RACES_HOST}></div>{ views_status(&props.views) }</> },
        None => html! {},
    };
    html! {
        <main class="embed" data-theme={state.theme.name()}>
            <div id={ALERTS_HOST}></div>
            { widget }
            <p class="embed-credit"><a href={util::page_base_url()} target="_blank" rel="noopener">{ "memwall" }</a>{ " — measured in your browser, or read from a native report" }</p>
        </main>
    }
}
