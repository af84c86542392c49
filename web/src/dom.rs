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
    let ua = user_agent();
    for (token, name) in [("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Version/", "Safari")] {
        if let Some(rest) = ua.split(token).nth(1) {
            let major = rest.split(['.', ' ']).next().unwrap_or("");
            return format!("{name} {major}");
        }
    }
    "this browser".into()
}
