//! The fleet's table: the columns `memwall fleet` prints (`memwall_core::fleet::table`), then
//! the prices joined; a header sorts by its figure (again: the other way), a row opens its
//! host's report, a checkbox picks it for comparing.
//!
//! Only the rows in view (and a margin) are in the page, between two spacers as tall as the
//! rows left out: a thousand rows of twenty cells took the browser over a second to lay out,
//! and as long again on every sort. Columns are as wide as their widest cell among all rows,
//! so they do not move as rows scroll in.

use memwall_core::fleet::table::{TABLE, TABLE_NOTE, TableColumn, price_text};
use yew::prelude::*;

use super::state::{FleetAction, FleetState, Host};

/// Rows drawn beyond those in view, above and below, so that a quick scroll meets rows.
const MARGIN_ROWS: usize = 20;
/// The first row drawn moves in steps of this many, so scrolling re-renders now and then.
const STEP_ROWS: usize = 10;
/// Before anything is measured: a row's height and the view's (px); measured after each render.
const GUESS: Window = Window { first: 0, row_px: 33.0, view_px: 1000.0 };

/// Which rows are drawn: from `first`, as many as fill `view_px` at `row_px` each, and margins.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Window {
    first: usize,
    row_px: f64,
    view_px: f64,
}

impl Window {
    /// The rows drawn out of `rows`.
    fn range(&self, rows: usize) -> std::ops::Range<usize> {
        let in_view = (self.view_px / self.row_px).ceil() as usize;
        let first = self.first.min(rows.saturating_sub(in_view + MARGIN_ROWS) / STEP_ROWS * STEP_ROWS);
        first..(first + in_view + 2 * MARGIN_ROWS + STEP_ROWS).min(rows)
    }

    /// Where the drawn rows start for a view scrolled to `top_px`.
    fn scrolled_to(self, top_px: f64) -> Self {
        let at = (top_px.max(0.0) / self.row_px) as usize;
        Self { first: at.saturating_sub(MARGIN_ROWS) / STEP_ROWS * STEP_ROWS, ..self }
    }
}

/// The columns a table shows, the note under it and its caption: the fleet's, or another set of
/// the same rows' figures (the Cloud tab's).
#[derive(Debug, Clone, Copy)]
pub struct Columns {
    pub columns: &'static [TableColumn],
    pub note: &'static str,
    pub caption: &'static str,
    /// The table's DOM id.
    pub id: &'static str,
}

impl Columns {
    pub const FLEET: Self = Self {
        columns: TABLE,
        note: TABLE_NOTE,
        caption: "One row per report: what memwall fleet prints",
        id: "fleet-table",
    };
}

impl PartialEq for Columns {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.columns, other.columns) && self.id == other.id
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    pub fleet: UseReducerHandle<FleetState>,
    /// Opens the reports of these hosts (ids) on the Reports page, or whatever the page does
    /// with a row.
    pub open: Callback<Vec<u32>>,
    #[prop_or(Columns::FLEET)]
    pub columns: Columns,
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

fn row(props: &Props, host: &Host, index: usize) -> Html {
    let (fleet, open) = (&props.fleet, &props.open);
    let id = host.id;
    let picked = fleet.picked.contains(&id);
    let pick = {
        let fleet = fleet.clone();
        Callback::from(move |_: Event| fleet.dispatch(FleetAction::Pick(id)))
    };
    // The checkbox picks; anywhere else on the row opens the report.
    let keep_to_checkbox = Callback::from(|e: MouseEvent| e.stop_propagation());
    let onclick = open.reform(move |_: MouseEvent| vec![id]);
    let mut cells = props.columns.columns.iter().map(|c| (c.text)(&host.row));
    let name = cells.next().unwrap_or_default();
    html! {
        <tr key={id} class={classes!("host-row", picked.then_some("picked"))} aria-rowindex={(index + 2).to_string()} {onclick}>
            <td><input type="checkbox" checked={picked} onchange={pick} onclick={keep_to_checkbox}
                aria-label={format!("Pick {name} to compare")} /></td>
            <th scope="row"><button type="button" class="link open" title="Open this host's report">{ name }</button></th>
            { for cells.map(|text| html! { <td>{ text }</td> }) }
            { for fleet.price_columns().iter().map(|c| html! { <td>{ price_text(&host.row, c) }</td> }) }
        </tr>
    }
}

/// Each column's width in characters: its widest cell among all rows, so that the columns keep
/// their widths whichever rows are drawn.
fn column_chars(columns: &[TableColumn], hosts: &[Host], prices: &[String]) -> Vec<usize> {
    let mut widths: Vec<usize> = columns.iter().map(|c| c.header.chars().count().min(12)).collect();
    widths.extend(prices.iter().map(|c| c.chars().count()));
    for host in hosts {
        let cells = columns.iter().map(|c| (c.text)(&host.row)).chain(prices.iter().map(|c| price_text(&host.row, c)));
        for (width, text) in widths.iter_mut().zip(cells) {
            *width = (*width).max(text.chars().count());
        }
    }
    widths
}

/// A spacer standing for `rows` rows left out.
fn spacer(rows: usize, row_px: f64, columns: usize) -> Html {
    if rows == 0 {
        return html! {};
    }
    html! {
        <tr class="spacer" aria-hidden="true">
            <td colspan={columns.to_string()} style={format!("height: {:.0}px", rows as f64 * row_px)}></td>
        </tr>
    }
}

#[function_component(FleetTable)]
pub fn fleet_table(props: &Props) -> Html {
    let fleet = &props.fleet;
    let shown = fleet.shown();
    let scroller = use_node_ref();
    let window = use_state_eq(|| GUESS);
    // Widths do not depend on the order: a sort (a new list of the same rows) keeps them; rows
    // come and go with the count, and prices change their columns and their values.
    let widths = {
        let (hosts, prices, columns) = (fleet.hosts.clone(), fleet.price_columns().to_vec(), props.columns);
        let joined = fleet.prices.as_ref().map_or(0, |p| std::rc::Rc::as_ptr(p) as usize);
        use_memo((hosts.len(), joined, prices.clone()), move |_| column_chars(columns.columns, &hosts, &prices))
    };
    // The row's and the view's heights as drawn, for the next render.
    {
        let (scroller, window) = (scroller.clone(), window.clone());
        use_effect(move || {
            if let Some(view) = scroller.cast::<web_sys::Element>() {
                let row_px = view
                    .query_selector("tr.host-row")
                    .ok()
                    .flatten()
                    .map_or(window.row_px, |row| row.get_bounding_client_rect().height());
                let view_px = f64::from(view.client_height());
                if row_px > 0.0
                    && view_px > 0.0
                    && ((row_px - window.row_px).abs() > 0.5 || (view_px - window.view_px).abs() > 0.5)
                {
                    window.set(Window { row_px, view_px, ..*window });
                }
            }
        });
    }
    let onscroll = {
        let (scroller, window) = (scroller.clone(), window.clone());
        Callback::from(move |_: Event| {
            if let Some(view) = scroller.cast::<web_sys::Element>() {
                window.set(window.scrolled_to(f64::from(view.scroll_top())));
            }
        })
    };
    let drawn = window.range(shown.len());
    let shape = props.columns;
    let columns = 1 + shape.columns.len() + fleet.price_columns().len();
    html! {
        <>
        <div class="table-wrap fleet-table" ref={scroller} {onscroll}>
            <table class="data" id={shape.id} aria-rowcount={(shown.len() + 1).to_string()}>
                <caption class="visually-hidden">{ shape.caption }</caption>
                <colgroup>
                    <col />
                    { for widths.iter().map(|w| html! { <col style={format!("width: {}ch", w + 2)} /> }) }
                </colgroup>
                <thead><tr aria-rowindex="1">
                    <th scope="col"><span class="visually-hidden">{ "pick" }</span></th>
                    { for shape.columns.iter().map(|c| header_cell(fleet, c)) }
                    { for fleet.price_columns().iter().map(|c| html! {
                        <th scope="col" aria-sort={aria_sort(fleet, &[c.as_str()])}>{ sort_button(fleet, c, c) }</th>
                    }) }
                </tr></thead>
                <tbody>
                    { spacer(drawn.start, window.row_px, columns) }
                    { for drawn.clone().map(|i| row(props, shown[i], i)) }
                    { spacer(shown.len() - drawn.end, window.row_px, columns) }
                </tbody>
            </table>
        </div>
        <p class="muted small">{ shape.note.replace(" (see --csv)", "") }</p>
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_fleet_is_drawn_whole_and_a_long_one_from_where_it_is_scrolled() {
        let window = Window { first: 0, row_px: 30.0, view_px: 600.0 };
        assert_eq!(window.range(14), 0..14);
        assert_eq!(window.range(0), 0..0);
        // 20 rows in view, 20 above and below, and a step's worth so a step never shows a gap.
        assert_eq!(window.range(1000), 0..70);
        let scrolled = window.scrolled_to(30.0 * 500.0 + 7.0);
        assert_eq!(scrolled.first, 480);
        assert_eq!(scrolled.range(1000), 480..550);
        // Scrolled to the end: the last rows are drawn, whatever the first row was.
        let end = window.scrolled_to(30.0 * 990.0);
        assert_eq!(end.range(1000).end, 1000);
        assert!(end.range(1000).contains(&980));
        // A fleet filtered down below where the view was: its rows, not an empty table.
        assert_eq!(scrolled.range(30), 0..30);
        // ... and from where its last rows fill the view.
        assert_eq!(scrolled.range(100), 60..100);
    }

    #[test]
    fn a_scroll_within_a_step_draws_the_same_rows() {
        let window = Window { first: 0, row_px: 30.0, view_px: 600.0 };
        assert_eq!(window.scrolled_to(30.0 * 100.0), window.scrolled_to(30.0 * 105.0));
        assert_ne!(window.scrolled_to(30.0 * 100.0), window.scrolled_to(30.0 * 111.0));
        assert_eq!(window.scrolled_to(-5.0).first, 0);
    }
}
