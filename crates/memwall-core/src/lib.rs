//! The measuring core of memwall, shared by the native CLI and the browser.
//!
//! Everything here compiles for both the host and `wasm32-unknown-unknown`. What differs between
//! the two (the clock, how memory is obtained, whether threads exist) is injected by the front
//! end through the traits in [`clock`], [`ladder::Arena`] and [`exec`], so no kernel carries a
//! `cfg`.

pub mod arch;
pub mod bandwidth;
pub mod budget;
pub mod clock;
pub mod cloud;
pub mod cores;
pub mod cost;
pub mod cycles;
pub mod datagen;
pub mod describe;
pub mod exec;
pub mod explain;
pub mod fleet;
pub mod groupby;
pub mod join;
pub mod ladder;
pub mod race;
pub mod scratch;
pub mod sensitivity;
pub mod shape;
pub mod size;
pub mod stability;

#[doc(hidden)]
pub mod fixtures;

pub use memwall_report as report;
