//! Errors every command reports in one line, their exit codes, and the flags Ctrl-C raises.

use std::sync::atomic::AtomicBool;

/// A failure to report in one line. Bad input exits 2 (as clap does for bad flags); a failure
/// of the host or the file system exits 1.
#[derive(Debug)]
pub struct CliError {
    pub(crate) message: String,
    pub(crate) code: u8,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 2 }
    }
    pub fn runtime(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 1 }
    }
    /// Ctrl-C ended a command that stops cleanly: exit 130, as the shell reports a SIGINT.
    pub fn interrupted(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 130 }
    }
    pub fn message(&self) -> &str {
        &self.message
    }
    /// The same error, saying which part of the work it came from.
    pub fn context(self, what: &str) -> Self {
        Self { message: format!("{what}: {}", self.message), ..self }
    }
}

pub type CliResult<T = ()> = Result<T, CliError>;

/// Set by a command that stops cleanly on Ctrl-C (`watch`: it still summarises what it measured);
/// while it is set, Ctrl-C only raises [`INTERRUPTED`], and a second Ctrl-C exits at once.
pub static STOP_CLEANLY: AtomicBool = AtomicBool::new(false);
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);
