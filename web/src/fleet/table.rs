//! The fleet's table: the columns `memwall fleet` prints (`memwall_core::fleet::table`), then
//! the prices joined; a header sorts by its figure (again: the other way), a row opens its
//! host's report, a checkbox picks it for comparing.

use memwall_core::fleet::table::{TABLE, TABLE_NOTE, TableColumn, price_text};
use yew::prelude::*;

use super::state::{FleetAction, FleetState, Host};

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub fleet: UseReducerHandle<FleetState>,
    /// Opens the reports of these hosts (ids) on the Reports page.
    pub open: Callback<Vec<u32>>,
}

/// A button that sorts by `column`, with the arrow of the order it is sorted in.
fn sort_button(fleet: &UseReducerHandle<FleetState>, label: &str, column: &str) -> Html {
    let arrow = match &fleet.sort {
        Some((c, false)) if c == column => " ▲",
        Some((c, true)) if c == column => " ▼",
        _ => "",
    };
    let onclick = {
        let (fleet, column) = (fleet.clone(), column.to_string());
        Callback::from(move |_| fleet.dispatch(FleetAction::SortBy(column.clone())))
    };
    html! {
        <button type="button" class="sort" data-sort={column.to_string()} {onclick}
            title={format!("Sort by {column}; again to reverse")}>{ format!("{label}{arrow}") }</button>
    }
}

/// What a screen reader is told of the header's order.
fn aria_sort(fleet: &FleetState, columns: &[&str]) -> Option<&'static str> {
    match &fleet.sort {
        Some((c, descending)) if columns.contains(&c.as_str()) => {
            Some(if *descending { "descending" } else { "ascending" })
        }
        _ => None,
    }
}

/// A header cell: its one figure's sort button, or the header's words and a button per figure
/// ("LLC" declared / cache-like).
fn header_cell(fleet: &UseReducerHandle<FleetState>, column: &TableColumn) -> Html {
    let columns: Vec<&str> = column.sorts.iter().map(|(_, c)| *c).collect();
    let sort = aria_sort(fleet, &columns);
    match column.sorts {
        [(_, only)] => html! { <th scope="col" aria-sort={sort}>{ sort_button(fleet, column.header, only) }</th> },
        sorts => {
            let words = column.header.find(sorts[0].0).map_or(column.header, |at| column.header[..at].trim());
            let buttons = sorts.iter().enumerate().map(|(i, (label, c))| {
                html! { <>{ if i > 0 { " / " } else { "" } }{ sort_button(fleet, label, c) }</> }
            });
            html! { <th scope="col" aria-sort={sort}>{ format!("{words} ") }{ for buttons }</th> }
        }
    }
}

fn row(fleet: &UseReducerHandle<FleetState>, host: &Host, open: &Callback<Vec<u32>>) -> Html {
    let id = host.id;
    let picked = fleet.picked.contains(&id);
    let pick = {
        let fleet = fleet.clone();
        Callback::from(move |_: Event| fleet.dispatch(FleetAction::Pick(id)))
    };
    // The checkbox picks; anywhere else on the row opens the report.
    let keep_to_checkbox = Callback::from(|e: MouseEvent| e.stop_propagation());
    let onclick = open.reform(move |_: MouseEvent| vec![id]);
    let mut cells = TABLE.iter().map(|c| (c.text)(&host.row));
    let name = cells.next().unwrap_or_default();
    html! {
        <tr key={id} class={classes!("host-row", picked.then_some("picked"))} {onclick}>
            <td><input type="checkbox" checked={picked} onchange={pick} onclick={keep_to_checkbox}
                aria-label={format!("Pick {name} to compare")} /></td>
            <th scope="row"><button type="button" class="link open" title="Open this host's report">{ name }</button></th>
            { for cells.map(|text| html! { <td>{ text }</td> }) }
            { for fleet.price_columns().iter().map(|c| html! { <td>{ price_text(&host.row, c) }</td> }) }
        </tr>
    }
}

#[function_component(FleetTable)]
pub fn fleet_table(props: &Props) -> Html {
    let fleet = &props.fleet;
    let shown = fleet.shown();
    html! {
        <div class="table-wrap fleet-table">
            <table class="data" id="fleet-table">
                <caption class="visually-hidden">{ "One row per report: what memwall fleet prints" }</caption>
                <thead><tr>
                    <th scope="col"><span class="visually-hidden">{ "pick" }</span></th>
                    { for TABLE.iter().map(|c| header_cell(fleet, c)) }
                    { for fleet.price_columns().iter().map(|c| html! {
                        <th scope="col" aria-sort={aria_sort(fleet, &[c.as_str()])}>{ sort_button(fleet, c, c) }</th>
                    }) }
                </tr></thead>
                <tbody>{ for shown.iter().map(|h| row(fleet, h, &props.open)) }</tbody>
            </table>
            <p class="muted small">{ TABLE_NOTE.replace(" (see --csv)", "") }</p>
        </div>
    }
}
