//! The join race's result as a table: each kernel's build, probe and total times, the matches
//! and checksum every run agreed on, and what was checked.

use memwall_report::Join;
use yew::prelude::*;

use super::form::checks_sentence;
use crate::chart::format_number;
use crate::util::group_digits;

pub fn table(join: &Join) -> Html {
    let ms = |s: f64| format_number(s * 1e3);
    html! {
        <div class="table-wrap">
            <table class="data" id="join-table">
                <caption class="visually-hidden">{ "Join race in this browser (medians)" }</caption>
                <thead><tr>
                    <th scope="col">{ "kernel" }</th><th scope="col">{ "build ms" }</th><th scope="col">{ "probe ms" }</th><th scope="col">{ "total ms" }</th>
                    <th scope="col">{ "ns/probe row" }</th><th scope="col">{ "matches" }</th><th scope="col">{ "checksum" }</th>
                </tr></thead>
                <tbody>
                    { for join.runs.iter().map(|r| html! {
                        <tr>
                            <th scope="row">{ r.kernel.clone() }</th>
                            <td>{ ms(r.build_seconds.median) }</td><td>{ ms(r.probe_seconds.median) }</td><td>{ ms(r.seconds.median) }</td>
                            <td>{ format!("{:.2}", r.ns_per_probe) }</td><td>{ group_digits(r.matches) }</td><td><code>{ r.checksum.clone() }</code></td>
                        </tr>
                    }) }
                </tbody>
            </table>
            <ul class="muted small" id="join-rules">
                if let Some(line) = join.runs.first().and_then(|r| checks_sentence(&r.verified_by)) { <li>{ line }</li> }
                { for join.runs.iter().filter_map(|r| r.choice.as_ref().map(|c| html! { <li>{ format!("{} chose {}: {}", r.kernel, c.kernel, c.reason) }</li> })) }
            </ul>
        </div>
    }
}
