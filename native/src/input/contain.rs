//! A panic inside the Parquet decoder turned into an error about the file. The parquet crate
//! trusts much of what a file says and panics on some malformed pages (e.g. "Decoder for dict
//! should have been set" for a data page whose encoding names a dictionary the chunk never
//! had; found by CI's run of native/src/fuzz.rs, kept in native/proptest-regressions/fuzz.txt).
//! Checking every such field ahead of the crate would be a second Parquet reader, so the read
//! is run under `catch_unwind` (release builds unwind for this; see Cargo.toml) and its panic,
//! kept quiet, becomes the one-line error the caller prints.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Set while this thread runs a contained read: its panic message is reported as an error,
    /// not printed by the panic hook.
    static CONTAINED: Cell<bool> = const { Cell::new(false) };
}

static QUIET_HOOK: Once = Once::new();

/// Runs `read`; a panic inside it comes back as `Err(message)`, with nothing printed.
pub(super) fn contained<T>(read: impl FnOnce() -> T) -> Result<T, String> {
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !CONTAINED.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was = CONTAINED.with(|c| c.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(read));
    CONTAINED.with(|c| c.set(was));
    result.map_err(|payload| {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    })
}

#[cfg(test)]
mod tests {
    use super::contained;

    #[test]
    fn a_panic_comes_back_as_its_message_and_a_value_as_itself() {
        assert_eq!(contained(|| 7), Ok(7));
        let owned = contained(|| -> u8 { panic!("page {} is\nbroken", 3) });
        assert_eq!(owned, Err("page 3 is broken".to_string()));
        assert_eq!(contained(|| -> u8 { panic!("static") }), Err("static".to_string()));
        // Outside a contained read the flag is off again.
        assert_eq!(contained(|| contained(|| 1)), Ok(Ok(1)));
    }
}
