//! `memwall serve`: the web front end and the given reports, on this machine.
//!
//! The bundle is read from disk, the `dist/` folder `trunk build --release` writes (see
//! [`find_dist`] for where it is looked for), not embedded in the binary: the native build then
//! needs no wasm toolchain, and a rebuilt front end is served without rebuilding `memwall`.
//! Reports are read from disk on every request, so a report rewritten by another `memwall run`
//! is served fresh; the page lists them from `/reports/index.json` when it starts.
//!
//! Every response carries COOP `same-origin` and COEP `require-corp`: a cross-origin isolated
//! page gets 5 µs timers instead of 100 µs ones (Chrome), which the browser ladder needs. The
//! server binds 127.0.0.1 unless `--bind` names another address, and refuses any path that would
//! leave the served folder, however it is spelled.
//!
//! A web page elsewhere must not be able to read what is served here: requests whose `Host` is
//! not the address served are refused (a DNS-rebinding page reaches 127.0.0.1 under its own
//! name), and the page runs under [`CONTENT_SECURITY_POLICY`]. The HTTP side is deliberately
//! small: GET and HEAD only, no request bodies, a bounded request head parsed by `httparse`, one
//! request per connection, a fixed pool of workers, and timeouts, so that no client can hold the
//! server or its memory (tiny_http, used before, had no limit on header size, connections or
//! time). Files are streamed from disk, never read whole.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use crate::{CliError, CliResult};

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// A report to list in the page when it opens (repeatable), e.g. memwall-report.json.
    #[arg(long = "report", value_name = "FILE")]
    pub reports: Vec<PathBuf>,
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
    /// The built web front end (trunk's dist/). Default: ./dist, then dist/ next to the memwall
    /// executable, then the repository's dist/ when memwall runs from target/<profile>/.
    #[arg(long, value_name = "DIR")]
    pub dist: Option<PathBuf>,
}

pub const DEFAULT_PORT: u16 = 8417;

/// The policy the page runs under, sent as a header and repeated in index.html's `<meta>` (a
/// test keeps the two equal), so that static hosts of dist/ get it too. Scripts only from the
/// page's own origin (trunk's inline loader is replaced by web/boot.js, see Trunk.toml), plus
/// `'wasm-unsafe-eval'` to compile the wasm; workers from Blob URLs (web/src/worker.rs); style
/// attributes inline (yew writes the chart swatches' colours that way); reports fetched from any
/// URL, since `?report=URL` is how a report on another host is opened.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src *; \
     object-src 'none'; base-uri 'none'; form-action 'none'";

impl ServeArgs {
    /// What `memwall run --serve` serves: its fresh report, with every other setting default.
    pub fn for_report(report: PathBuf) -> Self {
        Self {
            reports: vec![report],
            port: DEFAULT_PORT,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            open: false,
            dist: None,
        }
    }
}

/// Connections handled at once: the page fetches its script, wasm, CSS and reports in parallel.
/// More wait in the system's accept queue rather than each getting a thread.
const WORKERS: usize = 8;
/// The largest request head read: a browser's is well under 2 KiB.
const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Headers parsed at most; a browser sends about 15.
const MAX_HEADERS: usize = 64;
/// Input read and dropped after a reply, at most (see `connection`).
const MAX_DRAIN_BYTES: u64 = 1 << 20;
/// How long a client may take to send its request head, and each write may block: long enough
/// for any real client, short enough that idle connections cannot occupy every worker for long.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

pub fn serve(args: ServeArgs) -> CliResult {
    let served = Served::bind(&args)?;
    let url = served.url();
    let mut out = std::io::stdout();
    writeln!(out, "memwall: serving {} at {url}", served.dist.display()).ok();
    for (i, report) in served.reports.iter().enumerate() {
        writeln!(out, "memwall: report {}: {}", i, report.display()).ok();
    }
    if !args.bind.is_loopback() {
        writeln!(out, "memwall: warning: listening on {}, not only this machine: others on the network can load the page and these reports", args.bind).ok();
    }
    writeln!(out, "memwall: press Ctrl-C to stop").ok();
    out.flush().ok();
    if args.open {
        open_browser(&url);
    }
    served.run();
    Ok(())
}

/// A bound server, ready to answer.
#[derive(Debug)]
pub struct Served {
    listener: TcpListener,
    dist: PathBuf,
    reports: Vec<PathBuf>,
    addr: SocketAddr,
    timeout: Duration,
}

impl Served {
    /// Checks the bundle and the reports, then binds.
    pub fn bind(args: &ServeArgs) -> CliResult<Self> {
        let dist = find_dist(args.dist.as_deref())?;
        for report in &args.reports {
            check_report(report)?;
        }
        let listener = TcpListener::bind(SocketAddr::new(args.bind, args.port))
            .map_err(|e| CliError::runtime(format!("cannot listen on {}:{}: {e}", args.bind, args.port)))?;
        let addr = listener.local_addr().map_err(|e| CliError::runtime(format!("the server has no address: {e}")))?;
        Ok(Self { listener, dist, reports: args.reports.clone(), addr, timeout: DEFAULT_TIMEOUT })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn url(&self) -> String {
        let host = match self.addr().ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => "127.0.0.1".to_string(),
            IpAddr::V6(ip) if ip.is_unspecified() => "[::1]".to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        format!("http://{host}:{}/", self.addr().port())
    }

    /// Answers requests until the process ends.
    pub fn run(self) {
        let this = Arc::new(self);
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| {
                let this = Arc::clone(&this);
                std::thread::spawn(move || {
                    loop {
                        match this.listener.accept() {
                            Ok((stream, _)) => this.connection(stream),
                            // Out of descriptors or a connection reset before accept: the server
                            // must outlive it, so wait a moment instead of spinning or exiting.
                            Err(_) => std::thread::sleep(Duration::from_millis(50)),
                        }
                    }
                })
            })
            .collect();
        for worker in workers {
            let _ = worker.join();
        }
    }

    /// One request on one connection. Errors writing are the client's (it went away or stalled)
    /// and end the connection, nothing more.
    fn connection(&self, mut stream: TcpStream) {
        let _ = stream.set_write_timeout(Some(self.timeout));
        let reply = match read_head(&mut stream, self.timeout) {
            Ok(head) => self.answer(&head),
            Err(HeadError::Gone) => return,
            Err(HeadError::Refused(reply)) => reply,
        };
        if reply.send(&mut stream).is_err() {
            return;
        }
        // Closing with unread input makes the system send a reset, which can destroy the reply
        // before the client reads it (a refused oversized head, a body sent anyway). So: say we
        // are done, then drain what is still arriving, briefly and boundedly, until the client
        // closes.
        if stream.shutdown(std::net::Shutdown::Write).is_ok() {
            let _ = stream.set_read_timeout(Some(self.timeout.min(Duration::from_secs(1))));
            let _ = std::io::copy(&mut (&mut stream).take(MAX_DRAIN_BYTES), &mut std::io::sink());
        }
    }

    fn answer(&self, head: &[u8]) -> Reply {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut request = httparse::Request::new(&mut headers);
        match request.parse(head) {
            Ok(httparse::Status::Complete(_)) => {}
            Ok(httparse::Status::Partial) => return Reply::status(400, "incomplete request"),
            Err(httparse::Error::TooManyHeaders) => return Reply::status(431, "too many headers"),
            Err(_) => return Reply::status(400, "malformed request"),
        }
        let header = |name: &str| {
            let mut values = request.headers.iter().filter(|h| h.name.eq_ignore_ascii_case(name));
            match (values.next(), values.next()) {
                (Some(h), None) => Some(Ok(h.value)),
                (Some(_), Some(_)) => Some(Err(())),
                (None, _) => None,
            }
        };
        match header("host") {
            Some(Ok(host)) if host_allowed(host, self.addr) => {}
            Some(Ok(_)) => {
                return Reply::status(
                    403,
                    &format!("refused: the Host header does not name this server; open {}", self.url()),
                );
            }
            _ => return Reply::status(400, "refused: exactly one Host header is required"),
        }
        // Nothing here takes a body; one would be left unread on a connection about to close.
        let has_body =
            header("transfer-encoding").is_some() || header("content-length").is_some_and(|v| v != Ok(b"0".as_slice()));
        if has_body {
            return Reply::status(413, "request bodies are not accepted");
        }
        let head_only = match request.method {
            Some("GET") => false,
            Some("HEAD") => true,
            _ => return Reply::status(405, "only GET and HEAD are served"),
        };
        let mut reply = self.reply(request.path.unwrap_or("/"));
        reply.head_only = head_only;
        reply
    }

    fn reply(&self, url: &str) -> Reply {
        let path = url.split(['?', '#']).next().unwrap_or("/");
        if path == "/reports/index.json" {
            return Reply::ok("application/json", Body::Bytes(self.index_json().into_bytes()));
        }
        if let Some(rest) = path.strip_prefix("/reports/") {
            let index = rest.split('/').next().and_then(|i| i.parse::<usize>().ok());
            return match index.and_then(|i| self.reports.get(i).map(|file| (i, file))) {
                Some((i, file)) => match Body::file(file) {
                    Ok(body) => Reply::ok("application/json", body),
                    Err(e) => {
                        // The details (a path, an OS error) are for whoever runs the server, not
                        // for the page.
                        eprintln!("memwall: report {i} ({}): {e}", file.display());
                        Reply::status(404, "this report can no longer be read")
                    }
                },
                None => Reply::status(404, "no such report"),
            };
        }
        match resolve(&self.dist, path) {
            Ok(file) => match Body::file(&file) {
                Ok(body) => Reply::ok(content_type(&file), body),
                Err(_) => Reply::status(404, "not found"),
            },
            Err(Refusal::NotFound) => Reply::status(404, "not found"),
            Err(Refusal::Traversal) => Reply::status(400, "refused: the path leaves the served folder"),
            Err(Refusal::BadPath) => Reply::status(400, "refused: malformed path"),
        }
    }

    /// `{"reports": [{"name": "memwall-report.json", "url": "reports/0/memwall-report.json"}]}`:
    /// URLs relative to the page, so the page works under any path.
    fn index_json(&self) -> String {
        let reports: Vec<serde_json::Value> = self
            .reports
            .iter()
            .enumerate()
            .map(|(i, path)| {
                let name =
                    path.file_name().map_or_else(|| format!("report-{i}.json"), |n| n.to_string_lossy().into_owned());
                serde_json::json!({ "name": name, "url": format!("reports/{i}/{}", percent_encode(&name)) })
            })
            .collect();
        serde_json::json!({ "reports": reports }).to_string()
    }
}

/// A report given with `--report`, checked before listening so that a wrong file is a usage error
/// now rather than a broken page later.
fn check_report(report: &Path) -> CliResult {
    crate::output::read_report(report).map(drop).map_err(|e| e.context(&format!("--report {}", report.display())))
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

enum HeadError {
    /// The client closed, stalled past the timeout, or failed: nothing to answer.
    Gone,
    /// A head too large to be a real request.
    Refused(Reply),
}

/// Reads up to the blank line that ends a request head, within `timeout` in all.
fn read_head(stream: &mut TcpStream, timeout: Duration) -> Result<Vec<u8>, HeadError> {
    let deadline = Instant::now() + timeout;
    let mut head = Vec::with_capacity(2048);
    let mut buf = [0u8; 2048];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Err(HeadError::Gone);
        }
        let n = match stream.read(&mut buf) {
            Ok(0) | Err(_) => return Err(HeadError::Gone),
            Ok(n) => n,
        };
        // Only the bytes that can complete "\r\n\r\n" need to be searched again.
        let from = head.len().saturating_sub(3);
        head.extend_from_slice(&buf[..n]);
        let end = head[from..].windows(4).position(|w| w == b"\r\n\r\n").map(|end| from + end + 4);
        if end.unwrap_or(head.len()) > MAX_HEAD_BYTES {
            return Err(HeadError::Refused(Reply::status(431, "request head too large")));
        }
        if let Some(end) = end {
            head.truncate(end);
            return Ok(head);
        }
    }
}

/// What a response carries: a small buffer, or a file streamed from disk.
enum Body {
    Bytes(Vec<u8>),
    File(std::fs::File, u64),
}

impl Body {
    fn file(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Self::File(file, len))
    }

    fn len(&self) -> u64 {
        match self {
            Self::Bytes(bytes) => bytes.len() as u64,
            Self::File(_, len) => *len,
        }
    }
}

struct Reply {
    status: u16,
    content_type: &'static str,
    body: Body,
    head_only: bool,
}

impl Reply {
    fn ok(content_type: &'static str, body: Body) -> Self {
        Self { status: 200, content_type, body, head_only: false }
    }

    /// A short plain-text message: never a path or an OS error, which would tell a page more
    /// about this machine than it needs.
    fn status(status: u16, message: &str) -> Self {
        Self {
            status,
            content_type: "text/plain; charset=utf-8",
            body: Body::Bytes(format!("{status}: {message}\n").into_bytes()),
            head_only: false,
        }
    }

    fn send(self, out: &mut TcpStream) -> std::io::Result<()> {
        let reason = match self.status {
            200 => "OK",
            400 => "Bad Request",
            403 => "Forbidden",
            404 => "Not Found",
            405 => "Method Not Allowed",
            413 => "Content Too Large",
            431 => "Request Header Fields Too Large",
            _ => "",
        };
        let mut head = format!(
            "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.status,
            self.content_type,
            self.body.len()
        );
        for (name, value) in SECURITY_HEADERS {
            head += &format!("{name}: {value}\r\n");
        }
        if self.status == 405 {
            head += "Allow: GET, HEAD\r\n";
        }
        head += "\r\n";
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
        out.write_all(head.as_bytes())?;
        if !self.head_only {
            match self.body {
                Body::Bytes(bytes) => out.write_all(&bytes)?,
                // Streamed; `take` keeps Content-Length true if the file grew meanwhile.
                Body::File(file, len) => {
                    std::io::copy(&mut file.take(len), &mut out)?;
                }
            }
        }
        out.flush()
    }
}

const SECURITY_HEADERS: [(&str, &str); 7] = [
    // Cross-origin isolation: fine timers for the ladder, SharedArrayBuffer available.
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Embedder-Policy", "require-corp"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    // Local files change under a running server (a rebuild, a new report): always revalidate.
    ("Cache-Control", "no-cache"),
];

/// Why a path is not served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    NotFound,
    /// A `..` segment (however encoded), or a link out of the folder.
    Traversal,
    /// Bad percent-encoding, not UTF-8, a NUL or a backslash.
    BadPath,
}

/// The file under `root` that the URL path names, refusing any way out of `root`.
///
/// The path is percent-decoded once, then split on `/`; any `..` segment is refused outright
/// (rather than normalized), and backslashes and NULs are refused so that no platform reads the
/// path differently than this check did. Finally the canonical file must still lie under the
/// canonical root, which also refuses symbolic links that point outside.
pub fn resolve(root: &Path, url_path: &str) -> Result<PathBuf, Refusal> {
    let decoded = percent_decode(url_path).ok_or(Refusal::BadPath)?;
    if decoded.contains(['\0', '\\']) {
        return Err(Refusal::BadPath);
    }
    let mut path = root.to_path_buf();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err(Refusal::Traversal),
            s if s.contains(':') && cfg!(windows) => return Err(Refusal::BadPath),
            s => path.push(s),
        }
    }
    if path.is_dir() {
        path.push("index.html");
    }
    let canonical = path.canonicalize().map_err(|_| Refusal::NotFound)?;
    let root = root.canonicalize().map_err(|_| Refusal::NotFound)?;
    if !canonical.starts_with(&root) {
        return Err(Refusal::Traversal);
    }
    if !canonical.is_file() {
        return Err(Refusal::NotFound);
    }
    Ok(canonical)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The Content-Type for a file, by extension; wasm must be `application/wasm` for
/// `WebAssembly.instantiateStreaming`, and scripts must be JavaScript for module loading.
pub fn content_type(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

/// How to get a dist/: what the error says when there is none.
const BUILD_HINT: &str = "scripts/run.sh builds it after measuring; by hand, run scripts/setup.sh, then \
     `trunk build --release` at the repository root";

/// Where the built front end is: `--dist`, else `./dist`, else `dist/` next to the executable,
/// else the repository's `dist/` when running from `target/<profile>/memwall`.
pub fn find_dist(given: Option<&Path>) -> CliResult<PathBuf> {
    let has_index = |dir: &Path| dir.join("index.html").is_file();
    if let Some(dir) = given {
        return if has_index(dir) {
            Ok(dir.to_path_buf())
        } else {
            Err(CliError::usage(format!(
                "--dist {}: no index.html there, so not a built web front end ({BUILD_HINT})",
                dir.display()
            )))
        };
    }
    let mut candidates = vec![PathBuf::from("dist")];
    if let Some(exe_dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
        candidates.push(exe_dir.join("dist"));
        if let Some(repo) = exe_dir.parent().and_then(Path::parent) {
            candidates.push(repo.join("dist"));
        }
    }
    candidates.into_iter().find(|d| has_index(d)).ok_or_else(|| {
        CliError::usage(format!(
            "the web front end is not built yet: no dist/index.html in the current folder, beside the memwall \
             executable or in its repository ({BUILD_HINT}; or point `memwall serve --dist` at a built one)"
        ))
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use memwall_report::Report;

    fn dist() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "<!doctype html><title>t</title>").unwrap();
        std::fs::write(dir.path().join("app_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
        std::fs::write(dir.path().join("app.js"), "export default 1;").unwrap();
        std::fs::create_dir(dir.path().join("snippets")).unwrap();
        std::fs::write(dir.path().join("snippets").join("inline0.js"), "export const x = 1;").unwrap();
        dir
    }

    #[test]
    fn traversal_is_refused_however_spelled() {
        let root = dist();
        let secret = root.path().parent().unwrap().join("memwall-serve-secret.txt");
        std::fs::write(&secret, "secret").unwrap();
        for path in [
            "/../memwall-serve-secret.txt",
            "/snippets/../../memwall-serve-secret.txt",
            "/%2e%2e/memwall-serve-secret.txt",
            "/%2E%2E%2Fmemwall-serve-secret.txt",
            "/snippets/..%2f..%2fmemwall-serve-secret.txt",
            "/..",
        ] {
            assert_eq!(resolve(root.path(), path), Err(Refusal::Traversal), "{path}");
        }
        for path in ["/..%5cmemwall-serve-secret.txt", "/%00", "/%zz", "/%c3%28"] {
            assert_eq!(resolve(root.path(), path), Err(Refusal::BadPath), "{path}");
        }
        // Doubly encoded dots are a literal (absent) file name, not a way up.
        assert_eq!(resolve(root.path(), "/%252e%252e/memwall-serve-secret.txt"), Err(Refusal::NotFound));
        std::fs::remove_file(secret).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_folder_are_refused() {
        let root = dist();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.path().join("link.txt")).unwrap();
        assert_eq!(resolve(root.path(), "/link.txt"), Err(Refusal::Traversal));
    }

    #[test]
    fn paths_resolve_inside_the_folder() {
        let root = dist();
        let canonical = root.path().canonicalize().unwrap();
        assert_eq!(resolve(root.path(), "/").unwrap(), canonical.join("index.html"));
        assert_eq!(resolve(root.path(), "/./app.js").unwrap(), canonical.join("app.js"));
        assert_eq!(resolve(root.path(), "/snippets/inline0.js").unwrap(), canonical.join("snippets/inline0.js"));
        assert_eq!(resolve(root.path(), "/missing.js"), Err(Refusal::NotFound));
    }

    #[test]
    fn content_types_match_what_browsers_require() {
        assert_eq!(content_type(Path::new("a/memwall-web-1234_bg.wasm")), "application/wasm");
        assert_eq!(content_type(Path::new("memwall-web-1234.js")), "text/javascript; charset=utf-8");
        assert_eq!(content_type(Path::new("index.html")), "text/html; charset=utf-8");
        assert_eq!(content_type(Path::new("style-12.css")), "text/css; charset=utf-8");
        assert_eq!(content_type(Path::new("favicon.svg")), "image/svg+xml");
        assert_eq!(content_type(Path::new("report.JSON")), "application/json");
        assert_eq!(content_type(Path::new("blob")), "application/octet-stream");
    }

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    #[test]
    fn the_default_bind_is_loopback() {
        let args = Cli::parse_from(["memwall-serve"]).serve;
        assert!(args.bind.is_loopback(), "{}", args.bind);
        assert_eq!(ServeArgs::for_report("r.json".into()).bind, args.bind);
        assert!(!Cli::parse_from(["memwall-serve", "--bind", "0.0.0.0"]).serve.bind.is_loopback());
    }

    /// Sends `raw` as written (no client-side normalization of `..`, any Host) and reads the
    /// whole response: (status, lowercased head, body).
    fn exchange(addr: SocketAddr, raw: &[u8]) -> (u16, String, Vec<u8>) {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        stream.write_all(raw).unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        let split = response.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
        let head = String::from_utf8_lossy(&response[..split]).to_string();
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        (status, head.to_ascii_lowercase(), response[split + 4..].to_vec())
    }

    /// A GET as a browser at the served address sends it.
    fn get(addr: SocketAddr, path: &str) -> (u16, String, Vec<u8>) {
        exchange(addr, format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
    }

    fn start(reports: Vec<PathBuf>, dist: &Path, timeout: Duration) -> SocketAddr {
        let args = ServeArgs {
            reports,
            port: 0,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            open: false,
            dist: Some(dist.to_path_buf()),
        };
        let mut served = Served::bind(&args).unwrap();
        served.timeout = timeout;
        let addr = served.addr();
        assert!(addr.ip().is_loopback());
        std::thread::spawn(move || served.run());
        addr
    }

    fn report_file(dir: &Path) -> PathBuf {
        let report = Report::new(
            memwall_report::Source::Native,
            1,
            memwall_report::Host { name: Some("test-host".into()), ..Default::default() },
        );
        let path = dir.join("memwall-report.json");
        std::fs::write(&path, report.to_json_pretty()).unwrap();
        path
    }

    #[test]
    fn the_server_answers_with_isolation_headers_and_refuses_traversal() {
        let root = dist();
        let reports = tempfile::tempdir().unwrap();
        let addr = start(vec![report_file(reports.path())], root.path(), DEFAULT_TIMEOUT);

        let (status, head, body) = get(addr, "/app_bg.wasm");
        assert_eq!(status, 200);
        assert!(head.contains("content-type: application/wasm"), "{head}");
        assert!(head.contains("cross-origin-opener-policy: same-origin"), "{head}");
        assert!(head.contains("cross-origin-embedder-policy: require-corp"), "{head}");
        assert!(head.contains(&format!("content-security-policy: {}", CONTENT_SECURITY_POLICY.to_ascii_lowercase())));
        assert!(head.contains("content-length: 8"), "{head}");
        assert_eq!(body, b"\0asm\x01\0\0\0");

        let (status, head, _) = get(addr, "/");
        assert_eq!(status, 200);
        assert!(head.contains("content-type: text/html"), "{head}");

        for path in ["/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/snippets/..%2F..%2Fetc%2Fpasswd"] {
            let (status, _, body) = get(addr, path);
            assert_eq!(status, 400, "{path}");
            assert!(String::from_utf8_lossy(&body).contains("refused"), "{path}");
        }
        assert_eq!(get(addr, "/nothing-here.js").0, 404);

        let (status, head, body) = get(addr, "/reports/index.json");
        assert_eq!(status, 200);
        assert!(head.contains("content-type: application/json"));
        let index: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(index["reports"][0]["name"], "memwall-report.json");
        let url = index["reports"][0]["url"].as_str().unwrap();
        let (status, _, body) = get(addr, &format!("/{url}"));
        assert_eq!(status, 200);
        assert_eq!(
            Report::from_json(&String::from_utf8(body).unwrap()).unwrap().host.name.as_deref(),
            Some("test-host")
        );
        assert_eq!(get(addr, "/reports/7/x.json").0, 404);
    }

    #[test]
    fn a_bad_report_or_missing_bundle_is_refused_before_listening() {
        let root = dist();
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "{\"schema_version\": 99}").unwrap();
        let mut args = ServeArgs::for_report(bad);
        args.port = 0;
        args.dist = Some(root.path().to_path_buf());
        let err = Served::bind(&args).unwrap_err();
        assert!(err.message.contains("unsupported report schema_version 99"), "{}", err.message);
        args.reports.clear();
        args.dist = Some(dir.path().to_path_buf());
        assert!(Served::bind(&args).unwrap_err().message.contains("no index.html"));
    }

    #[test]
    fn other_host_names_are_refused() {
        let root = dist();
        let addr = start(vec![], root.path(), DEFAULT_TIMEOUT);
        let port = addr.port();
        for host in [
            "attacker.example".to_string(),
            format!("attacker.example:{port}"),
            format!("localhost.attacker.example:{port}"),
            format!("127.0.0.1:{}", port.wrapping_add(1)),
            format!("10.0.0.1:{port}"),
            "".to_string(),
        ] {
            let (status, _, body) = exchange(addr, format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes());
            assert_eq!(status, 403, "{host}");
            assert!(String::from_utf8_lossy(&body).contains("refused"), "{host}");
        }
        let (status, _, _) = exchange(addr, b"GET / HTTP/1.0\r\n\r\n");
        assert_eq!(status, 400, "no Host at all");
        let twice = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nHost: attacker.example\r\n\r\n");
        assert_eq!(exchange(addr, twice.as_bytes()).0, 400);
        for host in [addr.to_string(), format!("localhost:{port}"), format!("LOCALHOST.:{port}")] {
            let (status, _, _) = exchange(addr, format!("GET / HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes());
            assert_eq!(status, 200, "{host}");
        }
    }

    #[test]
    fn hosts_are_matched_to_the_address_served() {
        let loopback: SocketAddr = "127.0.0.1:8417".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:8417".parse().unwrap();
        let v6: SocketAddr = "[::1]:8417".parse().unwrap();
        let lan: SocketAddr = "192.168.1.5:80".parse().unwrap();
        let allowed = |host: &str, served| host_allowed(host.as_bytes(), served);
        assert!(allowed("127.0.0.1:8417", loopback) && allowed("localhost:8417", loopback));
        assert!(!allowed("127.0.0.2:8417", loopback) && !allowed("127.0.0.1", loopback));
        assert!(allowed("192.168.1.5:8417", any) && allowed("localhost:8417", any) && allowed("[::1]:8417", any));
        assert!(!allowed("memwall.example:8417", any));
        assert!(allowed("[::1]:8417", v6) && !allowed("[::2]:8417", v6) && !allowed("::1:8417", v6));
        assert!(allowed("192.168.1.5", lan) && allowed("192.168.1.5:80", lan));
        assert!(!allowed("localhost", lan) && !allowed("evil.example", lan));
        assert!(!allowed("127.0.0.1:08417x", loopback) && !allowed("\u{ff}", loopback));
        assert!(!host_allowed(b"\xff:8417", loopback));
    }

    #[test]
    fn oversized_heads_bodies_and_other_methods_are_refused() {
        let root = dist();
        let addr = start(vec![], root.path(), DEFAULT_TIMEOUT);
        let huge = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Filler: {}\r\n\r\n", "a".repeat(MAX_HEAD_BYTES));
        assert_eq!(exchange(addr, huge.as_bytes()).0, 431);
        let many: String = (0..MAX_HEADERS + 1).map(|i| format!("X-{i}: 1\r\n")).collect();
        assert_eq!(exchange(addr, format!("GET / HTTP/1.1\r\nHost: {addr}\r\n{many}\r\n").as_bytes()).0, 431);
        let body = format!("POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 5\r\n\r\nhello");
        assert_eq!(exchange(addr, body.as_bytes()).0, 413);
        let chunked = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        assert_eq!(exchange(addr, chunked.as_bytes()).0, 413);
        let (status, head, _) = exchange(addr, format!("DELETE / HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes());
        assert_eq!(status, 405);
        assert!(head.contains("allow: get, head"), "{head}");
        assert_eq!(exchange(addr, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n").0, 400);
        // HEAD: the length of what GET would send, and no body.
        let (status, head, body) = exchange(addr, format!("HEAD /app.js HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes());
        assert_eq!((status, body.len()), (200, 0));
        assert!(head.contains("content-length: 17"), "{head}");
    }

    #[test]
    fn silent_clients_are_dropped_and_do_not_block_others() {
        let root = dist();
        let addr = start(vec![], root.path(), Duration::from_millis(300));
        // More idle connections than workers: each is dropped at the timeout, so a real request
        // behind them is still answered.
        let idle: Vec<TcpStream> = (0..WORKERS + 2)
            .map(|_| {
                let mut s = TcpStream::connect(addr).unwrap();
                s.write_all(b"GET / HTTP/1.1\r\n").unwrap();
                s
            })
            .collect();
        let started = Instant::now();
        assert_eq!(get(addr, "/app.js").0, 200);
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        for mut s in idle {
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut rest = Vec::new();
            // Closed by the server: EOF, not our read timeout.
            assert!(s.read_to_end(&mut rest).is_ok());
        }
    }

    #[test]
    fn error_pages_name_no_paths_and_files_are_streamed_whole() {
        let root = dist();
        let big: Vec<u8> = (0..5_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(root.path().join("big.wasm"), &big).unwrap();
        let reports = tempfile::tempdir().unwrap();
        let report = report_file(reports.path());
        let addr = start(vec![report.clone()], root.path(), DEFAULT_TIMEOUT);
        let (status, head, body) = get(addr, "/big.wasm");
        assert_eq!(status, 200);
        assert!(head.contains("content-length: 5000000"), "{head}");
        assert!(body == big, "the streamed file differs");
        std::fs::remove_file(&report).unwrap();
        let (status, _, body) = get(addr, "/reports/0/memwall-report.json");
        assert_eq!(status, 404);
        let body = String::from_utf8(body).unwrap();
        let dir = reports.path().to_string_lossy().to_string();
        assert!(!body.contains(&dir) && !body.contains("os error") && !body.contains('/'), "{body}");
    }

    #[test]
    fn index_html_carries_the_same_policy_as_the_header() {
        let index = include_str!("../../index.html");
        let meta = format!(r#"<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}" />"#);
        assert!(index.contains(&meta), "index.html should carry:\n{meta}");
        // The trunk loader script is not inline (an inline one would need 'unsafe-inline').
        let trunk = include_str!("../../Trunk.toml");
        assert!(trunk.contains("pattern_script") && trunk.contains("boot.js"), "Trunk.toml");
    }

    #[test]
    fn impossible_reports_are_refused_before_listening() {
        let root = dist();
        let dir = tempfile::tempdir().unwrap();
        let good = report_file(dir.path());
        let mut report = Report::from_json(&std::fs::read_to_string(&good).unwrap()).unwrap();
        report.host.core_ghz = Some(-3.0);
        let bad = dir.path().join("negative.json");
        std::fs::write(&bad, report.to_json_pretty()).unwrap();
        let mut args = ServeArgs::for_report(bad);
        args.port = 0;
        args.dist = Some(root.path().to_path_buf());
        let err = Served::bind(&args).unwrap_err();
        assert!(err.message.contains("impossible figure: host core_ghz is -3"), "{}", err.message);
    }
}
