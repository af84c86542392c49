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

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use memwall_report::Report;
use tiny_http::{Header, Method, Request, Response, Server, StatusCode};

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
    /// the network load the page and the reports.
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

/// Requests handled at once: the page fetches its script, wasm, CSS and reports in parallel.
const THREADS: usize = 4;

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
pub struct Served {
    server: Arc<Server>,
    dist: PathBuf,
    reports: Vec<PathBuf>,
    addr: SocketAddr,
}

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Served")
            .field("dist", &self.dist)
            .field("reports", &self.reports)
            .field("addr", &self.addr)
            .finish()
    }
}

impl Served {
    /// Checks the bundle and the reports, then binds.
    pub fn bind(args: &ServeArgs) -> CliResult<Self> {
        let dist = find_dist(args.dist.as_deref())?;
        for report in &args.reports {
            let text = std::fs::read_to_string(report)
                .map_err(|e| CliError::usage(format!("--report {}: {e}", report.display())))?;
            Report::from_json(&text).map_err(|e| CliError::usage(format!("--report {}: {e}", report.display())))?;
        }
        let server = Server::http(SocketAddr::new(args.bind, args.port))
            .map_err(|e| CliError::runtime(format!("cannot listen on {}:{}: {e}", args.bind, args.port)))?;
        let addr =
            server.server_addr().to_ip().ok_or_else(|| CliError::runtime("the server is not on an IP address"))?;
        Ok(Self { server: Arc::new(server), dist, reports: args.reports.clone(), addr })
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
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                let this = Arc::clone(&this);
                std::thread::spawn(move || {
                    while let Ok(request) = this.server.recv() {
                        this.answer(request);
                    }
                })
            })
            .collect();
        for worker in workers {
            let _ = worker.join();
        }
    }

    fn answer(&self, request: Request) {
        let reply = if matches!(request.method(), Method::Get | Method::Head) {
            self.reply(request.url())
        } else {
            Reply::status(405, "only GET and HEAD are served")
        };
        let headers = reply.headers();
        let mut response = Response::from_data(reply.body).with_status_code(StatusCode(reply.status));
        for (name, value) in headers {
            if let Ok(header) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(header);
            }
        }
        // A client that went away is not an error of the server.
        let _ = request.respond(response);
    }

    fn reply(&self, url: &str) -> Reply {
        let path = url.split(['?', '#']).next().unwrap_or("/");
        if path == "/reports/index.json" {
            return Reply::ok("application/json", self.index_json().into_bytes());
        }
        if let Some(rest) = path.strip_prefix("/reports/") {
            let index = rest.split('/').next().and_then(|i| i.parse::<usize>().ok());
            return match index.and_then(|i| self.reports.get(i)) {
                Some(file) => match std::fs::read(file) {
                    Ok(bytes) => Reply::ok("application/json", bytes),
                    Err(e) => Reply::status(404, &format!("{}: {e}", file.display())),
                },
                None => Reply::status(404, "no such report"),
            };
        }
        match resolve(&self.dist, path) {
            Ok(file) => match std::fs::read(&file) {
                Ok(bytes) => Reply::ok(content_type(&file), bytes),
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

struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Reply {
    fn ok(content_type: &'static str, body: Vec<u8>) -> Self {
        Self { status: 200, content_type, body }
    }

    fn status(status: u16, message: &str) -> Self {
        Self { status, content_type: "text/plain; charset=utf-8", body: format!("{status}: {message}\n").into_bytes() }
    }

    fn headers(&self) -> [(&'static str, &'static str); 6] {
        [
            ("Content-Type", self.content_type),
            // Cross-origin isolation: fine timers for the ladder, SharedArrayBuffer available.
            ("Cross-Origin-Opener-Policy", "same-origin"),
            ("Cross-Origin-Embedder-Policy", "require-corp"),
            ("Cross-Origin-Resource-Policy", "same-origin"),
            ("X-Content-Type-Options", "nosniff"),
            // Local files change under a running server (a rebuild, a new report): always revalidate.
            ("Cache-Control", "no-cache"),
        ]
    }
}

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

/// Where the built front end is: `--dist`, else `./dist`, else `dist/` next to the executable,
/// else the repository's `dist/` when running from `target/<profile>/memwall`.
pub fn find_dist(given: Option<&Path>) -> CliResult<PathBuf> {
    let has_index = |dir: &Path| dir.join("index.html").is_file();
    if let Some(dir) = given {
        return if has_index(dir) {
            Ok(dir.to_path_buf())
        } else {
            Err(CliError::usage(format!(
                "--dist {}: no index.html there (build the front end with `trunk build --release`)",
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
        CliError::usage(
            "no built web front end found in ./dist, next to the executable, or in the repository's dist/: \
             build it with `trunk build --release` at the repository root, or pass --dist DIR",
        )
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
    use std::io::{Read, Write};
    use std::net::TcpStream;

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

    /// One raw HTTP/1.0 request, sent as written (no client-side normalization of `..`).
    fn get(addr: SocketAddr, path: &str) -> (u16, String, Vec<u8>) {
        let mut stream = TcpStream::connect(addr).unwrap();
        write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        (status, head.to_ascii_lowercase(), raw[split + 4..].to_vec())
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
        let args = ServeArgs {
            reports: vec![report_file(reports.path())],
            port: 0,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            open: false,
            dist: Some(root.path().to_path_buf()),
        };
        let served = Served::bind(&args).unwrap();
        let addr = served.addr();
        assert!(addr.ip().is_loopback());
        std::thread::spawn(move || served.run());

        let (status, head, body) = get(addr, "/app_bg.wasm");
        assert_eq!(status, 200);
        assert!(head.contains("content-type: application/wasm"), "{head}");
        assert!(head.contains("cross-origin-opener-policy: same-origin"), "{head}");
        assert!(head.contains("cross-origin-embedder-policy: require-corp"), "{head}");
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
}
