//! Running a project's command (its test suite) as a process tree tsa owns: its own
//! process group, stdin closed, stdout and stderr merged into one capped capture
//! (the first 16 KiB and the last 48 KiB), a deadline, and on timeout or the end
//! every process of the tree killed: the group, and any descendant that left it,
//! found by a random token in its environment; the cleanup is checked until two
//! scans in a row find none.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

/// Output kept from the start of a run.
const HEAD: usize = 16 << 10;
/// Output kept from the end of a run.
const TAIL: usize = 48 << 10;
/// The environment variable carrying the tree's token.
pub const TOKEN_VAR: &str = "TSA_RUN_TOKEN";

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Passed,
    Failed,
    Timeout,
    /// The caller asked to stop (an MCP cancellation): the tree was killed.
    Cancelled,
    Error,
}

/// One finished run.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    pub status: Status,
    pub exit_code: Option<i32>,
    pub output: String,
    pub output_truncated: bool,
    pub output_bytes_total: u64,
    /// Every process of the tree is gone.
    pub cleanup_complete: bool,
    pub elapsed_ms: u64,
}

/// A capture keeping the head and the tail of a stream.
struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    total: u64,
}

impl Capture {
    fn push(&mut self, mut b: &[u8]) {
        self.total += b.len() as u64;
        let room = HEAD.saturating_sub(self.head.len());
        let n = room.min(b.len());
        self.head.extend_from_slice(&b[..n]);
        b = &b[n..];
        self.tail.extend(b);
        while self.tail.len() > TAIL {
            self.tail.pop_front();
        }
    }

    fn text(&self) -> (String, bool) {
        let truncated = self.total > (self.head.len() + self.tail.len()) as u64;
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        if truncated {
            out.push_str(&format!(
                "\n[... {} bytes left out ...]\n",
                self.total - (self.head.len() + self.tail.len()) as u64
            ));
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        out.push_str(&String::from_utf8_lossy(&tail));
        (out, truncated)
    }
}

fn token() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let h = blake3::hash(format!("{t}:{}:{:p}", std::process::id(), &t).as_bytes());
    h.to_hex()[..24].to_owned()
}

/// The pids (other than ours) whose environment carries `TOKEN_VAR=token`.
#[cfg(target_os = "linux")]
fn carriers(token: &str) -> Vec<i32> {
    let needle = format!("{TOKEN_VAR}={token}");
    let me = std::process::id() as i32;
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()))
        })
        .collect()
}

#[cfg(not(target_os = "linux"))]
fn carriers(_token: &str) -> Vec<i32> {
    Vec::new()
}

/// Kills the group and every token carrier until two scans in a row find none
/// (at most 2 s). Returns whether the tree is gone.
fn kill_tree(pgid: i32, token: &str) -> bool {
    #[cfg(unix)]
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    );
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut clean_scans = 0;
    while Instant::now() < deadline {
        let left = carriers(token);
        if left.is_empty() {
            clean_scans += 1;
            if clean_scans == 2 {
                return true;
            }
        } else {
            clean_scans = 0;
            for pid in left {
                #[cfg(unix)]
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    carriers(token).is_empty()
}

/// Runs `argv` in `cwd` until it exits or `deadline`, then kills what is left of
/// its tree.
pub fn run(argv: &[String], cwd: &Path, deadline: Instant) -> Run {
    run_until(argv, cwd, deadline, &|| false)
}

/// [`run`], also stopped (and its tree killed) as soon as `cancelled` says so.
pub fn run_until(
    argv: &[String],
    cwd: &Path,
    deadline: Instant,
    cancelled: &dyn Fn() -> bool,
) -> Run {
    let started = Instant::now();
    let failed = |msg: String| Run {
        status: Status::Error,
        exit_code: None,
        output: msg,
        output_truncated: false,
        output_bytes_total: 0,
        cleanup_complete: true,
        elapsed_ms: started.elapsed().as_millis() as u64,
    };
    let Some((program, args)) = argv.split_first() else {
        return failed("empty command".into());
    };
    let (reader, writer) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => return failed(format!("pipe: {e}")),
    };
    let Ok(writer2) = writer.try_clone() else {
        return failed("pipe clone failed".into());
    };
    let token = token();
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .env(TOKEN_VAR, &token);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return failed(format!("could not start `{program}`: {e}")),
    };
    // The command holds the write ends; ours are gone with `cmd`.
    drop(cmd);
    let pgid = child.id() as i32;
    // The capture is shared: a process that escaped the kill may hold the pipe
    // open forever, so the reader is waited for a bounded time only.
    let cap = std::sync::Arc::new(std::sync::Mutex::new(Capture {
        head: Vec::new(),
        tail: Default::default(),
        total: 0,
    }));
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let shared = cap.clone();
    std::thread::spawn(move || {
        let mut r = reader;
        let mut buf = [0u8; 8192];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            shared
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(&buf[..n]);
        }
        let _ = done_tx.send(());
    });
    let (status, code) = loop {
        match child.try_wait() {
            Ok(Some(s)) => {
                let ok = s.success();
                break (if ok { Status::Passed } else { Status::Failed }, s.code());
            }
            Ok(None) if Instant::now() >= deadline => break (Status::Timeout, None),
            Ok(None) if cancelled() => break (Status::Cancelled, None),
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break (Status::Error, None),
        }
    };
    let mut cleanup_complete = kill_tree(pgid, &token);
    let _ = child.wait();
    // Every writer is gone once the tree is: the pipe then ends. If it does not,
    // some process outside the tree still holds it.
    if done_rx.recv_timeout(Duration::from_secs(2)).is_err() {
        cleanup_complete = false;
    }
    let cap = cap.lock().unwrap_or_else(|e| e.into_inner());
    let (output, output_truncated) = cap.text();
    Run {
        status: if cleanup_complete {
            status
        } else {
            Status::Error
        },
        exit_code: code,
        output,
        output_truncated,
        output_bytes_total: cap.total,
        cleanup_complete,
        elapsed_ms: started.elapsed().as_millis() as u64,
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn sh(script: &str, secs: u64) -> Run {
        let argv: Vec<String> = ["sh", "-c", script]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        run(
            &argv,
            Path::new("/tmp"),
            Instant::now() + Duration::from_secs(secs),
        )
    }

    #[test]
    fn exit_codes_and_merged_output() {
        let r = sh("echo out; echo err >&2; exit 3", 10);
        assert_eq!(r.status, Status::Failed);
        assert_eq!(r.exit_code, Some(3));
        assert!(
            r.output.contains("out") && r.output.contains("err"),
            "{}",
            r.output
        );
        assert_eq!(sh("true", 10).status, Status::Passed);
    }

    #[test]
    fn a_timeout_kills_the_whole_tree_even_a_child_that_left_the_group() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let script = format!(
            "sleep 300 & echo $! >> {p}; setsid sleep 300 & echo $! >> {p}; wait",
            p = pids.display()
        );
        let r = sh(&script, 1);
        assert_eq!(r.status, Status::Timeout);
        assert!(r.cleanup_complete);
        let text = std::fs::read_to_string(&pids).unwrap();
        for pid in text.split_whitespace() {
            // Gone, or a zombie waiting for its new parent to reap it.
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = stat.rsplit(") ").next().and_then(|s| s.chars().next());
            assert!(
                matches!(state, None | Some('Z') | Some('X')),
                "pid {pid} left behind: {stat}"
            );
        }
    }

    #[test]
    fn a_cancellation_stops_the_run_at_once() {
        let argv: Vec<String> = ["sh", "-c", "sleep 300"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let asked = Instant::now() + Duration::from_millis(300);
        let r = run_until(
            &argv,
            Path::new("/tmp"),
            Instant::now() + Duration::from_secs(60),
            &|| Instant::now() >= asked,
        );
        assert_eq!(r.status, Status::Cancelled);
        assert!(r.cleanup_complete);
        assert!(r.elapsed_ms < 10_000, "{}", r.elapsed_ms);
    }

    #[test]
    fn output_keeps_its_head_and_tail() {
        let r = sh("yes x | head -c 200000; echo END", 20);
        assert!(r.output_truncated);
        assert_eq!(r.output_bytes_total, 200_004);
        assert!(r.output.ends_with("END\n"));
    }
}
