//! `/metrics` on `memwall serve`'s HTTP stack (hyper, its limits and head deadline, the same
//! refusals), and nothing else. On loopback the `Host` check stays, so that a web page elsewhere
//! cannot read the figures through DNS rebinding; beyond loopback, which the user asked for
//! explicitly, scrapes may name the server by IP or by any host name (as Prometheus's targets do).

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};

use super::metrics::{CONTENT_TYPE, Metrics};
use crate::error::{CliError, CliResult};
use crate::serve::{self, Body, HostCheck};

/// The path scrapes ask for.
pub const METRICS_PATH: &str = "/metrics";

/// What the server answers: the latest figures, encoded when asked (a scrape never measures).
#[derive(Debug)]
pub struct Endpoint {
    metrics: Arc<Metrics>,
    addr: SocketAddr,
    url: String,
    hosts: HostCheck,
}

impl serve::Handler for Endpoint {
    async fn answer(&self, request: Request<Incoming>) -> Response<Body> {
        let refused = serve::refusal(&request, self.addr, &self.url, self.hosts);
        serve::with_policy(refused.unwrap_or_else(|| self.route(&request)))
    }

    /// SIGTERM (how systemd and Kubernetes stop a service) ends the probe as Ctrl-C does: at the
    /// end of the interval being measured, with the summary, exit 0. Only here: every other
    /// command keeps the default (SIGTERM ends it at once).
    fn start(&self) {
        #[cfg(unix)]
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::spawn(async move {
                    terminate.recv().await;
                    crate::error::INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
                });
            }
            Err(e) => eprintln!("memwall: warning: SIGTERM will end the exporter without its summary: {e}"),
        }
    }
}

impl Endpoint {
    fn route(&self, request: &Request<Incoming>) -> Response<Body> {
        if request.uri().path() != METRICS_PATH {
            return serve::page(StatusCode::NOT_FOUND, "not found: this server serves /metrics only");
        }
        let mut response = Response::new(serve::full(self.metrics.encode()));
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
        response
    }
}

/// A bound `/metrics`, not answering yet.
#[derive(Debug)]
pub struct Listening {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    url: String,
    hosts: HostCheck,
}

impl Listening {
    /// Binds `addr` now, before anything is measured: an address in use, or one this machine does
    /// not have, is a one-line error naming it (exit 2).
    pub fn bind(addr: SocketAddr) -> CliResult<Self> {
        let listener = serve::listen(addr).map_err(|e| {
            let message = format!("cannot listen on {addr}: {e}");
            match e.kind() {
                std::io::ErrorKind::AddrInUse | std::io::ErrorKind::AddrNotAvailable => CliError::usage(message),
                _ => CliError::runtime(message),
            }
        })?;
        let addr = listener.local_addr().map_err(|e| CliError::runtime(format!("{addr} has no address: {e}")))?;
        let hosts = if addr.ip().is_loopback() { HostCheck::Served } else { HostCheck::Any };
        Ok(Self { listener, addr, url: format!("http://{addr}{METRICS_PATH}"), hosts })
    }

    #[cfg(test)]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where scrapes go (an unspecified address as bound, e.g. `http://0.0.0.0:9417/metrics`).
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn beyond_loopback(&self) -> bool {
        self.hosts == HostCheck::Any
    }

    /// Answers with `metrics` on a thread of its own (one tokio worker: scrapes are rare and
    /// small) until the process ends; the thread ends early only when the server could not start.
    pub fn answer(self, metrics: Arc<Metrics>) -> CliResult<std::thread::JoinHandle<CliResult>> {
        let Self { listener, addr, url, hosts } = self;
        let endpoint = Arc::new(Endpoint { metrics, addr, url, hosts });
        std::thread::Builder::new()
            .name("memwall-metrics".into())
            .spawn(move || serve::run_handler(listener, endpoint, serve::Limits::default(), 1))
            .map_err(|e| CliError::runtime(format!("cannot start the metrics server: {e}")))
    }
}
