//! Stamps `memwall --version` with the target and, when given, the commit, and checks that a
//! build with the web front end built in (`--features embed-web`) says where the front end is.

use std::path::Path;

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let target = std::env::var("TARGET").unwrap_or_default();
    // scripts/release.sh sets it; ordinary builds leave it out rather than run git here.
    println!("cargo:rerun-if-env-changed=MEMWALL_BUILD_COMMIT");
    let commit = std::env::var("MEMWALL_BUILD_COMMIT").ok().filter(|c| !c.is_empty());
    let mut parts = vec![target];
    parts.extend(commit.map(|c| format!("commit {c}")));
    if std::env::var_os("CARGO_FEATURE_EMBED_WEB").is_some() {
        println!("cargo:rerun-if-env-changed=MEMWALL_EMBED_DIST");
        let dist = std::env::var("MEMWALL_EMBED_DIST").unwrap_or_default();
        if !Path::new(&dist).join("index.html").is_file() {
            // Build scripts report errors by panicking; this message is what cargo shows.
            panic!(
                "--features embed-web needs MEMWALL_EMBED_DIST set to a built web front end (a folder with \
                 index.html; `trunk build --release` makes dist/), got {dist:?}; scripts/release.sh does both"
            );
        }
        // A file added to or removed from the folder changes what is embedded.
        println!("cargo:rerun-if-changed={dist}");
        parts.push("web front end built in".to_string());
    }
    println!("cargo:rustc-env=MEMWALL_VERSION={version} ({})", parts.join(", "));
}
