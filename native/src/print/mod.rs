//! The sections as the CLI prints them, one file each: every command that shows a section (its own
//! command, `run`, `explain`) prints it with the same function.

pub mod bandwidth;
pub mod cores;
pub mod groupby;
pub mod host;
pub mod join;
pub mod ladder;
pub mod race;
pub mod sensitivity;
pub mod watch;
