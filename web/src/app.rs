//! The app: navigation, theme, and the reports every page can compare against.

use std::rc::Rc;

use memwall_report::index::{INDEX_PATH, ReportsIndex};
use memwall_report::{Report, Untrusted};
use yew::prelude::*;

use crate::groupby_page::GroupByPage;
use crate::join_page::JoinPage;
use crate::ladder_page::LadderPage;
use crate::reports::{LoadedReport, Reports, report_label};
use crate::reports_page::ReportsPage;
use crate::theme::Theme;
use crate::util;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Ladder,
    GroupBy,
    Join,
    Reports,
}

impl Page {
    const ALL: [Page; 4] = [Page::Ladder, Page::GroupBy, Page::Join, Page::Reports];

    fn slug(self) -> &'static str {
        match self {
            Self::Ladder => "ladder",
            Self::GroupBy => "groupby",
            Self::Join => "join",
            Self::Reports => "reports",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Self::Ladder => "Latency ladder",
            Self::GroupBy => "GROUP BY race",
            Self::Join => "Join race",
            Self::Reports => "Reports",
        }
    }

    fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.slug() == slug)
    }
}

/// What `?embed=` asks for: one compact widget, no navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embed {
    Ladder,
    GroupBy,
    Join,
    Report,
}

impl Embed {
    fn from_query() -> Option<Self> {
        match util::query("embed")?.as_str() {
            "ladder" => Some(Self::Ladder),
            "groupby" => Some(Self::GroupBy),
            "join" => Some(Self::Join),
            "report" => Some(Self::Report),
            _ => None,
        }
    }
}

#[derive(Debug)]
pub enum Msg {
    Navigate(Page),
    ToggleTheme,
    /// JSON text to parse as a report; `origin` names where it came from in messages.
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
    /// A report measured in this browser.
    Add {
        report: Box<Report>,
        origin: String,
    },
    Remove(u32),
    Error(String),
    DismissError,
}

pub struct App {
    page: Page,
    theme: Theme,
    reports: Reports,
    next_id: u32,
    error: Option<String>,
    /// Reports that parsed but whose figures could not have been measured: listed with why,
    /// never drawn.
    implausible: Vec<String>,
    embed: Option<Embed>,
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let fragment = util::fragment();
        let page = Page::from_slug(&fragment).unwrap_or(Page::Ladder);
        let embed = Embed::from_query();
        let link = ctx.link();

        // Reports named in the URL: `?report=URL` (repeatable), then a report carried in the
        // fragment of a share link (`#report=...`), then those `memwall serve` was given.
        for url in util::query_all("report") {
            link.send_future(async move {
                match util::fetch_text(&url).await {
                    Ok(text) => Msg::Load { text, origin: url, show: true },
                    Err(e) => Msg::Error(format!("could not load the report at {url}: {e}")),
                }
            });
        }
        if let Some(packed) = fragment.strip_prefix("report=").map(str::to_string) {
            link.send_future(async move {
                match util::unpack(&packed).await {
                    Ok(text) => Msg::Load { text, origin: "shared link".into(), show: true },
                    Err(e) => Msg::Error(e),
                }
            });
        }
        // An embedded report shows what its URL names; only a bare report embed (or the full
        // page) lists what `memwall serve` was given.
        let named = !util::query_all("report").is_empty() || fragment.starts_with("report=");
        if embed.is_none() || (embed == Some(Embed::Report) && !named) {
            let link = link.clone();
            wasm_bindgen_futures::spawn_local(async move {
                // Only `memwall serve` has this; on a static host it is simply not there.
                let Ok(text) = util::fetch_text(INDEX_PATH).await else { return };
                let index = match ReportsIndex::from_json(&text) {
                    Ok(index) => index,
                    Err(e) => return link.send_message(Msg::Error(format!("{INDEX_PATH}: {e}"))),
                };
                for served in index.reports {
                    let message = match util::fetch_text(&served.url).await {
                        Ok(text) => Msg::Served { text, origin: served.name },
                        Err(e) => Msg::Error(format!("could not load {}: {e}", served.name)),
                    };
                    link.send_message(message);
                }
            });
        }

        let theme = Theme::preferred();
        apply_theme(theme);
        if let Some(boot) = util::document().get_element_by_id("boot") {
            boot.remove();
        }
        Self { page, theme, reports: Rc::new(Vec::new()), next_id: 1, error: None, implausible: Vec::new(), embed }
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Navigate(page) => {
                self.page = page;
                util::set_fragment(page.slug());
            }
            Msg::ToggleTheme => {
                self.theme = self.theme.toggled();
                apply_theme(self.theme);
            }
            Msg::Load { text, origin, show } => {
                if self.load(&text, origin) {
                    self.error = None;
                    if show && self.embed.is_none() {
                        self.page = Page::Reports;
                    }
                }
            }
            Msg::Served { text, origin } => {
                self.load(&text, origin);
            }
            Msg::Add { report, origin } => self.push(*report, origin),
            Msg::Remove(id) => {
                Rc::make_mut(&mut self.reports).retain(|r| r.id != id);
            }
            Msg::Error(message) => self.error = Some(message),
            Msg::DismissError => self.error = None,
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, first_render: bool) {
        if first_render {
            Self::mark_interactive();
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let palette = self.theme.palette();
        let on_load = link.callback(|(text, origin): (String, String)| Msg::Load { text, origin, show: false });
        let on_add = link.callback(|(report, origin): (Report, String)| Msg::Add { report: Box::new(report), origin });
        let on_remove = link.callback(Msg::Remove);
        let on_error = link.callback(Msg::Error);
        let error = self.error.as_ref().map(|message| {
            html! {
                <div class="alert" role="alert">
                    <strong>{ "Could not open that report. " }</strong>
                    <span class="alert-text">{ message.clone() }</span>
                    <button type="button" class="link" onclick={link.callback(|_| Msg::DismissError)} aria-label="Dismiss the message">{ "Dismiss" }</button>
                </div>
            }
        });
        let implausible = (!self.implausible.is_empty()).then(|| {
            html! {
                <div class="alert implausible" role="alert">
                    <strong>{ "Not drawn: these reports hold figures no machine could have measured." }</strong>
                    <ul>{ for self.implausible.iter().map(|m| html! { <li class="alert-text">{ m.clone() }</li> }) }</ul>
                </div>
            }
        });

        if let Some(embed) = self.embed {
            let widget = match embed {
                Embed::Ladder => {
                    html! { <LadderPage {palette} reports={self.reports.clone()} on_add={on_add} compact=true /> }
                }
                Embed::GroupBy => {
                    html! { <GroupByPage {palette} reports={self.reports.clone()} on_add={on_add} compact=true /> }
                }
                Embed::Join => {
                    html! { <JoinPage {palette} reports={self.reports.clone()} on_add={on_add} compact=true /> }
                }
                Embed::Report => {
                    html! { <ReportsPage {palette} reports={self.reports.clone()} {on_load} {on_remove} {on_error} compact=true /> }
                }
            };
            return html! {
                <main class="embed" data-theme={self.theme.name()}>
                    { for error }
                    { for implausible }
                    { widget }
                    <p class="embed-credit"><a href={util::page_base_url()} target="_blank" rel="noopener">{ "memwall" }</a>{ " — measured in your browser, or read from a native report" }</p>
                </main>
            };
        }

        let tabs = Page::ALL.iter().map(|&page| {
            let current = page == self.page;
            html! {
                <a href={format!("#{}", page.slug())} class={classes!("tab", current.then_some("current"))}
                    aria-current={current.then_some("page")}
                    onclick={link.callback(move |e: MouseEvent| { e.prevent_default(); Msg::Navigate(page) })}>
                    { page.title() }
                    if page == Page::Reports && !self.reports.is_empty() {
                        <span class="count" aria-label={format!("{} loaded", self.reports.len())}>{ self.reports.len() }</span>
                    }
                </a>
            }
        });
        let theme_label = match self.theme {
            Theme::Light => "Switch to the dark theme",
            Theme::Dark => "Switch to the light theme",
        };
        html! {
            <>
                <header class="top">
                    <div class="wrap top-inner">
                        <a class="brand" href="#ladder" onclick={link.callback(|e: MouseEvent| { e.prevent_default(); Msg::Navigate(Page::Ladder) })}>
                            <span class="logo" aria-hidden="true">{ "▮▮▯" }</span>
                            <span>{ "memwall" }</span>
                        </a>
                        <nav aria-label="Pages" class="tabs">{ for tabs }</nav>
                        <button type="button" class="icon" onclick={link.callback(|_| Msg::ToggleTheme)} aria-label={theme_label} title={theme_label}>
                            { if self.theme == Theme::Dark { "☀" } else { "☾" } }
                        </button>
                    </div>
                </header>
                <main class="wrap">
                    { for error }
                    { for implausible }
                    <section hidden={self.page != Page::Ladder} aria-label="Latency ladder">
                        <LadderPage {palette} reports={self.reports.clone()} on_add={on_add.clone()} compact=false />
                    </section>
                    <section hidden={self.page != Page::GroupBy} aria-label="GROUP BY race">
                        <GroupByPage {palette} reports={self.reports.clone()} on_add={on_add.clone()} compact=false />
                    </section>
                    <section hidden={self.page != Page::Join} aria-label="Join race">
                        <JoinPage {palette} reports={self.reports.clone()} on_add={on_add} compact=false />
                    </section>
                    <section hidden={self.page != Page::Reports} aria-label="Reports">
                        <ReportsPage {palette} reports={self.reports.clone()} {on_load} {on_remove} {on_error} compact=false />
                    </section>
                </main>
                <footer class="wrap foot">
                    <p>{ "memwall measures in your browser with WebAssembly; nothing leaves this page unless you save or share it. For full precision on a host, run " }<code>{ "memwall run" }</code>{ " and open its report here." }</p>
                </footer>
            </>
        }
    }
}

impl App {
    /// Marks the moment the app is on screen and answers input, for measuring time to
    /// interactive (`performance.getEntriesByName("memwall-interactive")`).
    fn mark_interactive() {
        if let Some(performance) = util::window().performance() {
            let _ = performance.mark("memwall-interactive");
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
        let id = self.next_id;
        self.next_id += 1;
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

fn apply_theme(theme: Theme) {
    if let Some(root) = util::document().document_element() {
        let _ = root.set_attribute("data-theme", theme.name());
    }
}
