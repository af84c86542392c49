//! Where results go: a human table on stdout, unless stdout carries JSON (`--json -`), in which
//! case everything human goes to stderr so `memwall ... --json - | jq` sees only JSON.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use memwall_report::Report;

use crate::error::{CliError, CliResult};

/// `--json PATH` or `--json -`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
}

impl std::str::FromStr for Destination {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "" => Err("expected a file path or '-' for stdout".into()),
            "-" => Ok(Self::Stdout),
            path => Ok(Self::File(PathBuf::from(path))),
        }
    }
}

/// Where a command's results go besides the table on the terminal: the same three flags, with the
/// same meaning, on every command that writes results.
#[derive(Debug, Clone, Default, Args)]
pub struct ExportArgs {
    /// Write the report as JSON to PATH, or to stdout with `-` (the table then goes to stderr).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<Destination>,
    /// Write the results as CSV (the columns the page exports) to PATH, or to stdout with `-`.
    #[arg(long, value_name = "PATH|-")]
    pub csv: Option<Destination>,
    /// Write the results as a Markdown table to PATH, or to stdout with `-`.
    #[arg(long, value_name = "PATH|-")]
    pub markdown: Option<Destination>,
}

impl ExportArgs {
    /// Refuses more than one export to stdout (they would interleave).
    pub fn check(&self) -> CliResult {
        if self.to_stdout() > 1 {
            return Err(CliError::usage("only one of --json, --csv and --markdown can write to stdout (-)"));
        }
        Ok(())
    }

    /// How many exports go to stdout (one at most, once checked).
    pub fn to_stdout(&self) -> usize {
        [&self.json, &self.csv, &self.markdown].into_iter().filter(|d| *d == &Some(Destination::Stdout)).count()
    }

    /// Where the human output goes: stdout, unless an export took it.
    pub fn human(&self) -> Box<dyn Write> {
        human(self.to_stdout() > 0)
    }

    /// Writes each export asked for; each is made only when asked.
    pub fn write(
        &self,
        report: impl FnOnce() -> Report,
        csv: impl FnOnce() -> String,
        table: impl FnOnce() -> Table,
    ) -> CliResult {
        if let Some(destination) = &self.csv {
            write_text(destination, &csv())?;
        }
        if let Some(destination) = &self.markdown {
            write_text(destination, &table().markdown())?;
        }
        if let Some(destination) = &self.json {
            write_report(destination, &report())?;
        }
        Ok(())
    }
}

/// A command's results as rows under a header: printed as text, exported as Markdown (with the
/// notes that say what the rows mean under it).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
    pub notes: Vec<String>,
}

impl Table {
    pub fn text(&self) -> String {
        table(&self.header, &self.rows)
    }

    /// The rows as CSV under the header (for commands without columns of their own in
    /// `memwall_report`'s CSV exports).
    pub fn csv(&self) -> String {
        memwall_report::rows_csv(&self.header, self.rows.iter().cloned())
    }

    pub fn markdown(&self) -> String {
        let mut out = markdown_table(&self.header, &self.rows);
        for note in &self.notes {
            out += &format!("\n{note}\n");
        }
        out
    }
}

/// Human-readable output: stdout, or stderr when stdout is taken by JSON.
pub fn human(json_on_stdout: bool) -> Box<dyn Write> {
    if json_on_stdout { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) }
}

pub fn write_text(destination: &Destination, text: &str) -> CliResult {
    match destination {
        Destination::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| CliError::runtime(format!("writing to stdout: {e}")))
        }
        Destination::File(path) => write_file(path, text),
    }
}

pub fn write_file(path: &Path, text: &str) -> CliResult {
    write_atomically(path, |out| out.write_all(text.as_bytes()).map_err(|e| e.to_string()))
        .map_err(|why| CliError::runtime(format!("writing {}: {why}", path.display())))
}

/// Writes `path` whole or not at all: `write` fills a temporary file beside it (same folder, so
/// same file system), which is then renamed over `path`. An error, a panic or an interrupted
/// process never leaves a half-written `path`, and an existing one stays as it was until the new
/// one is complete; the temporary file is removed on error (and named `.NAME.*.part`, should a
/// kill -9 leave it behind).
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&std::fs::File>) -> Result<(), String>,
) -> Result<(), String> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or("not a file name")?.to_string_lossy();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".part");
    // As `File::create` would: the umask decides, not the 0600 of a private temporary file.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let temp = builder.tempfile_in(dir).map_err(|e| e.to_string())?;
    let _registered = InProgress::register(temp.path());
    {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, temp.as_file());
        write(&mut out)?;
        out.flush().map_err(|e| e.to_string())?;
    }
    temp.as_file().sync_all().map_err(|e| e.to_string())?;
    temp.persist(path).map_err(|e| e.error.to_string())?;
    Ok(())
}

/// Temporary files being written, for [`remove_files_in_progress`]: a signal ends the process
/// without running destructors, so the temporary file's own cleanup would not run.
static IN_PROGRESS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// A registration in [`IN_PROGRESS`] for as long as it lives.
struct InProgress(PathBuf);

impl InProgress {
    fn register(path: &Path) -> Self {
        IN_PROGRESS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(path.to_path_buf());
        Self(path.to_path_buf())
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        IN_PROGRESS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|p| *p != self.0);
    }
}

/// Removes the temporary files of writes still in progress: Ctrl-C calls it before exiting, so
/// an interrupted `generate` leaves neither a partial output nor its `.part` file.
pub fn remove_files_in_progress() {
    // try_lock: the handler must not wait on a writer that holds the lock; the window is a push.
    if let Ok(paths) = IN_PROGRESS.try_lock() {
        for path in paths.iter() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Reads a report file someone gave: refuses one too large to be real before reading it, then
/// parses it and checks its figures. The error says why, without the path (callers name it).
pub fn read_report(path: &Path) -> CliResult<Report> {
    if let Ok(meta) = std::fs::metadata(path) {
        memwall_report::check_size(meta.len()).map_err(|e| CliError::usage(e.to_string()))?;
    }
    let bytes = std::fs::read(path).map_err(|e| {
        CliError::usage(match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        })
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|_| CliError::usage("not a memwall report: not UTF-8 text"))?;
    Report::from_untrusted_json(text).map_err(|e| CliError::usage(e.to_string()))
}

pub fn write_report(destination: &Destination, report: &Report) -> CliResult {
    let mut json = report.to_json_pretty();
    json.push('\n');
    write_text(destination, &json)
}

/// A report of this host, made now, saying when its timings look emulated.
pub fn new_report(host: memwall_report::Host) -> Report {
    let mut report = Report::new(memwall_report::Source::Native, unix_now(), host);
    report.timing_warnings.extend(crate::emulation::warning());
    report
}

/// Seconds since the Unix epoch, for `created_unix_s`.
/// `2026-12-01` from Unix seconds (UTC), `-` past what a date can say.
pub fn utc_date(unix_s: u64) -> String {
    i64::try_from(unix_s)
        .ok()
        .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
        .map_or_else(|| "-".into(), |d| d.format("%Y-%m-%d").to_string())
}

/// Where `memwall run --out OUT` writes: OUT itself, or inside OUT when it is a folder (or ends in
/// `/`), a name made of the host and the day, numbered if a report of that host and day is there.
pub fn report_path(out: &Path, host: Option<&str>, now_unix_s: u64) -> CliResult<PathBuf> {
    let folder = out.is_dir() || out.as_os_str().to_string_lossy().ends_with('/');
    if !folder {
        return Ok(out.to_path_buf());
    }
    if !out.is_dir() {
        return Err(CliError::usage(format!("--out {}: no such folder", out.display())));
    }
    let host: String = host
        .unwrap_or("host")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' })
        .collect();
    let stem = format!("{}-{}", host.trim_start_matches('.'), utc_date(now_unix_s));
    (1..1000)
        .map(|n| out.join(if n == 1 { format!("{stem}.json") } else { format!("{stem}-{n}.json") }))
        .find(|path| !path.exists())
        .ok_or_else(|| CliError::usage(format!("--out {}: 999 reports named {stem} already", out.display())))
}

pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// A fixed-width text table with right-aligned numeric columns.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| if i == 0 { format!("{cell:<w$}") } else { format!("{cell:>w$}") })
            .collect();
        parts.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(header.to_vec());
    out += &line(widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().iter().map(String::as_str).collect());
    for row in rows {
        out += &line(row.iter().map(String::as_str).collect());
    }
    out
}

/// A GitHub-flavoured Markdown table.
pub fn markdown_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!("| {} |\n", header.join(" | "));
    out += &format!(
        "|{}\n",
        header.iter().enumerate().map(|(i, _)| if i == 0 { "---|" } else { "---:|" }).collect::<String>()
    );
    for row in rows {
        out += &format!("| {} |\n", row.join(" | "));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_utc_days() {
        assert_eq!(super::utc_date(0), "1970-01-01");
        assert_eq!(super::utc_date(1_764_606_179), "2025-12-01");
        assert_eq!(super::utc_date(u64::MAX), "-");
    }

    #[test]
    fn a_folder_names_the_report_after_the_host_and_the_day() {
        let dir = tempfile::tempdir().unwrap();
        let day = 1_764_606_179;
        let first = super::report_path(dir.path(), Some("db 7/../x"), day).unwrap();
        assert_eq!(first, dir.path().join("db_7_.._x-2025-12-01.json"));
        std::fs::write(&first, "{}").unwrap();
        assert_eq!(
            super::report_path(dir.path(), Some("db 7/../x"), day).unwrap(),
            dir.path().join("db_7_.._x-2025-12-01-2.json")
        );
        let file = dir.path().join("mine.json");
        assert_eq!(super::report_path(&file, Some("h"), day).unwrap(), file);
        let missing = dir.path().join("nope/");
        assert!(super::report_path(&missing, Some("h"), day).unwrap_err().message().contains("no such folder"));
    }

    use super::*;

    #[test]
    fn destinations_parse() {
        assert_eq!("-".parse::<Destination>().unwrap(), Destination::Stdout);
        assert_eq!("a.json".parse::<Destination>().unwrap(), Destination::File("a.json".into()));
        assert!("".parse::<Destination>().is_err());
    }

    #[test]
    fn files_are_replaced_whole_or_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        write_file(&path, "first").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        let err = write_atomically(&path, |out| {
            out.write_all(b"half").unwrap();
            Err("interrupted".into())
        })
        .unwrap_err();
        assert_eq!(err, "interrupted");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["r.json"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_ne!(mode & 0o044, 0, "a report is readable like any created file: {mode:o}");
        }
        let missing = dir.path().join("no-such-dir").join("r.json");
        assert!(write_file(&missing, "x").unwrap_err().message.starts_with("writing "));
    }

    #[test]
    fn tables_align() {
        let rows = vec![vec!["16 KiB".into(), "1.2".into()], vec!["1 GiB".into(), "150.0".into()]];
        let text = table(&["size", "ns"], &rows);
        assert_eq!(text, "size       ns\n------  -----\n16 KiB    1.2\n1 GiB   150.0\n");
        let md = markdown_table(&["size", "ns"], &rows);
        assert!(md.starts_with("| size | ns |\n|---|---:|\n| 16 KiB | 1.2 |"));
    }
}
