//! The Cloud tab's two charts: every instance type as a dot (fast working set against DRAM ns,
//! coloured by provider, bare metal large), the visitor's own hosts as rings among them; and the
//! curves of the types picked laid over the visitor's own.

use std::rc::Rc;

use memwall_core::cloud::LoadedShelf;
use memwall_core::size::format_bytes;
use memwall_report::fleet::FleetRow;
use yew::prelude::*;

use super::own::Own;
use crate::chart::{Dot, Group, LineChart, Point, ScatterChart, Series, XFormat, format_number};
use crate::fleet::state::{Host, Origin};
use crate::theme::Palette;

/// The providers in the shelf, in the order their colours are given.
pub const PROVIDERS: [&str; 8] = ["aws", "azure", "gcp", "alicloud", "hcloud", "ovh", "upcloud", "vultr"];

fn provider_of(row: &FleetRow) -> &str {
    row.shelf.as_ref().map_or("", |s| s.provider.as_str())
}

/// Bare metal drawn large, a VM small, a type whose `lscpu` does not say hollow.
fn size(row: &FleetRow) -> Option<f64> {
    match row.shelf.as_ref().and_then(|s| s.metal) {
        Some(true) => Some(1.0),
        Some(false) => Some(0.01),
        None => None,
    }
}

fn fast_text(row: &FleetRow) -> String {
    match (row.effective_llc_bytes, row.effective_llc_ns) {
        (Some(b), Some(ns)) => format!("fast to {} ({} ns)", format_bytes(b), format_number(ns)),
        _ => "no fast working set read".into(),
    }
}

fn dram_text(row: &FleetRow) -> String {
    row.dram_ns.map_or("DRAM not reached".into(), |ns| format!("DRAM {} ns", format_number(ns)))
}

/// A dot's words: the type, its figures, who measured it how and when.
pub fn type_label(row: &FleetRow) -> String {
    let measured = row.shelf.as_ref().map_or(String::new(), |s| format!("; {}", s.measured_by));
    format!(
        "{} {} ({}, {} vCPUs, {}): {}, {}{measured}",
        provider_of(row),
        row.host,
        row.cpu.as_deref().unwrap_or("-"),
        row.vcpus.map_or("-".into(), |v| v.to_string()),
        memwall_core::cloud::table::metal_text(row),
        fast_text(row),
        dram_text(row)
    )
}

/// The scatter of `shown`, the visitor's `own` hosts among them; a click picks a type.
pub fn scatter(palette: Palette, shown: &[&Host], own: &[Own], pick: Callback<usize>) -> Html {
    let dots: Vec<Dot> = shown
        .iter()
        .map(|h| Dot {
            x: h.row.effective_llc_bytes.map_or(f64::NAN, |b| b as f64),
            y: h.row.dram_ns.unwrap_or(f64::NAN),
            size: size(&h.row),
            group: PROVIDERS.iter().position(|p| *p == provider_of(&h.row)).unwrap_or(PROVIDERS.len()),
            label: type_label(&h.row),
        })
        .collect();
    let rings: Vec<Dot> = own
        .iter()
        .map(|o| Dot {
            x: o.row.effective_llc_bytes.map_or(f64::NAN, |b| b as f64),
            y: o.row.dram_ns.unwrap_or(f64::NAN),
            size: None,
            group: 0,
            label: format!("{} (yours): {}, {}, as memwall reads it", o.label, fast_text(&o.row), dram_text(&o.row)),
        })
        .collect();
    let groups: Vec<Group> =
        PROVIDERS.iter().enumerate().map(|(i, p)| Group { label: (*p).into(), color: i }).collect();
    let indices: Vec<Option<usize>> =
        shown.iter().map(|h| if let Origin::Shelf(i) = h.origin { Some(i) } else { None }).collect();
    let on_pick = Callback::from(move |dot: usize| {
        if let Some(&Some(index)) = indices.get(dot) {
            pick.emit(index);
        }
    });
    html! {
        <div class="card">
            <ScatterChart id="cloud-scatter" title="Fast working set against DRAM latency, one dot per instance type"
                x_label="fast working set: how far the last cache level behaves like cache" y_label="DRAM ns per load" x_format={XFormat::Bytes}
                size_label="large: bare metal; small: VM; hollow: lscpu does not say. Click a dot to lay its curve over yours."
                groups={Rc::new(groups)} dots={Rc::new(dots)} {palette} on_pick={Some(on_pick)}
                highlights={Rc::new(rings)} highlight_label="yours" />
        </div>
    }
}

/// The curves of the types `picked` (shelf indices) over the visitor's own compared curves.
pub fn curves(palette: Palette, shelf: &LoadedShelf, picked: &[usize], own: &[Own]) -> Html {
    let points = |curve: &[(u64, f64)]| -> Vec<Point> {
        curve.iter().map(|&(b, ns)| Point { x: b as f64, y: ns, lo: None, hi: None }).collect()
    };
    let mut series: Vec<Series> = own
        .iter()
        .filter_map(|o| {
            let compared = o.compared.as_ref().ok()?;
            Some(Series {
                label: format!("{} (yours, {})", o.label, compared.label),
                color: 7,
                dashed: true,
                points: points(&compared.points),
            })
        })
        .collect();
    for &i in picked {
        let Some(host) = shelf.hosts.get(i) else { continue };
        let e = &host.entry;
        series.push(Series {
            label: format!("{} {} (sc-membench, {})", e.provider, e.instance_type, e.measured),
            color: PROVIDERS.iter().position(|p| *p == e.provider).unwrap_or(7),
            dashed: false,
            points: points(&e.latency),
        });
    }
    if series.is_empty() {
        return html! {};
    }
    html! {
        <div class="card" id="cloud-overlay" data-types={picked.len().to_string()}>
            <LineChart id="cloud-curves" title="Latency per load: the types picked over your host"
                x_label="working set" y_label="ns per load (log)" y_unit="ns/load" x_format={XFormat::Bytes}
                series={Rc::new(series)} {palette}
                empty_text="Click a dot or a row to lay a type's curve over yours." />
        </div>
    }
}
