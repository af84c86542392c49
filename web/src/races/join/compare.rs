//! This browser's join race against the native reports open in the page: a ratio per kernel
//! where a report joined the same sizes, a sentence saying why not where it did not.

use memwall_core::join::summary::{Comparison, browser_vs_native};
use memwall_report::{Join, Source};
use yew::prelude::*;

use crate::chart::format_number;
use crate::reports::Reports;

/// One block per native report that has a join race.
pub fn compare_view(browser: &Join, reports: &Reports) -> Html {
    let natives: Vec<_> = reports
        .iter()
        .filter(|r| r.report.source == Source::Native)
        .filter_map(|r| Some((r.label.clone(), r.report.join.as_ref()?)))
        .collect();
    if natives.is_empty() {
        return html! {
            <p class="muted small" id="join-vs-native">{ "Open a native report with a join race (memwall join --json, or memwall run) on the Reports page to see this browser against it, kernel by kernel." }</p>
        };
    }
    html! {
        <div id="join-vs-native">
            <h3>{ "Browser vs native" }</h3>
            { for natives.into_iter().map(|(label, native)| match browser_vs_native(browser, native) {
                Comparison::Different(why) => html! { <p class="muted small join-different">{ format!("{label}: {why}.") }</p> },
                Comparison::Ratios { kernels, same_answer } => html! {
                    <div class="table-wrap">
                        <table class="data join-ratios">
                            <caption>{ format!("Against {label}: ns per probe row, browser over native") }</caption>
                            <thead><tr>
                                <th scope="col">{ "kernel" }</th><th scope="col">{ "browser ns/probe" }</th>
                                <th scope="col">{ "native ns/probe" }</th><th scope="col">{ "browser / native" }</th>
                            </tr></thead>
                            <tbody>
                                { for kernels.iter().map(|k| html! {
                                    <tr>
                                        <th scope="row">{ k.kernel.clone() }</th>
                                        <td>{ format_number(k.browser_ns_per_probe) }</td>
                                        <td>{ format!("{}{}", format_number(k.native_ns_per_probe),
                                            if k.native_threads > 1 { format!(" ({} threads)", k.native_threads) } else { String::new() }) }</td>
                                        <td class="ratio">{ format!("{:.2}×", k.ratio) }</td>
                                    </tr>
                                }) }
                            </tbody>
                        </table>
                        <p class="muted small">{ if same_answer {
                            "Same join: every kernel found the same matches and checksum in both."
                        } else {
                            "Same sizes, different answers (another generator or seed): the ratios compare the work, not the same rows."
                        } }</p>
                    </div>
                },
            }) }
        </div>
    }
}
