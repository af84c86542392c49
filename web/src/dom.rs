//! The page's window and document, and the browser it runs in.

pub fn window() -> web_sys::Window {
    web_sys::window().expect("the app only runs in a window")
}

pub fn document() -> web_sys::Document {
    window().document().expect("a window has a document")
}

/// The user agent string, as a browser report records it.
pub fn user_agent() -> String {
    window().navigator().user_agent().unwrap_or_default()
}

/// A short browser name from the user agent, for labels ("Chrome 156", "Firefox 140").
pub fn browser_name() -> String {
    browser_name_of(&user_agent())
}

/// The name [`browser_name`] gives a user agent string. Safari runs only on Apple's systems: a
/// Safari-like string on Linux is WebKitGTK or WPE (Epiphany, MiniBrowser), whose `Version/` is
/// a fixed stand-in, not a release, so it is named by its engine alone.
fn browser_name_of(ua: &str) -> String {
    if ua.contains("Version/") && ua.contains("Safari/") && ua.contains("Linux") && !ua.contains("Android") {
        return "WebKit (Linux)".into();
    }
    for (token, name) in [("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Version/", "Safari")] {
        if let Some(rest) = ua.split(token).nth(1) {
            let major = rest.split(['.', ' ']).next().unwrap_or("");
            return format!("{name} {major}");
        }
    }
    "this browser".into()
}

#[cfg(test)]
mod tests {
    use super::browser_name_of;

    #[test]
    fn browsers_are_named_from_their_user_agents() {
        let chrome =
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";
        assert_eq!(browser_name_of(chrome), "Chrome 156");
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";
        assert_eq!(browser_name_of(firefox), "Firefox 140");
        let safari = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Safari/605.1.15";
        assert_eq!(browser_name_of(safari), "Safari 18");
        // Debian's WebKitGTK 2.50 MiniBrowser, as the e2e suite drives it.
        let webkitgtk =
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/60.5 Safari/605.1.15";
        assert_eq!(browser_name_of(webkitgtk), "WebKit (Linux)");
        assert_eq!(browser_name_of(""), "this browser");
    }
}
