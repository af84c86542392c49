//! The server of `memwall sensitivity --for W --probe PROBE -- SERVER...`: started once, kept
//! running through every pressure level, and stopped (its whole process group signalled, the
//! server reaped) on every way out: success, a failing probe, an early exit, an error, Ctrl-C.
//!
//! The server runs in a process group of its own, so that a server started through a shell or
//! one that forks workers is stopped whole. That also keeps the terminal's Ctrl-C from reaching
//! it: memwall catches Ctrl-C and stops it, and the second Ctrl-C, which exits memwall at once,
//! kills the group first ([`kill_running`], called from the Ctrl-C handler).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::{CliError, CliResult};

/// The running server's process group (0: none), for the Ctrl-C handler's exit path.
static RUNNING_GROUP: AtomicI32 = AtomicI32::new(0);

/// How long a server may take to stop on SIGTERM before it gets SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(2);

#[derive(Debug)]
pub struct Server {
    child: Child,
    name: String,
    /// The last non-empty line the server wrote to stderr, for the error when it exits early.
    last_stderr: Arc<Mutex<String>>,
    stderr_reader: Option<JoinHandle<()>>,
    stopped: bool,
}

impl Server {
    /// Starts `command` with stdin and stdout closed, stderr kept (its last line) for errors.
    /// A server that cannot start is bad input (exit 2).
    pub fn start(command: &[String]) -> CliResult<Self> {
        let mut spawn = Command::new(&command[0]);
        spawn.args(&command[1..]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut spawn, 0);
        let mut child =
            spawn.spawn().map_err(|e| CliError::usage(format!("cannot start the server '{}': {e}", command[0])))?;
        RUNNING_GROUP.store(child.id() as i32, Ordering::SeqCst);
        let last_stderr = Arc::new(Mutex::new(String::new()));
        let stderr_reader = child.stderr.take().map(|stderr| {
            let last = Arc::clone(&last_stderr);
            // Drained as it comes, so that a chatty server never blocks on a full pipe.
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if !line.trim().is_empty()
                        && let Ok(mut last) = last.lock()
                    {
                        *last = line.trim().to_string();
                    }
                }
            })
        });
        Ok(Self { child, name: command.join(" "), last_stderr, stderr_reader, stopped: false })
    }

    /// `Ok` while the server runs; a server that has exited is bad input (exit 2): a server
    /// must keep running for the whole measurement.
    pub fn check_running(&mut self) -> CliResult {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => {
                self.stopped = true;
                // Its last words may still be in the pipe: give the reader a moment to finish.
                let deadline = Instant::now() + Duration::from_millis(500);
                while self.stderr_reader.as_ref().is_some_and(|r| !r.is_finished()) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
                let last = self.last_stderr.lock().map(|l| l.clone()).unwrap_or_default();
                let last = if last.is_empty() { String::new() } else { format!(": {last}") };
                Err(CliError::usage(format!("the server '{}' exited early ({status}){last}", self.name)))
            }
            Err(e) => Err(CliError::runtime(format!("cannot check on the server '{}': {e}", self.name))),
        }
    }

    /// SIGTERM to the server's group, SIGKILL after [`STOP_GRACE`], the server reaped, then
    /// SIGKILL to whatever of its group is left.
    fn stop(&mut self) {
        let group = self.child.id() as i32;
        if !self.stopped {
            signal_group(group, Signal::Term);
            let deadline = Instant::now() + STOP_GRACE;
            while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if matches!(self.child.try_wait(), Ok(None)) {
                signal_group(group, Signal::Kill);
                let _ = self.child.kill();
            }
            let _ = self.child.wait();
            self.stopped = true;
        }
        // Workers the server forked may outlive it; the group's id stays theirs while they live.
        signal_group(group, Signal::Kill);
        RUNNING_GROUP.store(0, Ordering::SeqCst);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

#[derive(Debug, Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
fn signal_group(group: i32, signal: Signal) {
    if group <= 0 {
        return;
    }
    let signal = match signal {
        Signal::Term => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
    };
    // SAFETY: kill() takes plain integers; a negative pid names a process group, and one that
    // no longer exists only makes it return ESRCH.
    unsafe {
        libc::kill(-group, signal);
    }
}

#[cfg(not(unix))]
fn signal_group(_group: i32, _signal: Signal) {}

/// Kills the running server's group, if any: memwall is about to exit without unwinding.
pub fn kill_running() {
    let group = RUNNING_GROUP.swap(0, Ordering::SeqCst);
    signal_group(group, Signal::Kill);
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The running server's group is one global (Ctrl-C reads it), so tests that start servers
    /// take turns: run side by side, one test saw the other's server in it.
    static ONE_SERVER_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn one_server_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        ONE_SERVER_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn alive(pid: i32) -> bool {
        // A reaped process is gone from /proc; a zombie (exited, not reaped) says so in its state.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| s.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
            .unwrap_or(false)
    }

    #[test]
    fn a_dropped_server_is_stopped_with_its_workers() {
        let _turn = one_server_at_a_time();
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        // A shell that forks a worker and waits: both must go.
        let script = format!("sleep 60 & echo $! > {0}; echo $$ >> {0}; wait", pids.display());
        let mut server = Server::start(&["sh".into(), "-c".into(), script]).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::fs::read_to_string(&pids).map_or(true, |s| s.lines().count() < 2) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        server.check_running().unwrap();
        let pids: Vec<i32> = std::fs::read_to_string(&pids).unwrap().lines().map(|l| l.parse().unwrap()).collect();
        assert!(pids.iter().all(|&p| alive(p)));
        drop(server);
        std::thread::sleep(Duration::from_millis(50));
        assert!(pids.iter().all(|&p| !alive(p)), "{pids:?} outlived the server");
        assert_eq!(RUNNING_GROUP.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_server_that_exits_says_so_with_its_last_words() {
        let _turn = one_server_at_a_time();
        let mut server =
            Server::start(&["sh".into(), "-c".into(), "echo starting >&2; echo 'port in use' >&2; exit 3".into()])
                .unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let e = loop {
            match server.check_running() {
                Err(e) => break e,
                Ok(()) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
                Ok(()) => panic!("the server did not exit"),
            }
        };
        assert_eq!(e.code, 2);
        assert!(e.message().ends_with("exited early (exit status: 3): port in use"), "{}", e.message());
        let missing = Server::start(&["/nonexistent/memwall-server".into()]).unwrap_err();
        assert_eq!(missing.code, 2);
        assert!(missing.message().starts_with("cannot start the server '/nonexistent/memwall-server'"));
    }
}
