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
/// A row or key count: digits (with optional `_`, `,` or space separators), optionally with a decimal
/// suffix K, M, G (10^3, 10^6, 10^9) or a binary one Ki, Mi, Gi (2^10, 2^20, 2^30).
pub fn parse_count(text: &str) -> Result<u64, String> {
    let bad = || format!("invalid count '{text}': expected e.g. 100000000, 100M, 1.5G or 64Mi");
    let clean: String = text.trim().chars().filter(|c| !matches!(c, '_' | ',' | ' ')).collect();
    let split = clean.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(clean.len());
    let (number, suffix) = clean.split_at(split);
    let scale: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" => 1,
        "k" => 1_000,
        "m" => 1_000_000,
        "g" => 1_000_000_000,
        "ki" => 1 << 10,
        "mi" => 1 << 20,
        "gi" => 1 << 30,
        _ => return Err(bad()),
    };
    if let Ok(whole) = number.parse::<u64>() {
        return whole.checked_mul(scale).ok_or_else(bad);
    }
    let value: f64 = number.parse().map_err(|_| bad())?;
    let scaled = value * scale as f64;
    if !(value.is_finite() && value >= 0.0 && scaled.fract() == 0.0 && scaled < u64::MAX as f64) {
        return Err(bad());
    }
    Ok(scaled as u64)
}

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
    fn counts_parse_with_suffixes() {
        assert_eq!(parse_count("99997497"), Ok(99_997_497));
        assert_eq!(parse_count("99_997_497"), Ok(99_997_497));
        assert_eq!(parse_count("17,630,976"), Ok(17_630_976));
        assert_eq!(parse_count("100M"), Ok(100_000_000));
        assert_eq!(parse_count("1.7M"), Ok(1_700_000));
        assert_eq!(parse_count("64Mi"), Ok(64 << 20));
        assert_eq!(parse_count("1Ki"), Ok(1024));
        assert_eq!(parse_count("2g"), Ok(2_000_000_000));
        for bad in ["", "x", "-1", "1.5", "1e400", "12Q", "1.0000001K", "99999999999999999999G"] {
            assert!(parse_count(bad).is_err(), "{bad}");
        }
    }

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
