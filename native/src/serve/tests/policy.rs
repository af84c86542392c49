//! The policy as plain functions: paths, hosts, the page's policy, the default address.

use clap::Parser;

use super::super::assets::{Refusal, clean, resolve};
use super::super::routes::CONTENT_SECURITY_POLICY;
use super::super::routes::host_allowed;
use super::*;

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
    for path in ["/..%5cmemwall-serve-secret.txt", "/%00", "/a%00b.js", "/%zz", "/%2", "/%c3%28"] {
        assert_eq!(resolve(root.path(), path), Err(Refusal::BadPath), "{path}");
    }
    // Doubly encoded dots are a literal (absent) file name, not a way up.
    assert_eq!(resolve(root.path(), "/%252e%252e/memwall-serve-secret.txt"), Err(Refusal::NotFound));
    std::fs::remove_file(secret).unwrap();
}

#[test]
fn paths_are_split_into_plain_segments() {
    assert_eq!(clean("/").unwrap(), Vec::<String>::new());
    assert_eq!(clean("/./a//b/%20c.js?x=../..#..").unwrap(), ["a", "b", " c.js"]);
    assert_eq!(clean("/caf%C3%A9.json").unwrap(), ["café.json"]);
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

#[test]
fn index_html_carries_the_same_policy_as_the_header() {
    let index = include_str!("../../../../index.html");
    let meta = format!(r#"<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}" />"#);
    assert!(index.contains(&meta), "index.html should carry:\n{meta}");
    // The trunk loader script is not inline (an inline one would need 'unsafe-inline').
    let trunk = include_str!("../../../../Trunk.toml");
    assert!(trunk.contains("pattern_script") && trunk.contains("boot.js"), "Trunk.toml");
}

#[test]
fn a_bad_report_folder_or_missing_bundle_is_refused_before_listening() {
    let root = dist();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"schema_version\": 99}").unwrap();
    let mut args = args(vec![bad], Vec::new(), root.path());
    let err = Served::bind(&args).unwrap_err();
    assert!(err.message.contains("unsupported report schema_version 99"), "{}", err.message);
    args.reports.clear();
    args.report_dirs = vec![dir.path().join("no-such-folder")];
    let err = Served::bind(&args).unwrap_err();
    assert!(err.message.starts_with("--reports ") && err.message.contains("not a folder"), "{}", err.message);
    args.report_dirs.clear();
    args.dist = Some(dir.path().to_path_buf());
    assert!(Served::bind(&args).unwrap_err().message.contains("no index.html"));
}

#[test]
fn impossible_reports_are_refused_before_listening() {
    let root = dist();
    let dir = tempfile::tempdir().unwrap();
    let good = report_file(dir.path(), "memwall-report.json");
    let mut report = Report::from_json(&std::fs::read_to_string(&good).unwrap()).unwrap();
    report.host.core_ghz = Some(-3.0);
    let bad = dir.path().join("negative.json");
    std::fs::write(&bad, report.to_json_pretty()).unwrap();
    let err = Served::bind(&args(vec![bad], Vec::new(), root.path())).unwrap_err();
    assert!(err.message.contains("impossible figure: host core_ghz is -3"), "{}", err.message);
}
