//! A real server answering raw requests: headers, refusals, caching, compression, keep-alive.

use std::io::Read;

use memwall_report::index::ReportsIndex;

use super::super::routes::CONTENT_SECURITY_POLICY;
use super::super::server::{MAX_HEAD_BYTES, MAX_HEADERS};
use super::*;

#[test]
fn the_server_answers_with_isolation_headers_and_refuses_traversal() {
    let root = dist();
    let reports = tempfile::tempdir().unwrap();
    let addr = start(vec![report_file(reports.path(), "memwall-report.json")], root.path());

    let reply = get(addr, "/app_bg.wasm");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/wasm"));
    assert_eq!(reply.header("cross-origin-opener-policy"), Some("same-origin"));
    assert_eq!(reply.header("cross-origin-embedder-policy"), Some("require-corp"));
    assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
    let policy = CONTENT_SECURITY_POLICY.to_ascii_lowercase();
    assert_eq!(reply.header("content-security-policy"), Some(policy.as_str()));
    assert_eq!(reply.header("content-length"), Some("8"));
    assert_eq!(reply.body, b"\0asm\x01\0\0\0");
    assert!(reply.header("content-type").is_some() && get(addr, "/app.js").text() == "export default 1;");

    let reply = get(addr, "/");
    assert_eq!(reply.status, 200);
    assert!(reply.header("content-type").unwrap().starts_with("text/html"), "{}", reply.head);

    for path in ["/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/snippets/..%2F..%2Fetc%2Fpasswd"] {
        let reply = get(addr, path);
        assert_eq!(reply.status, 400, "{path}");
        assert!(reply.text().contains("refused"), "{path}");
        assert_eq!(reply.header("cross-origin-resource-policy"), Some("same-origin"), "refusals carry the headers too");
    }
    let reply = get(addr, "/nothing-here.js");
    assert_eq!((reply.status, reply.text().as_str()), (404, "404: not found\n"));

    let reply = get(addr, "/reports/index.json");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let index = ReportsIndex::from_json(&reply.text()).unwrap();
    assert_eq!(index.reports[0].name, "memwall-report.json");
    assert!(index.reports[0].bytes.unwrap() > 100, "{:?}", index.reports[0]);
    let reply = get(addr, &format!("/{}", index.reports[0].url));
    assert_eq!(reply.status, 200);
    assert_eq!(Report::from_json(&reply.text()).unwrap().host.name.as_deref(), Some("test-host"));
    assert_eq!(get(addr, "/reports/7/x.json").status, 404);
    assert_eq!(get(addr, "/reports/x").status, 404);
}

#[test]
fn other_host_names_are_refused() {
    let root = dist();
    let addr = start(vec![], root.path());
    let port = addr.port();
    for host in [
        "attacker.example".to_string(),
        format!("attacker.example:{port}"),
        format!("localhost.attacker.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        format!("10.0.0.1:{port}"),
        "".to_string(),
    ] {
        let reply = exchange(addr, format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes());
        assert_eq!(reply.status, 403, "{host}");
        assert!(reply.text().contains("refused"), "{host}");
    }
    assert_eq!(exchange(addr, b"GET / HTTP/1.0\r\n\r\n").status, 400, "no Host at all");
    let twice = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nHost: attacker.example\r\nConnection: close\r\n\r\n");
    assert_eq!(exchange(addr, twice.as_bytes()).status, 400);
    let absolute = format!("GET http://attacker.example:{port}/ HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    assert_eq!(exchange(addr, absolute.as_bytes()).status, 403, "an absolute target naming another host");
    for host in [addr.to_string(), format!("localhost:{port}"), format!("LOCALHOST.:{port}")] {
        let reply = exchange(addr, format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes());
        assert_eq!(reply.status, 200, "{host}");
    }
}

#[test]
fn oversized_heads_bodies_and_other_methods_are_refused() {
    let root = dist();
    let addr = start(vec![], root.path());
    let huge = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nX-Filler: {}\r\n\r\n", "a".repeat(MAX_HEAD_BYTES));
    assert_eq!(exchange(addr, huge.as_bytes()).status, 431);
    let many: String = (0..MAX_HEADERS + 1).map(|i| format!("X-{i}: 1\r\n")).collect();
    assert_eq!(exchange(addr, format!("GET / HTTP/1.1\r\nHost: {addr}\r\n{many}\r\n").as_bytes()).status, 431);
    let body = format!("POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 5\r\n\r\nhello");
    assert_eq!(exchange(addr, body.as_bytes()).status, 413);
    let chunked =
        format!("GET / HTTP/1.1\r\nHost: {addr}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
    assert_eq!(exchange(addr, chunked.as_bytes()).status, 413);
    let reply = exchange(addr, format!("DELETE / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes());
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("get, head"));
    assert_eq!(exchange(addr, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n").status, 400);
    // HEAD: the length of what GET would send, and no body.
    let reply =
        exchange(addr, format!("HEAD /app.js HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes());
    assert_eq!((reply.status, reply.body.len()), (200, 0));
    assert_eq!(reply.header("content-length"), Some("17"));
}

#[test]
fn error_pages_name_no_paths_and_files_are_streamed_whole() {
    let root = dist();
    let big: Vec<u8> = (0..5_000_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(root.path().join("big.wasm"), &big).unwrap();
    let reports = tempfile::tempdir().unwrap();
    let report = report_file(reports.path(), "memwall-report.json");
    let addr = start(vec![report.clone()], root.path());
    let reply = get(addr, "/big.wasm");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-length"), Some("5000000"));
    assert!(reply.body == big, "the streamed file differs");
    std::fs::remove_file(&report).unwrap();
    let reply = get(addr, "/reports/0/memwall-report.json");
    assert_eq!(reply.status, 404);
    let dir = reports.path().to_string_lossy().to_string();
    let body = reply.text();
    assert!(!body.contains(&dir) && !body.contains("os error") && !body.contains('/'), "{body}");
}

#[test]
fn one_connection_serves_several_requests() {
    let root = dist();
    let addr = start(vec![], root.path());
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let request = |close: &str| format!("GET /app.js HTTP/1.1\r\nHost: {addr}\r\n{close}\r\n");
    // Two requests, then a third on the same connection once the first two are answered.
    stream.write_all(format!("{}{}", request(""), request("")).as_bytes()).unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while seen.windows(17).filter(|w| w == b"export default 1;").count() < 2 {
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "the connection closed after {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    stream.write_all(request("Connection: close\r\n").as_bytes()).unwrap();
    stream.read_to_end(&mut seen).unwrap();
    assert_eq!(String::from_utf8_lossy(&seen).matches("HTTP/1.1 200 OK").count(), 3);
}

#[test]
fn a_reload_costs_304s() {
    let root = dist();
    let addr = start(vec![], root.path());
    for path in ["/", "/app_bg.wasm"] {
        let first = get(addr, path);
        let etag = first.header("etag").expect("an ETag").to_string();
        assert!(first.header("last-modified").is_some() && first.header("cache-control") == Some("no-cache"));
        let again = get_with(addr, path, &format!("If-None-Match: {etag}\r\n"));
        assert_eq!((again.status, again.body.len()), (304, 0), "{path}");
        assert_eq!(again.header("etag"), Some(etag.as_str()));
    }
    let first = get(addr, "/app.js");
    std::fs::write(root.path().join("app.js"), "export default 22;").unwrap();
    let changed = get_with(addr, "/app.js", &format!("If-None-Match: {}\r\n", first.header("etag").unwrap()));
    assert_eq!((changed.status, changed.text().as_str()), (200, "export default 22;"), "a rebuilt file is sent again");
}

#[test]
fn precompressed_files_are_sent_and_the_rest_is_gzipped() {
    let root = dist();
    std::fs::write(root.path().join("app_bg.wasm.br"), b"brotli bytes").unwrap();
    std::fs::write(root.path().join("app_bg.wasm.gz"), b"gzip bytes").unwrap();
    let reports = tempfile::tempdir().unwrap();
    let addr = start(vec![report_file(reports.path(), "r.json")], root.path());
    let reply = get_with(addr, "/app_bg.wasm", "Accept-Encoding: gzip, deflate, br, zstd\r\n");
    assert_eq!((reply.header("content-encoding"), reply.body.as_slice()), (Some("br"), b"brotli bytes".as_slice()));
    assert_eq!(reply.header("content-type"), Some("application/wasm"));
    assert_eq!(reply.header("vary"), Some("accept-encoding"));
    let reply = get_with(addr, "/app_bg.wasm", "Accept-Encoding: gzip\r\n");
    assert_eq!((reply.header("content-encoding"), reply.body.as_slice()), (Some("gzip"), b"gzip bytes".as_slice()));
    let reply = get(addr, "/app_bg.wasm");
    assert_eq!((reply.header("content-encoding"), reply.body.len()), (None, 8), "no Accept-Encoding, no encoding");

    // A report has no precompressed variant: gzipped on the fly, and it decodes to the file.
    let plain = get(addr, "/reports/0/r.json").body;
    let reply = get_with(addr, "/reports/0/r.json", "Accept-Encoding: gzip, br\r\n");
    assert_eq!(reply.header("content-encoding"), Some("gzip"));
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(reply.body.as_slice()).read_to_end(&mut unzipped).unwrap();
    assert!(unzipped == plain && reply.body.len() < plain.len(), "{} of {} bytes", reply.body.len(), plain.len());
}

#[test]
fn large_reports_are_served_in_ranges() {
    let root = dist();
    let reports = tempfile::tempdir().unwrap();
    let report = report_file(reports.path(), "r.json");
    let whole = std::fs::read(&report).unwrap();
    let addr = start(vec![report], root.path());
    let reply = get_with(addr, "/reports/0/r.json", "Range: bytes=10-19\r\n");
    assert_eq!(reply.status, 206);
    assert_eq!(reply.header("content-range"), Some(format!("bytes 10-19/{}", whole.len()).as_str()));
    assert_eq!(reply.body, whole[10..20]);
    assert_eq!(get_with(addr, "/reports/0/r.json", "Range: bytes=99999999-\r\n").status, 416);
}
