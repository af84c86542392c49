//! Where results go: a human table on stdout, unless stdout carries JSON (`--json -`), in which
//! case everything human goes to stderr so `memwall ... --json - | jq` sees only JSON.

use std::io::Write;
use std::path::{Path, PathBuf};

use memwall_report::Report;

use crate::{CliError, CliResult};

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
    std::fs::write(path, text).map_err(|e| CliError::runtime(format!("writing {}: {e}", path.display())))
}

pub fn write_report(destination: &Destination, report: &Report) -> CliResult {
    let mut json = report.to_json_pretty();
    json.push('\n');
    write_text(destination, &json)
}

/// Seconds since the Unix epoch, for `created_unix_s`.
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
    use super::*;

    #[test]
    fn destinations_parse() {
        assert_eq!("-".parse::<Destination>().unwrap(), Destination::Stdout);
        assert_eq!("a.json".parse::<Destination>().unwrap(), Destination::File("a.json".into()));
        assert!("".parse::<Destination>().is_err());
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
