//! Routes and policy: who is answered, what is refused, and the headers every answer carries.

use std::net::{IpAddr, SocketAddr};

use hyper::body::{Body as _, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};

use super::assets::Assets;
use super::body::{Body, full, page};
use super::reports::Reports;

/// The policy the page runs under, sent as a header and repeated in index.html's `<meta>` (a
/// test keeps the two equal), so that static hosts of dist/ get it too. Scripts only from the
/// page's own origin (trunk's inline loader is replaced by web/boot.js, see Trunk.toml), plus
/// `'wasm-unsafe-eval'` to compile the wasm; workers from Blob URLs (web/src/worker.rs); style
/// attributes inline (yew writes the chart swatches' colours that way); reports fetched from any
/// URL, since `?report=URL` is how a report on another host is opened.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src *; \
     object-src 'none'; base-uri 'none'; form-action 'none'";

const SECURITY_HEADERS: [(header::HeaderName, &str); 7] = [
    // Cross-origin isolation: fine timers for the ladder, SharedArrayBuffer available.
    (header::HeaderName::from_static("cross-origin-opener-policy"), "same-origin"),
    (header::HeaderName::from_static("cross-origin-embedder-policy"), "require-corp"),
    (header::HeaderName::from_static("cross-origin-resource-policy"), "same-origin"),
    (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::REFERRER_POLICY, "no-referrer"),
    // Local files change under a running server (a rebuild, a new report): always revalidate,
    // which the ETags make cheap (304).
    (header::CACHE_CONTROL, "no-cache"),
];

/// What is served, and where.
#[derive(Debug)]
pub struct Site {
    pub assets: Assets,
    pub reports: Reports,
    pub addr: SocketAddr,
    pub url: String,
}

impl super::server::Handler for Site {
    async fn answer(&self, request: Request<Incoming>) -> Response<Body> {
        let refused = refusal(&request, self.addr, &self.url, HostCheck::Served);
        with_policy(match refused {
            Some(refused) => refused,
            None => route(self, request).await,
        })
    }

    fn start(&self) {
        self.reports.read_fleet_soon();
    }
}

/// `response` with the security headers on it, whatever it is.
pub fn with_policy(mut response: Response<Body>) -> Response<Body> {
    let headers = response.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// Which `Host` a request may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCheck {
    /// Only the address served ([`host_allowed`]): what keeps a DNS-rebinding page out.
    Served,
    /// Any name: for what is meant to be reached by name from other machines (`memwall watch
    /// --listen` beyond loopback, which serves nothing but its metrics).
    Any,
}

/// Why a request is not answered, checked before anything is read for it: a `Host` that does not
/// name the server (unless `hosts` is [`HostCheck::Any`]), a body, a method other than GET or HEAD.
pub fn refusal(request: &Request<Incoming>, served: SocketAddr, url: &str, hosts: HostCheck) -> Option<Response<Body>> {
    let allowed = |host: &[u8]| hosts == HostCheck::Any || host_allowed(host, served);
    let mut names = request.headers().get_all(header::HOST).iter();
    match (names.next(), names.next()) {
        (Some(host), None) if allowed(host.as_bytes()) => {}
        (Some(_), None) => {
            let message = format!("refused: the Host header does not name this server; open {url}");
            return Some(page(StatusCode::FORBIDDEN, &message));
        }
        _ => return Some(page(StatusCode::BAD_REQUEST, "refused: exactly one Host header is required")),
    }
    // An absolute-form target (`GET http://name/ HTTP/1.1`) names a host too.
    if request.uri().authority().is_some_and(|a| !allowed(a.as_str().as_bytes())) {
        return Some(page(StatusCode::FORBIDDEN, "refused: the request names another server"));
    }
    if !request.body().is_end_stream() {
        // Nothing here takes a body; the connection closes rather than read one.
        let mut response = page(StatusCode::PAYLOAD_TOO_LARGE, "request bodies are not accepted");
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        return Some(response);
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = page(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD are served");
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(response);
    }
    None
}

async fn route(site: &Site, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path();
    let index = match path.strip_prefix('/') {
        Some(memwall_report::index::INDEX_PATH) => Some(site.reports.index().await),
        Some(memwall_report::index::FLEET_PATH) => Some(site.reports.fleet().await),
        _ => None,
    };
    if let Some(index) = index {
        let mut response = Response::new(full(index.to_json()));
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        return response;
    }
    if let Some(rest) = path.strip_prefix("/reports/") {
        let rest = rest.to_string();
        return site.reports.serve(&rest, request).await;
    }
    site.assets.serve(request).await
}

/// Whether `host` (a `Host` header) names the address served. An IP literal is always safe (DNS
/// rebinding needs a name the attacker controls); a name is accepted only as `localhost` when the
/// server listens on loopback or every address. The port must be the one served.
pub fn host_allowed(host: &[u8], served: SocketAddr) -> bool {
    let Ok(host) = std::str::from_utf8(host) else { return false };
    let (name, port) = match host.rsplit_once(':') {
        // `[::1]:8417`, or an IPv4 address or a name with a port.
        Some((name, port)) if !name.contains(':') || name.ends_with(']') => (name, port.parse::<u16>().ok()),
        // No port: a bare name, IPv4 address or bracketed IPv6 address means the default port.
        _ => (host, Some(80)),
    };
    if port != Some(served.port()) {
        return false;
    }
    let bare = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(name);
    let any = served.ip().is_unspecified();
    match bare.parse::<IpAddr>() {
        Ok(ip) => any || ip == served.ip(),
        Err(_) => {
            let name = name.strip_suffix('.').unwrap_or(name);
            name.eq_ignore_ascii_case("localhost") && (any || served.ip().is_loopback())
        }
    }
}
