//! The Cloud tab's VM-against-metal view: each CPU model a provider sells both as bare metal and
//! as VMs, the lines `memwall cloud --pairs` prints; a line lays its type's curve and its metal
//! type's over the visitor's.

use memwall_core::cloud::pairs::{PAIR_HEADER, PAIR_NOTE, Pair, pair_lines};
use memwall_report::fleet::FleetRow;
use yew::prelude::*;

/// The pairs' table; `pick` gets (the line's type, its pair's first metal type), shelf indices.
pub fn table(found: &[Pair], rows: &[Option<&FleetRow>], pick: &Callback<Vec<usize>>) -> Html {
    let lines =
        found.iter().filter(|p| p.metal.iter().chain(&p.vms).all(|&i| rows.get(i).is_some_and(Option::is_some)));
    let body = lines.flat_map(|pair| {
        let metal = pair.metal[0];
        pair_lines(pair, |i| rows[i].expect("checked above")).into_iter().map(move |(i, cells)| {
            let onclick = pick.reform(move |_: MouseEvent| if i == metal { vec![metal] } else { vec![metal, i] });
            let side = if pair.metal.contains(&i) { "metal" } else { "vm" };
            html! {
                <tr class={classes!("pair-row", side)} data-type={cells[2].clone()} {onclick}>
                    { for cells.into_iter().map(|c| html! { <td>{ c }</td> }) }
                </tr>
            }
        })
    });
    html! {
        <div class="card cloud-pairs">
            <h2>{ format!("VM against bare metal: {} CPU models sold both ways", found.len()) }</h2>
            <p class="muted">{ "Within one provider, the same CPU model sold as a bare-metal type and as VMs: what the VM hides of the same chip, from the shelf's own curves. Click a line to lay its curve and its metal type's over yours." }</p>
            <div class="table-wrap">
                <table class="data" id="cloud-pairs">
                    <thead><tr>{ for PAIR_HEADER.iter().map(|h| html! { <th scope="col">{ *h }</th> }) }</tr></thead>
                    <tbody>{ for body }</tbody>
                </table>
            </div>
            <p class="muted small">{ PAIR_NOTE }</p>
        </div>
    }
}
