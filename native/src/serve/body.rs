//! What every response carries: its body type, a short plain-text page, a body from text.

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};

/// Every response body: a short page, or a file streamed by tower-http.
pub type Body = UnsyncBoxBody<Bytes, std::io::Error>;

/// A short plain-text page: never a path or an OS error, which would tell a page more about
/// this machine than it needs.
pub fn page(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(full(format!("{}: {message}\n", status.as_u16())));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

pub fn full(text: String) -> Body {
    Full::new(Bytes::from(text)).map_err(|never| match never {}).boxed_unsync()
}
