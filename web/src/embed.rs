//! Embeds for blog posts and share links.
//!
//! `?embed=ladder|groupby|join|report&...` renders one compact widget (see `app.rs`); this panel writes
//! the `<iframe>` snippet for it. A share link carries a whole (small) report in the URL
//! fragment, deflated and base64url-encoded, so nothing has to be hosted and nothing is sent to
//! a server: browsers never send the fragment.

use std::rc::Rc;

use memwall_report::Report;
use yew::prelude::*;

use crate::util;

/// The largest working set an embed's `autorun=1` starts without a click: a ladder to 64 MiB
/// holds well under 200 MiB and takes seconds; beyond it, the visitor decides.
pub const AUTORUN_MAX_BYTES: u64 = 64 << 20;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// "ladder", "groupby", "join" or "report".
    pub kind: AttrValue,
    /// Extra query parameters of the embed URL.
    #[prop_or_default]
    pub params: Vec<(String, String)>,
    /// A report the share link and the report embed can carry.
    #[prop_or_default]
    pub report: Option<Rc<Report>>,
}

#[derive(Debug)]
pub enum Msg {
    Share,
    Shared(Result<String, String>),
    Copy(String),
    Copied(Result<(), String>),
}

#[derive(Debug, Default)]
pub struct EmbedPanel {
    share: Option<Result<String, String>>,
    copied: Option<Result<(), String>>,
}

/// The report without its raw samples (the summaries stay), to keep links short.
pub fn compact_report(report: &Report) -> Report {
    let mut report = report.clone();
    if let Some(ladder) = &mut report.ladder {
        for point in &mut ladder.points {
            point.samples_ns_per_load.clear();
        }
    }
    if let Some(groupby) = &mut report.groupby {
        for run in &mut groupby.runs {
            run.samples_seconds.clear();
        }
    }
    if let Some(join) = &mut report.join {
        for run in &mut join.runs {
            run.samples_seconds.clear();
        }
    }
    report
}

fn encode_query(params: &[(String, String)]) -> String {
    params
        .iter()
        .map(|(k, v)| format!("&{}={}", js_sys::encode_uri_component(k), js_sys::encode_uri_component(v)))
        .collect()
}

impl Component for EmbedPanel {
    type Message = Msg;
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Self::default()
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Props) -> bool {
        if ctx.props().report != old.report {
            self.share = None;
        }
        true
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Share => {
                let Some(report) = ctx.props().report.clone() else { return false };
                ctx.link().send_future(async move {
                    let json = serde_json::to_string(&compact_report(&report)).map_err(|e| e.to_string());
                    let packed = match json {
                        Ok(json) => util::pack(&json).await,
                        Err(e) => Err(e),
                    };
                    Msg::Shared(packed)
                });
            }
            Msg::Shared(result) => self.share = Some(result),
            Msg::Copy(text) => ctx.link().send_future(async move { Msg::Copied(util::copy_to_clipboard(&text).await) }),
            Msg::Copied(result) => self.copied = Some(result),
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let base = util::page_base_url();
        let height = match props.kind.as_str() {
            "groupby" => 640,
            "join" => 520,
            "report" => 600,
            _ => 560,
        };
        let packed = self.share.as_ref().and_then(|s| s.as_ref().ok());
        let src = match (props.kind.as_str(), packed) {
            ("report", Some(packed)) => format!("{base}?embed=report#report={packed}"),
            (kind, _) => format!("{base}?embed={kind}{}", encode_query(&props.params)),
        };
        let snippet = format!(
            "<iframe src=\"{}\" title=\"memwall {}\" width=\"100%\" height=\"{height}\" style=\"border:0;max-width:820px\" loading=\"lazy\"></iframe>",
            src.replace('&', "&amp;").replace('"', "&quot;"),
            props.kind
        );
        let share_link = packed.map(|p| format!("{base}#report={p}"));
        let link = ctx.link();
        let copy = |text: String| link.callback(move |_| Msg::Copy(text.clone()));
        let id = format!("embed-{}", props.kind);
        html! {
            <details class="card embed-panel">
                <summary>{ "Embed in a blog post, or share" }</summary>
                <label for={id.clone()}>{ "Paste this where the widget should appear:" }</label>
                <textarea id={id} readonly=true rows="3" value={snippet.clone()} />
                <div class="row wrap-row">
                    <button type="button" onclick={copy(snippet)}>{ "Copy snippet" }</button>
                    <a href={src.clone()} target="_blank" rel="noopener">{ "Preview the widget" }</a>
                    if props.report.is_some() {
                        <button type="button" onclick={link.callback(|_| Msg::Share)}>{ "Make a share link with this report" }</button>
                    }
                </div>
                if props.kind == "report" && packed.is_none() && props.report.is_some() {
                    <p class="hint">{ "Make a share link first to embed this very report without hosting the file; otherwise the widget loads ?report=URL." }</p>
                }
                if let Some(link_text) = share_link {
                    <div class="share">
                        <label for={format!("share-{}", props.kind)}>{ format!("Share link ({} characters; the report rides in the fragment, which browsers never send to a server):", link_text.len()) }</label>
                        <input id={format!("share-{}", props.kind)} type="text" readonly=true value={link_text.clone()} />
                        <button type="button" onclick={copy(link_text)}>{ "Copy link" }</button>
                    </div>
                }
                if let Some(Err(e)) = &self.share { <p class="field-error" role="alert">{ format!("Could not make a share link: {e}") }</p> }
                { match &self.copied {
                    Some(Ok(())) => html! { <p class="notice" role="status">{ "Copied." }</p> },
                    Some(Err(e)) => html! { <p class="field-error" role="alert">{ format!("Could not copy ({e}); select the text and copy it by hand.") }</p> },
                    None => html! {},
                } }
            </details>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memwall_core::ladder;
    use memwall_report::{Curve, Host, Source};

    #[test]
    fn a_compact_report_keeps_summaries_and_drops_samples() {
        let mut report = Report::new(Source::Browser, 1, Host::default());
        let point = crate::jobs::sample_point();
        let measured = ladder::report::Measured {
            curves: vec![Curve {
                pattern: "random-cycle".into(),
                huge_pages: "default".into(),
                chains: 1,
                points: vec![point],
            }],
            parallelism: None,
            pinned_cpu: None,
            seed: 1,
            target_sample_ns: 5e6,
            duration_s: None,
        };
        report.ladder = Some(ladder::report::read(measured, &Host::default()));
        let compact = compact_report(&report);
        let point = &compact.ladder.as_ref().unwrap().points[0];
        assert!(point.samples_ns_per_load.is_empty());
        assert_eq!(point.ns_per_load, report.ladder.as_ref().unwrap().points[0].ns_per_load);
        let back = Report::from_json(&serde_json::to_string(&compact).unwrap()).unwrap();
        assert_eq!(back, compact);
    }
}
