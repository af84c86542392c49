//! The front end built into the binary (`--features embed-web`), as a tower-http file backend.
//!
//! rust-embed puts every file of the folder named by `MEMWALL_EMBED_DIST` at build time into
//! the binary (the `.br`/`.gz` variants `scripts/precompress.mjs` wrote included); this backend
//! lets `ServeDir` read them as it reads files on disk, so the embedded front end gets the same
//! ETags, ranges and precompressed variants. A file's time is its time at build time; when the
//! build recorded none, one derived from the content stands in, so that ETags still change
//! exactly when the content does.

use std::borrow::Cow;
use std::future::{Ready, ready};
use std::io::{self, Cursor};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rust_embed::Embed;

#[derive(Embed)]
#[folder = "$MEMWALL_EMBED_DIST"]
struct Web;

/// Whether the front end built in has a page to serve (a build from an empty folder would not).
pub fn has_index() -> bool {
    Web::get("index.html").is_some()
}

#[derive(Debug, Clone, Copy)]
pub struct Backend;

#[derive(Debug, Clone, Copy)]
pub struct Metadata {
    dir: bool,
    len: u64,
    modified: SystemTime,
}

#[derive(Debug)]
pub struct File {
    data: Cursor<Cow<'static, [u8]>>,
    metadata: Metadata,
}

/// `./index.html` (how `ServeDir` joins paths) as rust-embed names it: `index.html`.
fn key(path: &Path) -> Option<String> {
    let path = path.strip_prefix(".").unwrap_or(path);
    let parts: Option<Vec<&str>> = path.iter().map(|part| part.to_str()).collect();
    Some(parts?.join("/"))
}

fn file(key: &str) -> Option<(Cow<'static, [u8]>, Metadata)> {
    let embedded = Web::get(key)?;
    let modified = match embedded.metadata.last_modified() {
        Some(seconds) => UNIX_EPOCH + Duration::from_secs(seconds),
        None => {
            let hash = embedded.metadata.sha256_hash();
            UNIX_EPOCH + Duration::from_secs(u64::from(u32::from_le_bytes([hash[0], hash[1], hash[2], hash[3]])))
        }
    };
    let metadata = Metadata { dir: false, len: embedded.data.len() as u64, modified };
    Some((embedded.data, metadata))
}

fn lookup(path: &Path) -> io::Result<Metadata> {
    let key = key(path).ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
    if let Some((_, metadata)) = file(&key) {
        return Ok(metadata);
    }
    let prefix = if key.is_empty() { String::new() } else { format!("{key}/") };
    if Web::iter().any(|name| name.starts_with(&prefix)) {
        return Ok(Metadata { dir: true, len: 0, modified: UNIX_EPOCH });
    }
    Err(io::ErrorKind::NotFound.into())
}

impl tower_http::services::fs::Backend for Backend {
    type File = File;
    type Metadata = Metadata;
    type OpenFuture = Ready<io::Result<File>>;
    type MetadataFuture = Ready<io::Result<Metadata>>;

    fn open(&self, path: PathBuf) -> Self::OpenFuture {
        let opened = key(&path)
            .and_then(|key| file(&key))
            .map(|(data, metadata)| File { data: Cursor::new(data), metadata })
            .ok_or_else(|| io::ErrorKind::NotFound.into());
        ready(opened)
    }

    fn metadata(&self, path: PathBuf) -> Self::MetadataFuture {
        ready(lookup(&path))
    }
}

impl tower_http::services::fs::Metadata for Metadata {
    fn is_dir(&self) -> bool {
        self.dir
    }

    fn modified(&self) -> io::Result<SystemTime> {
        Ok(self.modified)
    }

    fn len(&self) -> u64 {
        self.len
    }
}

impl tower_http::services::fs::File for File {
    type Metadata = Metadata;
    type MetadataFuture<'a> = Ready<io::Result<Metadata>>;

    fn metadata(&self) -> Self::MetadataFuture<'_> {
        ready(Ok(self.metadata))
    }
}

impl tokio::io::AsyncRead for File {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.data).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncSeek for File {
    fn start_seek(mut self: std::pin::Pin<&mut Self>, position: io::SeekFrom) -> io::Result<()> {
        std::pin::Pin::new(&mut self.data).start_seek(position)
    }

    fn poll_complete(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<u64>> {
        std::pin::Pin::new(&mut self.data).poll_complete(cx)
    }
}
