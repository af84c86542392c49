//! What a ladder's curves are called in legends, for this browser's runs and for reports alike.

/// A curve's name: its pattern and the pages it ran on, as a legend shows them first (a long
/// legend entry is cut at its end, so what tells two curves of one run apart comes first).
pub fn curve_name(pattern: &str, huge_pages: &str) -> String {
    let pages = match huge_pages {
        "off" => "small pages",
        "thp" => "transparent huge pages",
        "on" => "huge pages",
        // The allocator's choice: in a browser, whatever pages the browser's allocator got.
        "default" => "default pages",
        other => other,
    };
    format!("{}, {pages}", pattern.trim_end_matches("-cycle"))
}

/// A legend entry for one curve of a run: the curve first, then whose run it is (left out when
/// `run` is empty: an embed shows one run only).
pub fn curve_label(run: &str, pattern: &str, huge_pages: &str) -> String {
    let curve = curve_name(pattern, huge_pages);
    if run.is_empty() { curve } else { format!("{curve} · {run}") }
}

#[cfg(test)]
mod tests {
    use super::{curve_label, curve_name};

    #[test]
    fn a_curve_is_named_by_its_pattern_and_pages_before_its_run() {
        assert_eq!(curve_name("random-cycle", "default"), "random, default pages");
        assert_eq!(curve_name("page-local", "off"), "page-local, small pages");
        assert_eq!(curve_name("page-stride", "on"), "page-stride, huge pages");
        assert_eq!(
            curve_label("Chrome 156 (this run)", "page-local", "thp"),
            "page-local, transparent huge pages · Chrome 156 (this run)"
        );
        // An embed's legend: the curves alone, and two curves of one run never read alike.
        assert_eq!(curve_label("", "random-cycle", "default"), "random, default pages");
        assert_ne!(curve_label("x", "random-cycle", "default"), curve_label("x", "page-local", "default"));
    }
}
