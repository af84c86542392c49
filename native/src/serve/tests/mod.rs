//! `memwall serve` in this process: its policy as functions, and a real server on a free port
//! spoken to with raw bytes, exactly as written (no client-side normalization of `..`, any Host).

#[cfg(feature = "embed-web")]
mod embedded;
mod http;
mod limits;
mod policy;
mod reports;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use memwall_report::Report;

use super::*;

/// A built front end in miniature.
pub fn dist() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(dir.path().join("app_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(dir.path().join("app.js"), "export default 1;").unwrap();
    std::fs::create_dir(dir.path().join("snippets")).unwrap();
    std::fs::write(dir.path().join("snippets").join("inline0.js"), "export const x = 1;").unwrap();
    dir
}

pub fn report_file(dir: &Path, name: &str) -> PathBuf {
    let report = Report::new(
        memwall_report::Source::Native,
        1,
        memwall_report::Host { name: Some("test-host".into()), ..Default::default() },
    );
    let path = dir.join(name);
    std::fs::write(&path, report.to_json_pretty()).unwrap();
    path
}

pub fn args(reports: Vec<PathBuf>, report_dirs: Vec<PathBuf>, dist: &Path) -> ServeArgs {
    ServeArgs {
        reports,
        report_dirs,
        port: 0,
        bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
        open: false,
        dist: Some(dist.to_path_buf()),
    }
}

/// Starts a server on a thread of its own; it lives as long as the test process.
pub fn start_with(args: &ServeArgs, limits: Limits) -> SocketAddr {
    let mut served = Served::bind(args).unwrap();
    served.limits = limits;
    let addr = served.addr();
    assert!(addr.ip().is_loopback());
    std::thread::spawn(move || served.run());
    addr
}

pub fn start(reports: Vec<PathBuf>, dist: &Path) -> SocketAddr {
    start_with(&args(reports, Vec::new(), dist), Limits::default())
}

/// One response: status, lowercased head, and the body (de-chunked when it came chunked).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        let prefix = format!("{}: ", name.to_ascii_lowercase());
        self.head.lines().find_map(|line| line.strip_prefix(prefix.as_str()))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `raw` and reads until the server closes: `raw` should end with a request that says
/// `Connection: close`, or be one the server refuses and closes on.
pub fn exchange(addr: SocketAddr, raw: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream.write_all(raw).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    parse(&response)
}

pub fn parse(response: &[u8]) -> Reply {
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut reply = Reply { status, head, body: response[split + 4..].to_vec() };
    if reply.header("transfer-encoding") == Some("chunked") {
        reply.body = dechunk(&reply.body);
    }
    reply
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n").expect("a chunk size line");
        let size = usize::from_str_radix(std::str::from_utf8(&data[..line_end]).unwrap().trim(), 16).unwrap();
        data = &data[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// A GET as a browser at the served address sends it, plus `extra` header lines.
pub fn get_with(addr: SocketAddr, path: &str, extra: &str) -> Reply {
    exchange(addr, format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Connection: close\r\n\r\n").as_bytes())
}

pub fn get(addr: SocketAddr, path: &str) -> Reply {
    get_with(addr, path, "")
}
