//! Connections: accepting them, hyper's limits on each, and closing them without losing a reply.
//!
//! Nothing here reads HTTP: hyper parses every request head, within [`MAX_HEAD_BYTES`] and
//! [`MAX_HEADERS`] (431 beyond either) and within [`Limits::head_deadline`], which also closes
//! idle keep-alive connections. What hyper leaves to us is bounded here: how many connections
//! are open at once, how long a response may wait on a client that stopped reading, and the
//! lingering close that keeps a refusal from being destroyed by a TCP reset.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tower_http::compression::Compression;

use super::body::Body;
use crate::error::{CliError, CliResult};

/// The largest request head accepted, start line included: a browser's is well under 2 KiB.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Headers accepted at most; a browser sends about 15.
pub const MAX_HEADERS: usize = 64;
/// Input read and dropped while closing, at most (see [`linger`]).
const MAX_DRAIN_BYTES: usize = 1 << 20;

/// How long clients may take, and how many may be connected at once.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// From the moment a connection is ready for a request (accepted, or done with its last
    /// response) until that request's head has arrived; then the connection is closed. Long
    /// enough for any real client, short enough that silent ones are not kept.
    pub head_deadline: Duration,
    /// How long a response may make no progress because the client does not read it.
    pub write_stall: Duration,
    /// Open connections at most. More wait in the system's accept queue until the deadlines
    /// above free some; an idle connection costs about 10 KiB here.
    pub max_connections: usize,
    /// How long to wait for a client to close after we did (see [`linger`]).
    pub linger: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            head_deadline: Duration::from_secs(10),
            write_stall: Duration::from_secs(30),
            max_connections: 4096,
            linger: Duration::from_secs(1),
        }
    }
}

/// What a server answers: `memwall serve`'s site, or the metrics of `memwall watch --listen`.
pub trait Handler: Send + Sync + 'static {
    /// The answer to one request (hyper has already checked its head against the limits).
    fn answer(&self, request: Request<Incoming>) -> impl Future<Output = Response<Body>> + Send;
    /// Started on the server's runtime before the first connection is accepted.
    fn start(&self) {}
}

/// Worker threads for a server that serves a page and its reports: a few are plenty, files are
/// read on tokio's blocking pool.
pub fn page_workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(1, 4))
}

/// Runs `handler` on `listener` (non-blocking, already bound) with `workers` threads until the
/// process ends.
pub fn run<H: Handler>(listener: std::net::TcpListener, handler: Arc<H>, limits: Limits, workers: usize) -> CliResult {
    raise_descriptor_limit(limits.max_connections);
    // The blocking pool is bounded too, so that a burst of requests cannot start hundreds of threads.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .max_blocking_threads(64)
        .thread_name("memwall-serve")
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| CliError::runtime(format!("cannot start the server: {e}")))?;
    let addr = listener.local_addr().map_err(|e| CliError::runtime(format!("the server has no address: {e}")))?;
    runtime.block_on(async move {
        handler.start();
        let listener =
            TcpListener::from_std(listener).map_err(|e| CliError::runtime(format!("cannot serve on {addr}: {e}")))?;
        accept_loop(listener, handler, limits).await;
        Ok(())
    })
}

async fn accept_loop<H: Handler>(listener: TcpListener, handler: Arc<H>, limits: Limits) {
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.head_deadline)
        .max_header_size(MAX_HEAD_BYTES)
        .max_headers(MAX_HEADERS)
        .keep_alive(true);
    loop {
        // Never closed, so acquiring only waits.
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else { return };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of descriptors, or a connection reset before it was accepted: the server must
            // outlive it, so wait a moment instead of spinning or exiting.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let builder = builder.clone();
        let handler = Arc::clone(&handler);
        tokio::spawn(async move {
            connection(stream, &builder, handler, limits).await;
            drop(slot);
        });
    }
}

/// Serves one connection, keep-alive requests included, then closes it gently.
async fn connection<H: Handler>(mut stream: TcpStream, builder: &http1::Builder, handler: Arc<H>, limits: Limits) {
    let _ = stream.set_nodelay(true);
    {
        let mut guarded = tokio_io_timeout::TimeoutStream::new(&mut stream);
        guarded.set_write_timeout(Some(limits.write_stall));
        let service = TowerToHyperService::new(Compression::new(Routes(handler)));
        // The error is the client's (it went away, stalled, or sent something hyper refused
        // with its own 4xx): nothing more to do for it than close.
        let _ = builder.serve_connection(TokioIo::new(Box::pin(guarded)), service).await;
    }
    linger(&mut stream, limits.linger).await;
}

/// Closing a socket with unread input makes the system send a reset, which can destroy a
/// reply the client has not read yet (a 431 for an oversized head, a 413 for a body sent
/// anyway). So: say we are done, then drain what is still arriving, briefly and boundedly,
/// until the client closes.
async fn linger(stream: &mut TcpStream, time: Duration) {
    let _ = stream.shutdown().await;
    let drain = async {
        let mut buf = vec![0u8; 16 * 1024];
        let mut left = MAX_DRAIN_BYTES;
        while left > 0 {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    };
    let _ = tokio::time::timeout(time, drain).await;
}

/// Lifts the soft limit on open files towards `wanted` (within the hard limit): each
/// connection is a descriptor, and a soft limit of 1024 is still common.
fn raise_descriptor_limit(wanted: usize) {
    let wanted = wanted as u64 + 256;
    if let Ok((soft, hard)) = rlimit::getrlimit(rlimit::Resource::NOFILE)
        && soft < wanted
    {
        let _ = rlimit::setrlimit(rlimit::Resource::NOFILE, wanted.min(hard), hard);
    }
}

/// The handler as a tower service, so that tower-http's compression can wrap it.
struct Routes<H>(Arc<H>);

impl<H> Clone for Routes<H> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<H: Handler> tower_service::Service<Request<Incoming>> for Routes<H> {
    type Response = Response<Body>;
    type Error = std::convert::Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Incoming>) -> Self::Future {
        let handler = Arc::clone(&self.0);
        Box::pin(async move { Ok(handler.answer(request).await) })
    }
}
