//! The web front end: trunk's `dist/` on disk, or the copy built into the binary.
//!
//! Both are served by tower-http's `ServeDir` (ETag, Range, the `.br`/`.gz` variants written
//! beside each file at build time, see `scripts/precompress.mjs`), after our own path policy:
//! [`clean`] refuses `..` however it is encoded, NULs and backslashes with a 400 that says so
//! (`ServeDir` alone would answer a bare 404), and on disk [`resolve`] also refuses links that
//! lead out of the folder, which `ServeDir` would follow.

use std::path::{Path, PathBuf};

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use tower_http::services::ServeFile;

use super::body::{Body, page};
use crate::error::{CliError, CliResult};

/// Where the front end comes from.
#[derive(Debug, Clone)]
pub enum Assets {
    /// A built `dist/` folder.
    Disk(PathBuf),
    /// The front end built into this binary (`--features embed-web`).
    #[cfg(feature = "embed-web")]
    Embedded,
}

impl Assets {
    /// `--dist` when given; else the front end built in, if any; else a `dist/` found on disk.
    pub fn find(given: Option<&Path>) -> CliResult<Self> {
        #[cfg(feature = "embed-web")]
        if given.is_none() && super::embedded::has_index() {
            return Ok(Self::Embedded);
        }
        find_dist(given).map(Self::Disk)
    }

    /// For the line `memwall serve` prints.
    pub fn describe(&self) -> String {
        match self {
            Self::Disk(dir) => dir.display().to_string(),
            #[cfg(feature = "embed-web")]
            Self::Embedded => "the web front end built into memwall".to_string(),
        }
    }

    pub async fn serve(&self, request: Request<Incoming>) -> Response<Body> {
        let path = request.uri().path().to_string();
        let segments = match clean(&path) {
            Ok(segments) => segments,
            Err(refusal) => return refused(refusal),
        };
        let request = request.map(|_| http_body_util::Empty::<bytes::Bytes>::new());
        let served = match self {
            Self::Disk(root) => {
                let root = root.clone();
                let file = match tokio::task::spawn_blocking(move || resolve_segments(&root, &segments)).await {
                    Ok(Ok(file)) => file,
                    Ok(Err(refusal)) => return refused(refusal),
                    Err(_) => return page(StatusCode::INTERNAL_SERVER_ERROR, "the file could not be read"),
                };
                ServeFile::new(file).precompressed_br().precompressed_gzip().try_call(request).await
            }
            #[cfg(feature = "embed-web")]
            Self::Embedded => {
                tower_http::services::ServeDir::with_backend("", super::embedded::Backend)
                    .precompressed_br()
                    .precompressed_gzip()
                    .try_call(request)
                    .await
            }
        };
        finish(served)
    }
}

/// A response from tower-http's file services, with its bare errors replaced by our pages.
pub fn finish(
    served: std::io::Result<Response<tower_http::services::fs::ServeFileSystemResponseBody>>,
) -> Response<Body> {
    match served {
        Ok(response) if response.status() == StatusCode::NOT_FOUND => page(StatusCode::NOT_FOUND, "not found"),
        // Gone between the check and the read (a single file, which `ServeFile` does not check).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => page(StatusCode::NOT_FOUND, "not found"),
        Ok(response) => response.map(|body| body.map_err(std::io::Error::other).boxed_unsync()),
        // The details are for whoever runs the server, not for the page.
        Err(e) => {
            eprintln!("memwall: serving a file: {e}");
            page(StatusCode::INTERNAL_SERVER_ERROR, "the file could not be read")
        }
    }
}

fn refused(refusal: Refusal) -> Response<Body> {
    match refusal {
        Refusal::NotFound => page(StatusCode::NOT_FOUND, "not found"),
        Refusal::Traversal => page(StatusCode::BAD_REQUEST, "refused: the path leaves the served folder"),
        Refusal::BadPath => page(StatusCode::BAD_REQUEST, "refused: malformed path"),
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

/// The segments of a URL path, refusing any way up. The path is percent-decoded once, then
/// split on `/`; a `..` segment is refused outright (rather than normalized), and backslashes
/// and NULs are refused so that no platform reads the path differently than this check did.
pub fn clean(url_path: &str) -> Result<Vec<String>, Refusal> {
    let path = url_path.split(['?', '#']).next().unwrap_or("/");
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().map_err(|_| Refusal::BadPath)?;
    // `percent_decode_str` passes a `%` without two hex digits through; refuse it instead.
    let malformed = path
        .match_indices('%')
        .any(|(i, _)| !path.get(i + 1..i + 3).is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit())));
    if malformed || decoded.contains(['\0', '\\']) {
        return Err(Refusal::BadPath);
    }
    let mut segments = Vec::new();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err(Refusal::Traversal),
            s if s.contains(':') && cfg!(windows) => return Err(Refusal::BadPath),
            s => segments.push(s.to_string()),
        }
    }
    Ok(segments)
}

/// The file under `root` that the URL path names, refusing any way out of `root`.
#[cfg(test)]
pub fn resolve(root: &Path, url_path: &str) -> Result<PathBuf, Refusal> {
    resolve_segments(root, &clean(url_path)?)
}

/// The file under `root` that `segments` name; a folder means its index.html. The canonical
/// file must still lie under the canonical root, which refuses links that point outside.
pub(super) fn resolve_segments(root: &Path, segments: &[String]) -> Result<PathBuf, Refusal> {
    let mut path = root.to_path_buf();
    path.extend(segments);
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
