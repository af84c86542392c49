//! Human byte sizes in and out: `16K`, `256KiB`, `1.5MiB`, `1GiB`.
//!
//! A memory tool means powers of two, so `K`, `KB` and `KiB` all mean 1024 here.

/// Parses a size such as `256KiB`, `1GiB`, `48k` or `65536`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    parse_size::Config::new()
        .with_binary()
        .parse_size(text.trim())
        .map_err(|e| format!("invalid size '{text}': {e} (try e.g. 16KiB, 1.5MiB, 1GiB)"))
}

/// Formats a byte count with the largest binary unit that keeps it readable:
/// `16 KiB`, `1.5 MiB`, `1 GiB`, `999 B`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut unit = 0;
    let mut value = bytes as f64;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else if (value * 10.0).fract() == 0.0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_binary_units() {
        assert_eq!(parse_size("16K").unwrap(), 16 * 1024);
        assert_eq!(parse_size("16KB").unwrap(), 16 * 1024);
        assert_eq!(parse_size("256KiB").unwrap(), 256 * 1024);
        assert_eq!(parse_size("1.5MiB").unwrap(), 3 << 19);
        assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_size(" 10TiB ").unwrap(), 10 << 40);
        assert_eq!(parse_size("4096").unwrap(), 4096);
    }

    #[test]
    fn rejects_garbage_with_a_hint() {
        for bad in ["", "abc", "12XB", "-1K", "1.2.3M"] {
            let err = parse_size(bad).unwrap_err();
            assert!(err.contains("invalid size"), "{bad}: {err}");
        }
    }

    #[test]
    fn formats_readably_and_round_trips() {
        assert_eq!(format_bytes(16 * 1024), "16 KiB");
        assert_eq!(format_bytes(24 * 1024), "24 KiB");
        assert_eq!(format_bytes(3 << 19), "1.5 MiB");
        assert_eq!(format_bytes(1 << 30), "1 GiB");
        assert_eq!(format_bytes(100), "100 B");
        for bytes in [16384u64, 24576, 1 << 20, 3 << 20, 768 << 20, 1 << 30] {
            assert_eq!(parse_size(&format_bytes(bytes).replace(' ', "")).unwrap(), bytes);
        }
    }
}
