//! The front end built in (`--features embed-web`): served with no dist/ anywhere, through the
//! same tower-http code as files on disk, so with the same ETags and precompressed variants.

use super::*;

/// The folder that was embedded, as the build saw it.
fn embedded_dist() -> PathBuf {
    PathBuf::from(env!("MEMWALL_EMBED_DIST"))
}

#[test]
fn the_built_in_front_end_is_served_without_a_dist_folder() {
    let nowhere = tempfile::tempdir().unwrap();
    let mut args = args(vec![], vec![], nowhere.path());
    args.dist = None;
    let addr = start_with(&args, Limits::default());
    let index = std::fs::read(embedded_dist().join("index.html")).unwrap();
    let reply = get(addr, "/");
    assert_eq!((reply.status, &reply.body), (200, &index));
    assert!(reply.header("content-type").unwrap().starts_with("text/html"), "{}", reply.head);
    assert!(reply.header("cross-origin-embedder-policy") == Some("require-corp"));

    // A reload costs a 304.
    let etag = reply.header("etag").expect("an ETag").to_string();
    assert_eq!(get_with(addr, "/", &format!("If-None-Match: {etag}\r\n")).status, 304);

    // Every file as it is on disk, and its brotli variant where the build wrote one.
    let mut files = 0;
    for entry in std::fs::read_dir(embedded_dist()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !path.is_file() || name.ends_with(".br") || name.ends_with(".gz") {
            continue;
        }
        let reply = get(addr, &format!("/{name}"));
        assert_eq!((reply.status, reply.body == std::fs::read(&path).unwrap()), (200, true), "{name}");
        let brotli = PathBuf::from(format!("{}.br", path.display()));
        if brotli.is_file() {
            let reply = get_with(addr, &format!("/{name}"), "Accept-Encoding: gzip, br\r\n");
            assert_eq!(reply.header("content-encoding"), Some("br"), "{name}");
            assert!(reply.body == std::fs::read(&brotli).unwrap(), "{name}.br");
        }
        files += 1;
    }
    assert!(files >= 1);
    assert_eq!(get(addr, "/no-such-file.js").status, 404);
    assert_eq!(get(addr, "/%2e%2e/Cargo.toml").status, 400);
}
