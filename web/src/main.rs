//! memwall in the browser: the latency ladder, the GROUP BY race and the join race measured in wasm,
//! and native reports read and compared.

mod agg_choice;
mod app;
mod chart;
mod clock;
mod embed;
mod groupby_job;
mod groupby_page;
mod jobs;
mod join_compare;
mod join_job;
mod join_page;
mod ladder_charts;
mod ladder_job;
mod ladder_page;
mod partition_view;
mod radix_viz;
mod reports;
mod reports_page;
mod theme;
mod util;
mod worker;

fn main() {
    // The same module also runs inside the measuring worker (see worker.rs), which has no window
    // and must not mount the app.
    if web_sys::window().is_none() {
        return;
    }
    yew::Renderer::<app::App>::new().render();
}
