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

#[derive(Debug, Properties, PartialEq)]
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

/// The embed snippet and share link for what a page shows.
#[function_component(EmbedPanel)]
pub fn embed_panel(props: &Props) -> Html {
    let share = use_state(|| None::<Result<String, String>>);
    let copied = use_state(|| None::<Result<(), String>>);
    {
        // A new report makes the old share link stale.
        let share = share.clone();
        use_effect_with(props.report.clone(), move |_| share.set(None));
    }
    let base = util::page_base_url();
    // Tall enough for the widget without a scrollbar in its frame: for the ladder, its chart
    // (360 px), the Run row and timer note, and the run's reading (a sentence and its levels).
    let height = match props.kind.as_str() {
        "groupby" => 640,
        "join" => 520,
        "report" => 600,
        _ => 820,
    };
    let packed = share.as_ref().and_then(|s| s.as_ref().ok());
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
    let copy = |text: String| {
        let copied = copied.clone();
        Callback::from(move |_| {
            let (copied, text) = (copied.clone(), text.clone());
            wasm_bindgen_futures::spawn_local(async move { copied.set(Some(util::copy_to_clipboard(&text).await)) });
        })
    };
    let make_link = {
        let (share, report) = (share.clone(), props.report.clone());
        Callback::from(move |_| {
            let Some(report) = report.clone() else { return };
            let share = share.clone();
            wasm_bindgen_futures::spawn_local(async move {
                // The pretty text without its whitespace: one serializer for every report the
                // page writes keeps the first view light.
                let json = util::minify_json(&compact_report(&report).to_json_pretty());
                share.set(Some(util::pack(&json).await));
            });
        })
    };
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
                    <button type="button" onclick={make_link}>{ "Make a share link with this report" }</button>
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
            if let Some(Err(e)) = &*share { <p class="field-error" role="alert">{ format!("Could not make a share link: {e}") }</p> }
            { match &*copied {
                Some(Ok(())) => html! { <p class="notice" role="status">{ "Copied." }</p> },
                Some(Err(e)) => html! { <p class="field-error" role="alert">{ format!("Could not copy ({e}); select the text and copy it by hand.") }</p> },
                None => html! {},
            } }
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memwall_report::{Curve, Host, Source};

    #[test]
    fn a_compact_report_keeps_summaries_and_drops_samples() {
        let mut report = Report::new(Source::Browser, 1, Host::default());
        let point = memwall_report::LadderPoint {
            bytes: 16384,
            ns_per_load: memwall_report::Summary { min: 1.0, median: 1.1, p90: 1.2, max: 1.3 },
            cycles_per_load: None,
            ghz: None,
            clock_moved: false,
            loads_per_sample: 1000,
            samples: 3,
            samples_ns_per_load: vec![1.0, 1.1, 1.3],
            attempts: 1,
            visits_ns_per_load: Vec::new(),
            huge_page_bytes: None,
        };
        let measured = memwall_core::explain::measured::Measured {
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
        report.ladder = Some(memwall_core::explain::measured::read(measured, &Host::default()));
        let compact = compact_report(&report);
        let point = &compact.ladder.as_ref().unwrap().points[0];
        assert!(point.samples_ns_per_load.is_empty());
        assert_eq!(point.ns_per_load, report.ladder.as_ref().unwrap().points[0].ns_per_load);
        let back = Report::from_json(&crate::util::minify_json(&compact.to_json_pretty())).unwrap();
        assert_eq!(back, compact);
    }
}
