//! Ctrl-C in the middle of writing an output: memwall exits 130 (as after a SIGINT) and leaves
//! neither a partial output nor the temporary file it was writing.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn part_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".part"))
        .collect()
}

#[test]
fn ctrl_c_while_writing_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("keys.parquet");
    // The write must be caught in progress: if one size is written too fast to see, try a
    // larger one.
    for rows in ["20M", "60M"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_memwall"))
            .args(["generate", "--rows", rows, "--keys", "1M", "--threads", "2", "--out", out.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut caught = false;
        while Instant::now() < deadline && child.try_wait().unwrap().is_none() {
            if !part_files(dir.path()).is_empty() {
                caught = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        if !caught {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(&out);
            continue;
        }
        assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{status:?}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "left behind: {left:?}");
        return;
    }
    panic!("the write finished before it could be interrupted, at every size tried");
}
