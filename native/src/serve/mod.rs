//! `memwall serve`: the web front end and the given reports, on this machine.
//!
//! The front end is the one built into the binary (release builds, `--features embed-web`), or
//! trunk's `dist/` on disk (`--dist`, or found as [`assets::find_dist`] says). Reports are read
//! from disk when asked, so a report rewritten by another `memwall run`, or written into a
//! `--reports` folder while the server runs, is served fresh; the page lists them from
//! `reports/index.json` ([`memwall_report::index`]) when it starts.
//!
//! # The stack, and why
//!
//! hyper's HTTP/1.1 server on a small tokio runtime, with tower-http's static files and gzip.
//! hyper parses requests and enforces what a hand-written server got wrong or lacked: a deadline
//! for each request head (also for idle keep-alive connections, which it closes), limits on head
//! size and header count (431), keep-alive; tokio serves hundreds of slow or idle connections
//! without a thread each, so none of them stalls another. tower-http's `ServeDir` brings ETag and
//! If-None-Match (a reload costs 304s), Last-Modified, Range (large reports), and the
//! precompressed `.br`/`.gz` variants that the front end's build writes beside each file; its
//! `Backend` trait lets the embedded front end go through that same code. axum was left out:
//! four routes need no router, and its extractors and macros cost compile time on 2 cores; its
//! `serve` would not let us set hyper's limits either. Brotli is served only from the
//! precompressed files, never compressed on the fly (the brotli crate is slow to build and the
//! big files are precompressed); everything else (reports, the index) is gzipped on the fly.
//!
//! # What is refused
//!
//! Every response carries COOP `same-origin` and COEP `require-corp` (a cross-origin isolated
//! page gets 5 µs timers instead of 100 µs ones, which the browser ladder needs) and
//! [`CONTENT_SECURITY_POLICY`]. A web page elsewhere must not be able to read what is served
//! here: requests whose `Host` is not the address served are refused (a DNS-rebinding page
//! reaches 127.0.0.1 under its own name, see [`routes::host_allowed`]). The server binds
//! 127.0.0.1 unless `--bind` says otherwise, answers GET and HEAD only, takes no request bodies,
//! refuses any path that would leave the served folder however it is spelled, and its error
//! pages name no paths and no OS errors.
//!
//! The code is split by concern: [`server`] (connections and their limits), [`routes`] (policy
//! and dispatch), [`reports`] (the index and the report files), [`assets`] (the front end).

mod assets;
mod body;
#[cfg(feature = "embed-web")]
mod embedded;
mod reports;
mod routes;
mod server;
#[cfg(test)]
pub(crate) mod tests;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

pub use assets::Assets;
pub use body::{Body, full, page};
pub use reports::{entry as index_entry, listed as report_names_in, url_segment};
pub use routes::{HostCheck, refusal, with_policy};
pub use server::{Handler, Limits, run as run_handler};

use crate::error::{CliError, CliResult};

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// A report to list in the page when it opens (repeatable), e.g. memwall-report.json.
    #[arg(long = "report", value_name = "FILE")]
    pub reports: Vec<PathBuf>,
    /// A folder of reports (repeatable): every *.json file in it is listed, read when the page
    /// asks, so reports written there while the server runs appear on reload.
    #[arg(long = "reports", value_name = "DIR")]
    pub report_dirs: Vec<PathBuf>,
    /// TCP port; 0 lets the system pick a free one.
    #[arg(long, default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// Address to listen on. The default answers this machine only; 0.0.0.0 would let anyone on
    /// the network load the page and the reports (open it by IP address: other host names are
    /// refused).
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Open the page in the default browser once listening.
    #[arg(long)]
    pub open: bool,
    /// A built web front end (trunk's dist/) to serve instead of the one in this binary. Without
    /// one built in, the default is ./dist, then dist/ next to the memwall executable, then the
    /// repository's dist/ when memwall runs from target/<profile>/.
    #[arg(long, value_name = "DIR")]
    pub dist: Option<PathBuf>,
}

pub const DEFAULT_PORT: u16 = 8417;

impl ServeArgs {
    /// What `memwall run --serve` serves: its fresh report, with every other setting default.
    pub fn for_report(report: PathBuf) -> Self {
        Self {
            reports: vec![report],
            report_dirs: Vec::new(),
            port: DEFAULT_PORT,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            open: false,
            dist: None,
        }
    }
}

pub fn serve(args: ServeArgs) -> CliResult {
    let served = Served::bind(&args)?;
    let url = served.url();
    let mut out = std::io::stdout();
    writeln!(out, "memwall: serving {} at {url}", served.site.assets.describe()).ok();
    for line in served.site.reports.describe() {
        writeln!(out, "memwall: {line}").ok();
    }
    if !args.bind.is_loopback() {
        writeln!(out, "memwall: warning: listening on {}, not only this machine: others on the network can load the page and these reports", args.bind).ok();
    }
    writeln!(out, "memwall: press Ctrl-C to stop").ok();
    out.flush().ok();
    if args.open {
        open_browser(&url);
    }
    served.run()
}

/// A bound server, ready to answer.
#[derive(Debug)]
pub struct Served {
    listener: TcpListener,
    site: Arc<routes::Site>,
    limits: Limits,
}

impl Served {
    /// Checks the front end and the reports, then binds: a wrong file is a usage error now
    /// rather than a broken page later.
    pub fn bind(args: &ServeArgs) -> CliResult<Self> {
        let assets = Assets::find(args.dist.as_deref())?;
        let reports = reports::Reports::new(&args.reports, &args.report_dirs)?;
        let listener = listen(SocketAddr::new(args.bind, args.port))
            .map_err(|e| CliError::runtime(format!("cannot listen on {}:{}: {e}", args.bind, args.port)))?;
        let addr = listener.local_addr().map_err(|e| CliError::runtime(format!("the server has no address: {e}")))?;
        let site = Arc::new(routes::Site { assets, reports, addr, url: url_of(addr) });
        Ok(Self { listener, site, limits: Limits::default() })
    }

    #[cfg(test)]
    pub fn addr(&self) -> SocketAddr {
        self.site.addr
    }

    pub fn url(&self) -> String {
        self.site.url.clone()
    }

    /// Answers requests until the process ends.
    pub fn run(self) -> CliResult {
        server::run(self.listener, self.site, self.limits, server::page_workers())
    }
}

/// A non-blocking listening socket with room for [`ACCEPT_QUEUE`] connections not yet accepted:
/// with std's 128, a burst of a thousand connections (a page's reloads on a busy LAN) sees
/// dropped SYNs and one-second retries.
pub fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    // As std does: a restarted server can bind while the last one's connections time out.
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(ACCEPT_QUEUE)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// The accept queue asked for; the system caps it (net.core.somaxconn, 4096 on recent Linux).
const ACCEPT_QUEUE: i32 = 1024;

/// The URL to open: an unspecified bind address is opened as loopback.
fn url_of(addr: SocketAddr) -> String {
    let host = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => "127.0.0.1".to_string(),
        IpAddr::V6(ip) if ip.is_unspecified() => "[::1]".to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    };
    format!("http://{host}:{}/", addr.port())
}

fn open_browser(url: &str) {
    let command = if cfg!(target_os = "macos") {
        std::process::Command::new("open").arg(url).spawn()
    } else if cfg!(windows) {
        std::process::Command::new("cmd").args(["/C", "start", "", url]).spawn()
    } else {
        std::process::Command::new("xdg-open").arg(url).spawn()
    };
    if let Err(e) = command {
        eprintln!("memwall: could not open a browser ({e}); open {url} yourself");
    }
}
