//! The Cloud tab: 1,798 cloud instance types measured by Spare Cores (CC BY-SA 4.0), their levels
//! read here by the same core `memwall cloud` runs, with the visitor's own hosts among them (the
//! first look measured on opening, and any report open). The rows are fleet rows, filtered,
//! sorted and tabled by the Fleet tab's own state and table; the shelf is fetched only when the
//! tab first opens.

mod load;
mod own;
mod pairs;
mod plot;

use std::rc::Rc;

use memwall_core::cloud::near::rank;
use memwall_core::cloud::table::{CLOUD_NOTE, CLOUD_TABLE};
use memwall_report::fleet::FleetRow;
use yew::prelude::*;

use self::load::{Read, Status};
pub use self::load::{SHELF_URL, prefetch};
use self::own::Own;
use crate::chart;
use crate::fleet::state::{FleetAction, FleetState, Origin};
use crate::fleet::table::{Columns, FleetTable};
use crate::views::state::use_views;

/// The table's columns: the shelf's.
const COLUMNS: Columns = Columns {
    columns: CLOUD_TABLE,
    note: CLOUD_NOTE,
    caption: "One row per cloud instance type: what memwall cloud prints",
    id: "cloud-table",
};

/// The visitor's hosts: this browser's first look, then every report open.
#[hook]
fn use_own() -> Rc<Vec<Own>> {
    let views = use_views();
    let (first, reports) = (views.first_look.clone(), views.reports.reports.clone());
    (*use_memo((first, reports), |(first, reports)| {
        let first = first.iter().map(|r| Own::of("this browser's first look".into(), r));
        Rc::new(first.chain(reports.iter().map(|r| Own::of(r.label.clone(), &r.report))).collect::<Vec<_>>())
    }))
    .clone()
}

/// Where the shelf stands, with what reading it took and its attribution.
fn status_line(status: &Status, fleet: &FleetState) -> Html {
    match status {
        Status::NotYet | Status::Loading => {
            html! { <p class="muted cloud-status" aria-live="polite">{ "Loading the cloud shelf (1.9 MB, about 370 KB compressed) and reading its curves…" }</p> }
        }
        Status::Failed(e) => html! { <div class="alert" role="alert">{ e.clone() }</div> },
        Status::Ready(read) => html! {
            <p class="muted cloud-status" aria-live="polite" data-rows={fleet.hosts.len().to_string()}
                data-fetch-ms={format!("{:.0}", read.fetch_ms)} data-read-ms={format!("{:.0}", read.read_ms)}>
                { format!("{} instance types, {} shown; {:.0} KB fetched in {:.0} ms, every curve read here in {:.0} ms.",
                    fleet.hosts.len(), fleet.shown().len(), read.bytes as f64 / 1000.0, read.fetch_ms, read.read_ms) }
            </p>
        },
    }
}

/// The nearest types to the visitor's first host, by `memwall cloud --near`'s distance.
fn nearest(read: &Read, own: &[Own], pick: &Callback<Vec<usize>>) -> Html {
    let Some(first) = own.first() else {
        return html! { <p class="muted">{ "Open a report (Reports tab) or let the first look finish to place your host among the types." }</p> };
    };
    let compared = match &first.compared {
        Ok(compared) => compared.clone(),
        Err(e) => return html! { <p class="muted">{ format!("{}: {e}", first.label) }</p> },
    };
    let placed = rank(compared, &read.loaded.hosts);
    let items = placed.ranked.iter().take(5).map(|n| {
        let e = &read.loaded.hosts[n.index].entry;
        let index = n.index;
        html! {
            <li><button type="button" class="link" onclick={pick.reform(move |_| vec![index])}>{ format!("{} {}", e.provider, e.instance_type) }</button>
                { format!(" ({}): {:.3}, ~{:.0}% apart over {} sizes", e.cpu, n.distance, (n.distance.exp() - 1.0) * 100.0, n.sizes) }</li>
        }
    });
    html! {
        <div class="card cloud-nearest">
            <h2>{ format!("Nearest to {}", first.label) }</h2>
            <p class="muted">{ format!("Its {} curve against each type's random chase on huge pages: the RMS of log-latency differences at the type's sizes.", placed.compared.label) }</p>
            if let Some(c) = &placed.compared.caution { <p class="field-error">{ format!("Caution: {c}") }</p> }
            <ol>{ for items }</ol>
        </div>
    }
}

/// The filter box over the table (the fleet's language) and the VM-against-metal switch.
fn tools(fleet: &UseReducerHandle<FleetState>, show_pairs: &UseStateHandle<bool>) -> Html {
    let on_filter = {
        let fleet = fleet.clone();
        Callback::from(move |e: InputEvent| {
            let text = chart::target::<web_sys::HtmlInputElement>(&e).map(|i| i.value()).unwrap_or_default();
            fleet.dispatch(FleetAction::Filter(text));
        })
    };
    let toggle = {
        let show_pairs = show_pairs.clone();
        Callback::from(move |_| show_pairs.set(!*show_pairs))
    };
    html! {
        <div class="row wrap-row fleet-tools">
            <label for="cloud-filter">{ "Filter" }</label>
            <input id="cloud-filter" type="search" placeholder="aws   arch=aarch64   fast>=32MiB   dram<=100" value={fleet.filter.clone()} oninput={on_filter} />
            <button type="button" id="cloud-pairs-toggle" aria-pressed={show_pairs.to_string()} onclick={toggle}>
                { if **show_pairs { "Hide VM against metal" } else { "VM against metal" } }
            </button>
            if let Some(e) = &fleet.filter_error { <p class="field-error" role="alert">{ e.clone() }</p> }
        </div>
    }
}

/// The shelf index of each row, by where it came from.
fn rows_by_index(fleet: &FleetState, count: usize) -> Vec<Option<&FleetRow>> {
    let mut rows = vec![None; count];
    for host in fleet.hosts.iter() {
        if let Origin::Shelf(i) = host.origin
            && i < count
        {
            rows[i] = Some(&host.row);
        }
    }
    rows
}

#[function_component(CloudPage)]
pub fn cloud_page() -> Html {
    let views = use_views();
    let fleet = use_reducer(FleetState::default);
    let status = load::use_shelf_on_first_show(views.page == "cloud", &fleet);
    let own = use_own();
    let picked = use_state(Vec::<usize>::new);
    let show_pairs = use_state(|| false);
    let pick = {
        let picked = picked.clone();
        Callback::from(move |types: Vec<usize>| picked.set(types))
    };
    let open = {
        let (fleet, pick) = (fleet.clone(), pick.clone());
        Callback::from(move |ids: Vec<u32>| {
            let types = ids
                .iter()
                .filter_map(|id| fleet.hosts.iter().find(|h| h.id == *id))
                .filter_map(|h| if let Origin::Shelf(i) = h.origin { Some(i) } else { None })
                .collect();
            pick.emit(types);
        })
    };
    let body = match &*status {
        Status::Ready(read) => {
            let shown = fleet.shown();
            let attribution = read.loaded.shelf.attribution();
            html! {
                <>
                    { tools(&fleet, &show_pairs) }
                    { plot::scatter(views.palette, &shown, &own, pick.reform(|i| vec![i])) }
                    { plot::curves(views.palette, &read.loaded, &picked, &own) }
                    { nearest(read, &own, &pick) }
                    if *show_pairs {
                        { pairs::table(&memwall_core::cloud::pairs::pairs(&read.loaded.hosts), &rows_by_index(&fleet, read.loaded.hosts.len()), &pick) }
                    }
                    <FleetTable fleet={fleet.clone()} {open} columns={COLUMNS} />
                    <p class="small attribution" id="cloud-attribution">{ attribution }</p>
                </>
            }
        }
        _ => html! {},
    };
    html! {
        <>
            <div class="intro">
                <h1>{ "Cloud: your host beside 1,798 instance types" }</h1>
                <p>{ "Latency curves of cloud instance types (AWS, Azure, GCP, Alibaba, Hetzner, OVH, UpCloud, Vultr; VMs and bare metal) measured by Spare Cores with sc-membench: a random chase over 16-byte nodes, on huge pages where granted. memwall reads each curve's levels here, with the reader " }<code>{ "memwall cloud" }</code>{ " uses." }</p>
            </div>
            { status_line(&status, &fleet) }
            { body }
        </>
    }
}
