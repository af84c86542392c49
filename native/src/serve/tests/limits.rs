//! Clients that hold connections: silent, idle after a reply, or never reading the reply.

use std::io::Read;
use std::time::Instant;

use super::*;

fn quick() -> Limits {
    Limits {
        head_deadline: Duration::from_millis(300),
        write_stall: Duration::from_millis(300),
        max_connections: 64,
        linger: Duration::from_millis(200),
    }
}

/// Whether the server closes `stream` within `within` (EOF or a reset, not our timeout).
fn closed_by_server(mut stream: TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut sink = Vec::new();
    match stream.read_to_end(&mut sink) {
        Ok(_) => true,
        Err(e) => !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
    }
}

#[test]
fn silent_clients_are_dropped_and_do_not_block_others() {
    let root = dist();
    let addr = start_with(&args(vec![], vec![], root.path()), quick());
    // Many more silent connections than the old server had workers.
    let idle: Vec<TcpStream> = (0..40)
        .map(|_| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"GET / HTTP/1.1\r\n").unwrap();
            s
        })
        .collect();
    let started = Instant::now();
    assert_eq!(get(addr, "/app.js").status, 200);
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    for s in idle {
        assert!(closed_by_server(s, Duration::from_secs(5)), "a silent client was kept past the head deadline");
    }
}

#[test]
fn idle_keep_alive_connections_are_closed_after_the_head_deadline() {
    let root = dist();
    let addr = start_with(&args(vec![], vec![], root.path()), quick());
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(format!("GET /app.js HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    let started = Instant::now();
    let mut seen = Vec::new();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream.read_to_end(&mut seen).unwrap();
    assert!(String::from_utf8_lossy(&seen).contains("export default 1;"));
    assert!(started.elapsed() < Duration::from_secs(3), "kept open {:?}", started.elapsed());
}

#[test]
fn a_client_that_never_reads_is_dropped_and_blocks_no_one() {
    let root = dist();
    // Far more than the socket buffers on both ends hold (a few MiB each on loopback); sparse.
    let file = std::fs::File::create(root.path().join("huge.bin")).unwrap();
    file.set_len(256 << 20).unwrap();
    let addr = start_with(&args(vec![], vec![], root.path()), quick());
    let mut stuck = TcpStream::connect(addr).unwrap();
    stuck.write_all(format!("GET /huge.bin HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    for _ in 0..5 {
        assert_eq!(get(addr, "/app.js").status, 200);
    }
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    // Past the stall limit the server gives up: reading now ends well short of 256 MiB.
    std::thread::sleep(Duration::from_secs(1));
    stuck.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut got = 0usize;
    let mut buf = vec![0u8; 1 << 20];
    while let Ok(n) = stuck.read(&mut buf) {
        if n == 0 {
            break;
        }
        got += n;
    }
    assert!(got < 128 << 20, "read {got} bytes: the stalled response was not abandoned");
}
