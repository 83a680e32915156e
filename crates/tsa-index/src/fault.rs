//! Fault injection for the crash and race tests, compiled into debug builds only
//! (release builds turn every call into nothing).
//!
//! - `TSA_FAULT_KILL_AT=<phase>:<n>`: the n-th time the build reaches a checkpoint
//!   of `phase` (`open`, `walk`, `parse`, `write`, `resolve`, `commit`, `rename`),
//!   the process sends itself SIGKILL, exactly as `kill -9` from outside would.
//! - `TSA_FAULT_PAUSE=<point>@<dir>`: when the build reaches `point` (`walked`, or
//!   `read:<project-relative path>` right after that file's bytes were read and
//!   before they are parsed), it writes `<dir>/paused` and waits (up to 60 s) for
//!   `<dir>/resume` to exist, so a test can delete or rewrite files at that moment.
//! - `TSA_FAULT_FAIL_AT=<point>:<n>`: the n-th time code reaches `point` (`rename_write`:
//!   a source file about to be replaced by `edit rename`), [`fails`] says true, so a
//!   test sees a write fail part way.
//! - `TSA_FAULT_BUILD_WAIT_MS=<n>`: a query waits at most n ms for another build of
//!   its index (instead of its usual bound), so a test sees the "index is being
//!   built" answer without waiting for it.

/// A point where a test may kill the process (debug builds only).
#[inline]
pub fn checkpoint(phase: &'static str) {
    #[cfg(debug_assertions)]
    imp::checkpoint(phase);
    #[cfg(not(debug_assertions))]
    let _ = phase;
}

/// A point where a test may hold the build (debug builds only).
#[inline]
pub fn pause(point: &dyn Fn() -> String) {
    #[cfg(debug_assertions)]
    imp::pause(point);
    #[cfg(not(debug_assertions))]
    let _ = point;
}

/// Whether a test asked this point to fail now (debug builds only; see the module).
#[inline]
pub fn fails(point: &'static str) -> bool {
    #[cfg(debug_assertions)]
    return imp::fails(point);
    #[cfg(not(debug_assertions))]
    {
        let _ = point;
        false
    }
}

/// How long a bounded wait for the build lock lasts: `usual`, or in debug builds
/// what `TSA_FAULT_BUILD_WAIT_MS` says.
pub fn build_wait(usual: std::time::Duration) -> std::time::Duration {
    #[cfg(debug_assertions)]
    if !usual.is_zero()
        && let Some(ms) = std::env::var("TSA_FAULT_BUILD_WAIT_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
    {
        return std::time::Duration::from_millis(ms);
    }
    usual
}

#[cfg(debug_assertions)]
mod imp {
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::sync::{Mutex, OnceLock};
    use std::time::{Duration, Instant};

    struct Plan {
        kill: Option<(String, usize)>,
        pause: Option<(String, PathBuf)>,
    }

    fn plan() -> &'static Plan {
        static PLAN: OnceLock<Plan> = OnceLock::new();
        PLAN.get_or_init(|| Plan {
            kill: std::env::var("TSA_FAULT_KILL_AT").ok().and_then(|v| {
                let (phase, n) = v.split_once(':')?;
                Some((phase.to_owned(), n.parse().ok()?))
            }),
            pause: std::env::var("TSA_FAULT_PAUSE").ok().and_then(|v| {
                let (point, dir) = v.split_once('@')?;
                Some((point.to_owned(), PathBuf::from(dir)))
            }),
        })
    }

    pub fn checkpoint(phase: &'static str) {
        let Some((want, n)) = &plan().kill else {
            return;
        };
        if want != phase {
            return;
        }
        static SEEN: Mutex<Option<HashMap<&'static str, usize>>> = Mutex::new(None);
        let hit = {
            let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
            let count = seen
                .get_or_insert_with(HashMap::new)
                .entry(phase)
                .or_insert(0);
            *count += 1;
            *count == *n
        };
        if hit {
            let pid = std::process::id().to_string();
            let _ = std::process::Command::new("sh")
                .args(["-c", "kill -9 \"$0\"", &pid])
                .status();
            // The signal is on its way; never go on past the checkpoint.
            std::thread::sleep(Duration::from_secs(10));
            std::process::abort();
        }
    }

    pub fn fails(point: &'static str) -> bool {
        static WANT: OnceLock<Option<(String, usize)>> = OnceLock::new();
        let want = WANT.get_or_init(|| {
            let v = std::env::var("TSA_FAULT_FAIL_AT").ok()?;
            let (p, n) = v.split_once(':')?;
            Some((p.to_owned(), n.parse().ok()?))
        });
        let Some((p, n)) = want else {
            return false;
        };
        if p != point {
            return false;
        }
        static SEEN: Mutex<usize> = Mutex::new(0);
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        *seen += 1;
        *seen == *n
    }

    pub fn pause(point: &dyn Fn() -> String) {
        let Some((want, dir)) = &plan().pause else {
            return;
        };
        if *want != point() {
            return;
        }
        let _ = std::fs::write(dir.join("paused"), want);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !dir.join("resume").exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
