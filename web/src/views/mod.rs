//! The second module's app: the reports and the races, fetched the first time one of them is
//! wanted (see `bridge.rs`). It holds the reports in a context with the theme, page and embed the
//! first view tells it, draws its pages into the first view's `#views-…` elements through
//! portals, and tells the first view how many reports are open and what of each its ladder draws.

mod load;
pub mod state;

use std::rc::Rc;

use wasm_bindgen::JsValue;
use yew::prelude::*;

use self::state::{ReportsAction, ReportsState, ViewsContext, use_views};
use crate::bridge::{self, ALERTS_HOST, CLOUD_HOST, FLEET_HOST, Listener, RACES_HOST, REPORTS_HOST};
use crate::cloud::CloudPage;
use crate::fleet::FleetPage;
use crate::overlay;
use crate::races::groupby::GroupByPage;
use crate::races::join::JoinPage;
use crate::reports::page::ReportsPage;
use crate::theme::Theme;

/// This page's own ladders as reports' JSON, once measured: the first look, the ladder tab's run.
type Ladders = (Option<String>, Option<String>);

/// The first view's word: (theme, page, embed), and this page's ladders.
fn read_state(detail: &JsValue) -> ((Theme, String, Option<String>), Ladders) {
    let theme =
        if bridge::field(detail, "theme").as_string().as_deref() == Some("dark") { Theme::Dark } else { Theme::Light };
    let page = bridge::field(detail, "page").as_string().unwrap_or_default();
    let ladders = (bridge::field(detail, "first_look").as_string(), bridge::field(detail, "ladder_run").as_string());
    ((theme, page, bridge::field(detail, "embed").as_string()), ladders)
}

/// A ladder of this page (the first look, the ladder tab's run), read again as every report
/// opened is; the first view wrote it, so one that cannot be read is a bug, and the Cloud tab and
/// the races go without.
fn page_report(json: &str) -> Option<Rc<memwall_report::Report>> {
    let mut report = memwall_report::Report::from_json(json).ok()?;
    memwall_core::explain::reread(&mut report);
    Some(Rc::new(report))
}

/// Why a report could not be opened, and the reports not drawn because no machine measures what
/// they hold.
#[function_component(Alerts)]
fn alerts() -> Html {
    let views = use_views();
    let reports = views.reports.clone();
    let dismiss = Callback::from(move |_| reports.dispatch(ReportsAction::DismissError));
    html! {
        <>
            if let Some(message) = &views.reports.error {
                <div class="alert" role="alert">
                    <strong>{ "Could not open that report. " }</strong>
                    <span class="alert-text">{ message.clone() }</span>
                    <button type="button" class="link" onclick={dismiss} aria-label="Dismiss the message">{ "Dismiss" }</button>
                </div>
            }
            if !views.reports.implausible.is_empty() {
                <div class="alert implausible" role="alert">
                    <strong>{ "Not drawn: these reports hold figures no machine could have measured." }</strong>
                    <ul>{ for views.reports.implausible.iter().map(|m| html! { <li class="alert-text">{ m.clone() }</li> }) }</ul>
                </div>
            }
        </>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub initial: JsValue,
}

/// Draws `content` into the first view's element `id`, if it is there.
fn portal(id: &str, content: Html) -> Html {
    bridge::host(id).map_or_else(|| html! {}, |host| create_portal(content, host))
}

#[function_component(ViewsApp)]
pub fn views_app(props: &Props) -> Html {
    let told = use_state(|| read_state(&props.initial).0);
    let ladders_json = use_state_eq(|| read_state(&props.initial).1);
    let reports = use_reducer(ReportsState::default);
    let first_look = use_memo(ladders_json.0.clone(), |json| json.as_deref().and_then(page_report));
    let ladder_run = use_memo(ladders_json.1.clone(), |json| json.as_deref().and_then(page_report));
    let (theme, page, embed) = (*told).clone();
    load::use_reports_named_on_start(&reports, embed.as_deref().is_none_or(|e| e == "report"));
    {
        let (told, ladders_json, reports) = (told.clone(), ladders_json.clone(), reports.dispatcher());
        use_effect_with((), move |_| {
            let state = Listener::new(bridge::STATE, move |detail| {
                let (state, ladders) = read_state(&detail);
                told.set(state);
                // The first view holds each ladder once measured and tells it every time.
                ladders_json.set(ladders);
            });
            let add = Listener::new(bridge::ADD_REPORT, move |json| {
                reports.dispatch(ReportsAction::AddJson(json.as_string().unwrap_or_default()));
            });
            move || drop((state, add))
        });
    }
    {
        // The first view's badge and ladder chart follow the reports open.
        use_effect_with(reports.reports.clone(), |reports| {
            let overlays: Vec<String> = reports.iter().map(overlay::encode).collect();
            bridge::post(
                bridge::REPORTS,
                &bridge::object(&[
                    ("count", JsValue::from(reports.len() as u32)),
                    ("overlays", JsValue::from_str(&overlays.join("\n"))),
                ]),
            );
        });
    }
    {
        let embedded = embed.is_some();
        use_effect_with(reports.shown, move |&shown| {
            if shown > 0 && !embedded {
                bridge::post(bridge::NAVIGATE, &JsValue::from_str("reports"));
            }
        });
    }
    let context = ViewsContext {
        palette: theme.palette(),
        page: page.clone(),
        embed: embed.clone(),
        reports,
        first_look: (*first_look).clone(),
        ladder_run: (*ladder_run).clone(),
    };
    let pages = match embed.as_deref() {
        Some("report") => portal(REPORTS_HOST, html! { <ReportsPage compact=true /> }),
        Some("fleet") => portal(FLEET_HOST, html! { <FleetPage compact=true /> }),
        Some("groupby") => portal(RACES_HOST, html! { <GroupByPage compact=true /> }),
        Some(_) => portal(RACES_HOST, html! { <JoinPage compact=true /> }),
        None => html! {
            <>
                { portal(REPORTS_HOST, html! { <ReportsPage compact=false /> }) }
                { portal(FLEET_HOST, html! { <FleetPage compact=false /> }) }
                { portal(CLOUD_HOST, html! { <CloudPage /> }) }
                { portal(RACES_HOST, html! {
                    <>
                        <section hidden={page != "groupby"} aria-label="GROUP BY race"><GroupByPage compact=false /></section>
                        <section hidden={page != "join"} aria-label="Join race"><JoinPage compact=false /></section>
                    </>
                }) }
            </>
        },
    };
    html! {
        <ContextProvider<ViewsContext> {context}>
            { portal(ALERTS_HOST, html! { <Alerts /> }) }
            { pages }
        </ContextProvider<ViewsContext>>
    }
}

/// Mounts the second module's app (its entry, called by the first view).
pub fn mount(root: web_sys::Element, state: JsValue) {
    yew::Renderer::<ViewsApp>::with_root_and_props(root, Props { initial: state }).render();
}
