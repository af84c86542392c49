//! The reports: the `--report` files and the `--reports` folders, their index, and the files.
//!
//! URLs, relative to the page: `reports/index.json` ([`memwall_report::index`]), then
//! `reports/<i>/<name>` for the i-th `--report` file (the name is only for people reading the
//! URL) and `reports/dir/<j>/<name>` for a file in the j-th `--reports` folder. A folder is
//! listed when the index is asked for, so a report written there while the server runs appears
//! on the next reload; only `*.json` files directly inside it count, not hidden ones (memwall
//! writes a report as a hidden temporary file, then renames it into place).
//!
//! `reports/fleet.json` is the same index with every report's fleet row, read here by the core
//! as `memwall fleet` reads it, so that the page's Fleet tab draws a thousand hosts from one
//! small answer rather than fetching ~100 MB of reports. Rows are kept per file (by size and
//! modification time) so that a reload reads only what changed; the first index is read in the
//! background as soon as the server starts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use memwall_report::fleet::FleetRow;
use memwall_report::index::{IndexedReport, ReportsIndex};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use tower_http::services::ServeFile;

use super::assets::{self, Refusal};
use super::body::{Body, page};
use crate::error::{CliError, CliResult};

/// What a file name keeps unescaped in a URL: RFC 3986's unreserved characters.
const NAME: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

#[derive(Debug, Clone)]
pub struct Reports {
    files: Arc<Vec<PathBuf>>,
    dirs: Arc<Vec<PathBuf>>,
    rows: Arc<Mutex<HashMap<PathBuf, Read>>>,
    /// Held while rows are read, so that a request arriving during the first reading waits for
    /// it rather than reading every report a second time.
    reading: Arc<Mutex<()>>,
}

/// A report file read into its fleet row, as it was when read.
#[derive(Debug, Clone)]
struct Read {
    bytes: u64,
    modified: Option<SystemTime>,
    row: Result<FleetRow, String>,
}

impl Reports {
    /// Checks every `--report` file (a wrong one is a usage error before listening) and that
    /// every `--reports` folder can be listed.
    pub fn new(files: &[PathBuf], dirs: &[PathBuf]) -> CliResult<Self> {
        for file in files {
            crate::output::read_report(file).map_err(|e| e.context(&format!("--report {}", file.display())))?;
        }
        for dir in dirs {
            std::fs::read_dir(dir).map_err(|e| {
                CliError::usage(format!("--reports {}: not a folder that can be listed ({e})", dir.display()))
            })?;
        }
        Ok(Self {
            files: Arc::new(files.to_vec()),
            dirs: Arc::new(dirs.to_vec()),
            rows: Arc::default(),
            reading: Arc::default(),
        })
    }

    /// The lines `memwall serve` prints about what it serves.
    pub fn describe(&self) -> Vec<String> {
        let files = self.files.iter().enumerate().map(|(i, file)| format!("report {i}: {}", file.display()));
        let dirs = self.dirs.iter().map(|dir| format!("reports: every *.json in {}", dir.display()));
        files.chain(dirs).collect()
    }

    /// The index as it is now: the folders are listed again on every call.
    pub async fn index(&self) -> ReportsIndex {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.index_now()).await.unwrap_or_default()
    }

    fn index_now(&self) -> ReportsIndex {
        ReportsIndex { reports: self.listing().into_iter().map(|(entry, _)| entry).collect() }
    }

    /// Every report offered, with where its file is.
    fn listing(&self) -> Vec<(IndexedReport, Located<'_>)> {
        let mut reports = Vec::new();
        for (i, file) in self.files.iter().enumerate() {
            let name =
                file.file_name().map_or_else(|| format!("report-{i}.json"), |n| n.to_string_lossy().into_owned());
            let url = format!("reports/{i}/{}", url_segment(&name));
            reports.push((entry(&name, url, file), Located::Given(file)));
        }
        for (j, dir) in self.dirs.iter().enumerate() {
            for name in listed(dir) {
                let url = format!("reports/dir/{j}/{}", url_segment(&name));
                reports.push((entry(&name, url, &dir.join(&name)), Located::InFolder(dir, name)));
            }
        }
        reports
    }

    /// The index with every report's fleet row, or why it has none.
    pub async fn fleet(&self) -> ReportsIndex {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.fleet_now()).await.unwrap_or_default()
    }

    /// Reads the fleet rows once in the background, so that the first Fleet tab finds them.
    pub fn read_fleet_soon(&self) {
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.fleet_now());
    }

    fn fleet_now(&self) -> ReportsIndex {
        let _reading = self.reading.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let listing: Vec<(IndexedReport, Option<PathBuf>)> =
            self.listing().into_iter().map(|(entry, located)| (entry, located.file())).collect();
        let stale: Vec<(&str, &Path)> = {
            let rows = self.rows.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            listing
                .iter()
                .filter_map(|(entry, file)| Some((entry.name.as_str(), file.as_deref()?)))
                .filter(|(_, file)| rows.get(*file).is_none_or(|read| !read.is_current(file)))
                .collect()
        };
        let fresh = read_rows(&stale);
        let mut rows = self.rows.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        rows.extend(fresh);
        // Reports deleted or moved away since are forgotten.
        let offered: std::collections::HashSet<&Path> = listing.iter().filter_map(|(_, f)| f.as_deref()).collect();
        rows.retain(|file, _| offered.contains(file.as_path()));
        let reports = listing
            .into_iter()
            .map(|(entry, file)| {
                let read = file.as_ref().and_then(|file| rows.get(file));
                match read.map(|read| &read.row) {
                    Some(Ok(row)) => IndexedReport { row: Some(row.clone()), ..entry },
                    Some(Err(reason)) => IndexedReport { unreadable: Some(reason.clone()), ..entry },
                    None => IndexedReport { unreadable: Some("it cannot be served from its folder".into()), ..entry },
                }
            })
            .collect();
        ReportsIndex { reports }
    }

    /// Answers `reports/<rest>`.
    pub async fn serve(&self, rest: &str, request: Request<Incoming>) -> Response<Body> {
        let file = match self.locate(rest).await {
            Ok(file) => file,
            Err(response) => return response,
        };
        let request = request.map(|_| http_body_util::Empty::<bytes::Bytes>::new());
        let mut response = assets::finish(ServeFile::new(&file).try_call(request).await);
        if response.status() == StatusCode::NOT_FOUND {
            eprintln!("memwall: report {} can no longer be read", file.display());
            return page(StatusCode::NOT_FOUND, "this report can no longer be read");
        }
        // Whatever the file is called, it is read as a report.
        if response.status().is_success() {
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        response
    }

    /// The file `reports/<rest>` names, or the page that says why there is none.
    async fn locate(&self, rest: &str) -> Result<PathBuf, Response<Body>> {
        let segments = assets::clean(rest).map_err(|refusal| match refusal {
            Refusal::NotFound => page(StatusCode::NOT_FOUND, "no such report"),
            Refusal::Traversal | Refusal::BadPath => page(StatusCode::BAD_REQUEST, "refused: malformed report path"),
        })?;
        let not_found = || page(StatusCode::NOT_FOUND, "no such report");
        match segments.as_slice() {
            [i, ..] if i.bytes().all(|b| b.is_ascii_digit()) => {
                i.parse::<usize>().ok().and_then(|i| self.files.get(i)).cloned().ok_or_else(not_found)
            }
            [dir, j, name] if dir == "dir" => {
                let dir = j.parse::<usize>().ok().and_then(|j| self.dirs.get(j)).cloned().ok_or_else(not_found)?;
                if !is_listed_name(name) {
                    return Err(not_found());
                }
                let segments = vec![name.clone()];
                match tokio::task::spawn_blocking(move || assets::resolve_segments(&dir, &segments)).await {
                    Ok(Ok(file)) => Ok(file),
                    Ok(Err(Refusal::Traversal)) => {
                        Err(page(StatusCode::BAD_REQUEST, "refused: the report leaves its folder"))
                    }
                    _ => Err(not_found()),
                }
            }
            _ => Err(not_found()),
        }
    }
}

/// Where a listed report's file is.
enum Located<'a> {
    /// A `--report` file.
    Given(&'a PathBuf),
    /// A file in a `--reports` folder.
    InFolder(&'a Path, String),
}

impl Located<'_> {
    /// The file to read: a folder's is the one its URL serves, so a link out of the folder is
    /// listed (as its URL is) but never read.
    fn file(&self) -> Option<PathBuf> {
        match self {
            Self::Given(file) => Some((*file).clone()),
            Self::InFolder(dir, name) => assets::resolve_segments(dir, std::slice::from_ref(name)).ok(),
        }
    }
}

impl Read {
    fn of(name: &str, file: &Path) -> Self {
        let meta = std::fs::metadata(file).ok();
        let row = crate::output::read_report(file)
            .map(|report| memwall_core::fleet::row(report, name))
            .map_err(|e| e.message().to_owned());
        Self {
            bytes: meta.as_ref().map_or(0, std::fs::Metadata::len),
            modified: meta.and_then(|m| m.modified().ok()),
            row,
        }
    }

    /// Whether the file is still as it was read (a rewrite changes its time or size).
    fn is_current(&self, file: &Path) -> bool {
        std::fs::metadata(file).is_ok_and(|m| m.len() == self.bytes && m.modified().ok() == self.modified)
    }
}

/// Reads `files` into rows, on as many threads as there are CPUs: a thousand reports are about
/// a second's reading on one.
fn read_rows(files: &[(&str, &Path)]) -> Vec<(PathBuf, Read)> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let chunk = files.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = files
            .chunks(chunk)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk.iter().map(|(name, file)| (file.to_path_buf(), Read::of(name, file))).collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_default()).collect()
    })
}

/// A report's entry in an index: where to fetch it, its size and time, no row yet.
pub fn entry(name: &str, url: String, file: &Path) -> IndexedReport {
    let meta = std::fs::metadata(file).ok();
    IndexedReport {
        name: name.to_string(),
        url,
        bytes: meta.as_ref().map(std::fs::Metadata::len),
        modified_unix_s: meta
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_secs()),
        row: None,
        unreadable: None,
    }
}

/// A file name as one segment of a URL.
pub fn url_segment(name: &str) -> String {
    utf8_percent_encode(name, NAME).to_string()
}

/// Whether a file name in a `--reports` folder is a report to list.
fn is_listed_name(name: &str) -> bool {
    !name.starts_with('.') && name.len() > ".json".len() && name.to_ascii_lowercase().ends_with(".json")
}

/// The report files in `dir` now, by name: what `--reports DIR` serves and `memwall fleet DIR`
/// reads. A folder that can no longer be read lists nothing.
pub fn listed(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| is_listed_name(name) && dir.join(name).is_file())
        .collect();
    names.sort();
    names
}
