//! The races: the GROUP BY and join pages, their kernels and their workers, in the second module
//! (see `views/`). What both races share is written once, in `race.rs`.

pub mod groupby;
pub mod join;
pub mod messages;
mod partition_view;
pub mod protocol;
mod race;
pub mod sizing;
