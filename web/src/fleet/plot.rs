//! The fleet's scatter: how far each host's last cache level behaves like cache against its
//! DRAM latency, the dot's area from its GROUP BY (tuned, one thread) ns per row, its colour
//! from whether it is a VM. Hosts missing either figure are in the table only.

use std::rc::Rc;

use memwall_core::fleet::report_stem;
use memwall_core::fleet::table::is_vm;
use memwall_core::size::format_bytes;
use yew::prelude::*;

use super::state::FleetState;
use crate::chart::{Dot, Group, ScatterChart, XFormat, format_number};
use crate::theme::Palette;

pub fn scatter(palette: Palette, fleet: &FleetState, open: Callback<Vec<u32>>) -> Html {
    let shown = fleet.shown();
    let dots: Vec<Dot> = shown
        .iter()
        .map(|h| {
            let r = &h.row;
            let x = r.effective_llc_bytes.map_or(f64::NAN, |b| b as f64);
            let y = r.dram_ns.unwrap_or(f64::NAN);
            let groupby = r
                .groupby_tuned_ns_per_row
                .map_or("no GROUP BY".into(), |g| format!("GROUP BY {} ns/row", format_number(g)));
            Dot {
                x,
                y,
                size: r.groupby_tuned_ns_per_row,
                group: match is_vm(r) {
                    Some(true) => 0,
                    Some(false) => 1,
                    None => 2,
                },
                label: format!(
                    "{} ({}): cache-like to {}, DRAM {} ns, {groupby}",
                    r.host,
                    report_stem(&r.report),
                    r.effective_llc_bytes.map_or("-".into(), format_bytes),
                    r.dram_ns.map_or("-".into(), format_number),
                ),
            }
        })
        .collect();
    let ids: Vec<u32> = shown.iter().map(|h| h.id).collect();
    let groups = vec![
        Group { label: "VM".into(), color: 0 },
        Group { label: "bare metal".into(), color: 1 },
        Group { label: "not said".into(), color: 7 },
    ];
    let on_pick = Callback::from(move |i: usize| {
        if let Some(&id) = ids.get(i) {
            open.emit(vec![id]);
        }
    });
    html! {
        <div class="card">
            <ScatterChart id="fleet-scatter" title="Cache-like last level against DRAM latency, one dot per host"
                x_label="how far the last cache level behaves like cache" y_label="DRAM ns per load" x_format={XFormat::Bytes}
                size_label="area: GROUP BY tuned ns/row (hollow: not measured)" groups={Rc::new(groups)} dots={Rc::new(dots)}
                {palette} on_pick={Some(on_pick)} />
        </div>
    }
}
