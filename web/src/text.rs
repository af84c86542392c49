//! Numbers, JSON, dates and durations as the page writes them.

use wasm_bindgen::JsValue;

/// 1700000 → "1,700,000".
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// JSON without the whitespace between its tokens (strings are left as they are).
pub fn minify_json(pretty: &str) -> String {
    let mut out = String::with_capacity(pretty.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in pretty.chars() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if !c.is_ascii_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    (js_sys::Date::now() / 1000.0) as u64
}

/// A date from `created_unix_s`, in the reader's locale.
pub fn format_date(unix_s: u64) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(unix_s as f64 * 1000.0));
    String::from(date.to_locale_string("default", &JsValue::UNDEFINED))
}

/// "5 µs", "100 µs", "2.5 ms", "40 ns".
pub fn format_duration(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{} ms", crate::chart::format_number(ns / 1e6))
    } else if ns >= 1e3 {
        format!("{} µs", crate::chart::format_number(ns / 1e3))
    } else {
        format!("{} ns", crate::chart::format_number(ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_grouped() {
        assert_eq!(group_digits(1_700_000), "1,700,000");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(0), "0");
    }

    #[test]
    fn minified_json_keeps_strings_whole() {
        let pretty = "{\n  \"a b\": \"x \\\" y\",\n  \"c\": [\n    1,\n    2\n  ]\n}";
        assert_eq!(minify_json(pretty), "{\"a b\":\"x \\\" y\",\"c\":[1,2]}");
    }
}
