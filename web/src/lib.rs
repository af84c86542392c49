//! memwall in the browser: the latency ladder, the GROUP BY race and the join race measured in
//! wasm, and native reports read and compared.
//!
//! Two wasm modules are built from this crate (see index.html): the first view (`src/main.rs`:
//! the ladder with its first-look verdict, and the page around it) and the views loaded when
//! first wanted (`src/bin/memwall-views.rs`: the reports, the fleet, and the GROUP BY and join races with
//! their kernels and workers). Each binary keeps only the code it reaches; `bridge.rs` says how
//! the two share one page.

pub mod app;
pub mod bridge;
pub mod chart;
pub mod clock;
pub mod cloud;
pub mod context;
pub mod dom;
pub mod embed;
pub mod fleet;
pub mod ladder;
pub mod overlay;
pub mod page_url;
pub mod races;
pub mod reports;
pub mod text;
pub mod theme;
pub mod use_worker;
pub mod util;
pub mod views;
pub mod worker;
