//! `memwall serve` under load and abuse, as a separate process with its default limits: hundreds
//! of half-open connections held while a page loads, a thousand requests at once, and a client
//! that never reads its response. Each takes seconds; the times are printed (`--nocapture`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `memwall serve` on a free port over a small front end; killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
    _dist: tempfile::TempDir,
}

impl Server {
    fn start() -> Self {
        let dist = tempfile::tempdir().unwrap();
        std::fs::write(dist.path().join("index.html"), "<!doctype html><title>memwall</title>").unwrap();
        std::fs::write(dist.path().join("app.js"), "export default 1;\n".repeat(100)).unwrap();
        // Sparse, so it costs no disk: far more than the socket buffers hold.
        std::fs::File::create(dist.path().join("huge.bin")).unwrap().set_len(1 << 30).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_memwall"))
            .args(["serve", "--port", "0", "--dist"])
            .arg(dist.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("memwall serve starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let url = lines
            .find_map(|line| line.ok()?.split(" at http://").nth(1).map(str::to_string))
            .expect("memwall serve prints its URL");
        let addr = url.trim_end_matches('/').parse().expect("an address");
        // Keep reading stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Self { child, addr, _dist: dist }
    }

    fn request(&self, path: &str) -> String {
        format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.addr)
    }

    /// A whole GET, timed: (status line, elapsed).
    fn get(&self, path: &str) -> (String, Duration) {
        let started = Instant::now();
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        stream.write_all(self.request(path).as_bytes()).unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        let status = String::from_utf8_lossy(&response).lines().next().unwrap_or("").to_string();
        (status, started.elapsed())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Room for a thousand sockets in this process too.
fn raise_descriptor_limit() {
    if let Ok((_, hard)) = rlimit::getrlimit(rlimit::Resource::NOFILE) {
        let _ = rlimit::setrlimit(rlimit::Resource::NOFILE, hard.min(8192), hard);
    }
}

#[test]
fn three_hundred_half_open_connections_do_not_delay_a_page() {
    raise_descriptor_limit();
    let server = Server::start();
    let held: Vec<TcpStream> = (0..300)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            s.write_all(format!("GET / HTTP/1.1\r\nHost: {}\r\n", server.addr).as_bytes()).unwrap();
            s
        })
        .collect();
    let (status, took) = server.get("/");
    println!("serve_load: GET / with 300 half-open connections held: {status}, {} ms", took.as_millis());
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(took < Duration::from_secs(1), "GET / took {took:?} with 300 half-open connections");
    assert_eq!(held.len(), 300);
}

#[test]
fn a_thousand_parallel_requests_all_succeed() {
    raise_descriptor_limit();
    let server = Server::start();
    let started = Instant::now();
    // All connected and all asked before any answer is read: a thousand requests in flight.
    let mut streams: Vec<TcpStream> = (0..1000).map(|_| TcpStream::connect(server.addr).unwrap()).collect();
    for stream in &mut streams {
        stream.write_all(server.request("/app.js").as_bytes()).unwrap();
    }
    let ok = streams
        .into_iter()
        .filter(|mut stream| {
            stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            let mut response = Vec::new();
            stream.read_to_end(&mut response).is_ok() && response.starts_with(b"HTTP/1.1 200 OK")
        })
        .count();
    let took = started.elapsed();
    println!("serve_load: 1000 parallel requests: {ok} answered 200 in {} ms", took.as_millis());
    assert_eq!(ok, 1000);
}

#[test]
fn a_client_that_never_reads_blocks_no_one() {
    raise_descriptor_limit();
    let server = Server::start();
    let mut stuck: Vec<TcpStream> = (0..20).map(|_| TcpStream::connect(server.addr).unwrap()).collect();
    for stream in &mut stuck {
        stream.write_all(format!("GET /huge.bin HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr).as_bytes()).unwrap();
    }
    std::thread::sleep(Duration::from_millis(500));
    let mut slowest = Duration::ZERO;
    for _ in 0..20 {
        let (status, took) = server.get("/app.js");
        assert_eq!(status, "HTTP/1.1 200 OK");
        slowest = slowest.max(took);
    }
    println!("serve_load: 20 GETs while 20 clients never read 1 GiB responses: slowest {} ms", slowest.as_millis());
    assert!(slowest < Duration::from_secs(1), "a GET took {slowest:?}");
    drop(stuck);
}
