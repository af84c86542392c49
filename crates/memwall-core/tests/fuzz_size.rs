//! Fuzzing the human size parser (`--min`, `--max`, the page's size fields) on stable: any text
//! gives a size or an error, never a panic, and what it accepts means what it says.

#![cfg(not(target_arch = "wasm32"))]

use memwall_core::size::{format_bytes, parse_size};
use proptest::prelude::*;

const UNITS: &[&str] =
    &["", "B", "K", "k", "KB", "KiB", "M", "MiB", "G", "GiB", "T", "TiB", "P", "E", "EiB", "Z", "XB", "iB"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_a_size_or_an_error(text in ".{0,40}") {
        if let Err(e) = parse_size(&text) {
            prop_assert!(e.starts_with("invalid size") && !e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn number_and_unit_shapes_are_a_size_or_an_error(
        sign in prop::sample::select(&["", "-", "+"][..]),
        number in "[0-9]{0,25}(\\.[0-9]{0,6})?(e[0-9]{1,3})?",
        space in prop::sample::select(&["", " ", "  "][..]),
        unit in prop::sample::select(UNITS),
    ) {
        let text = format!("{sign}{number}{space}{unit}");
        // Whatever was accepted formats and reads back to within the formatter's rounding (up
        // to 1 EiB: near 2^64 the rounded text names a size just past u64).
        if let Ok(bytes) = parse_size(&text)
            && bytes < 1 << 60
        {
            let back = parse_size(&format_bytes(bytes).replace(' ', "")).unwrap();
            prop_assert!((back as f64 - bytes as f64).abs() <= bytes as f64 * 0.01, "{text}: {bytes} -> {back}");
        }
    }

    #[test]
    fn whole_numbers_of_bytes_and_kib_read_exactly(n in any::<u64>()) {
        prop_assert_eq!(parse_size(&n.to_string()), Ok(n));
        let kib = format!("{n}KiB");
        match n.checked_mul(1024) {
            Some(bytes) => prop_assert_eq!(parse_size(&kib), Ok(bytes)),
            None => prop_assert!(parse_size(&kib).is_err()),
        }
    }
}
