//! A live index needs to know when files change. This crate watches a project with
//! `notify`, one non-recursive watch per folder the index walk would enter (so
//! vendored, ignored and generated trees cost nothing), adds watches for folders
//! created later, and turns each burst of events (an editor save, a `git checkout`
//! touching hundreds of files) into ONE call of the caller's callback after the
//! burst goes quiet. Memory is bounded: a burst keeps at most `max_paths` paths,
//! then only says "many". Past `max_watches` folders it stops adding watches and
//! falls back to a periodic callback (`Burst::rescan`), so huge trees stay bounded.
//!
//! [`watch`] never touches the index; the callback decides what a burst means.
//! [`watch_and_sync`] is the one loop that syncs the index after each burst
//! (`tsa watch` prints each sync; the MCP server logs it and notifies subscribers).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::event::{CreateKind, EventKind, ModifyKind};
use notify::{RecursiveMode, Watcher as _};
use tsa_index::{BuildOptions, BuildReport, IndexError, WalkOptions, is_skipped_dir, walk_dirs};

/// Tuning of a watch.
#[derive(Clone, Debug)]
pub struct Config {
    /// A burst ends after this long without events.
    pub quiet: Duration,
    /// A burst never waits longer than this before the callback runs.
    pub max_latency: Duration,
    /// Most folders watched; past this the watch degrades to periodic rescans.
    pub max_watches: usize,
    /// Most distinct paths kept per burst.
    pub max_paths: usize,
    /// Interval of the periodic rescan when degraded.
    pub rescan_every: Duration,
    pub walk: WalkOptions,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            quiet: Duration::from_millis(150),
            max_latency: Duration::from_secs(2),
            max_watches: 20_000,
            max_paths: 10_000,
            rescan_every: Duration::from_secs(10),
            walk: WalkOptions::default(),
        }
    }
}

/// One burst of changes.
#[derive(Clone, Debug, Default)]
pub struct Burst {
    /// Changed paths, project-relative (at most `max_paths`).
    pub paths: BTreeSet<String>,
    /// More paths changed than were kept.
    pub overflow: bool,
    /// Git moved HEAD or rewrote its index (checkout, pull, commit, reset).
    pub git: bool,
    /// No event told what changed (degraded watch, or the OS dropped events): the
    /// callback should rescan everything.
    pub rescan: bool,
}

/// Watch failures.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("file watcher: {0}")]
    Notify(#[from] notify::Error),
}

/// A running watch; dropping it (or [`Handle::stop`]) ends the thread.
pub struct Handle {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Folders watched when the watch started.
    pub watched: usize,
    /// True when the tree had more folders than `max_watches`.
    pub degraded: bool,
}

impl Handle {
    pub fn stop(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Whether a changed path matters: not inside `.tsa` (our own writes), not a
/// skipped folder; inside `.git` only HEAD, the index and refs (git operations).
fn classify(root: &Path, path: &Path) -> Option<(String, bool)> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let first = parts.first()?;
    if first == ".git" {
        let tail = parts.get(1).map(String::as_str);
        let git = matches!(
            tail,
            Some("HEAD" | "index" | "refs" | "packed-refs" | "FETCH_HEAD" | "ORIG_HEAD")
        );
        return git.then(|| (parts.join("/"), true));
    }
    if parts.iter().any(|p| is_skipped_dir(p)) {
        return None;
    }
    Some((parts.join("/"), false))
}

/// One sync of the index after a burst of changes.
#[derive(Debug)]
pub struct Synced {
    /// What the build did, or why it failed.
    pub report: Result<BuildReport, IndexError>,
    /// The burst that started it.
    pub burst: Burst,
    /// How long the sync took, measured around the build.
    pub elapsed: Duration,
}

/// The one watch-then-sync loop (`tsa watch` and `tsa mcp --watch`): watches
/// `root` with `config`, entering the folders the index walk of `opts` enters
/// (`config.walk` becomes `opts.walk`), and after each burst syncs the index with
/// `opts` (under the index's build lock, so it never races another build), then
/// hands the outcome to `on_sync`, on the watch thread.
pub fn watch_and_sync(
    root: &Path,
    opts: BuildOptions,
    config: Config,
    mut on_sync: impl FnMut(Synced) + Send + 'static,
) -> Result<Handle, WatchError> {
    let config = Config {
        walk: opts.walk.clone(),
        ..config
    };
    let sync_root = root.to_path_buf();
    watch(root, config, move |burst| {
        let started = Instant::now();
        // The burst names what changed: the sync looks only there (it walks the
        // tree after a git operation, an overflow or a rescan, or when a path needs it).
        let told = !(burst.rescan || burst.git || burst.overflow || burst.paths.is_empty());
        let opts = BuildOptions {
            changed: told.then(|| burst.paths.iter().cloned().collect()),
            ..opts.clone()
        };
        let report = tsa_index::build(&sync_root, &opts);
        on_sync(Synced {
            report,
            burst,
            elapsed: started.elapsed(),
        });
    })
}

/// Starts watching `root`; `on_burst` runs on the watch thread once per burst.
pub fn watch(
    root: &Path,
    config: Config,
    mut on_burst: impl FnMut(Burst) + Send + 'static,
) -> Result<Handle, WatchError> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(move |e| {
        let _ = tx.send(e);
    })?;
    let dirs = walk_dirs(&root, &config.walk);
    let degraded = dirs.len() > config.max_watches;
    let mut watched = 0usize;
    for d in dirs.iter().take(config.max_watches) {
        if watcher.watch(d, RecursiveMode::NonRecursive).is_ok() {
            watched += 1;
        }
    }
    let git = root.join(".git");
    if git.is_dir() {
        let _ = watcher.watch(&git, RecursiveMode::NonRecursive);
        let refs = git.join("refs").join("heads");
        if refs.is_dir() {
            let _ = watcher.watch(&refs, RecursiveMode::NonRecursive);
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name("tsa-watch".into())
        .spawn(move || {
            let mut watcher = watcher;
            let mut watched = watched;
            let mut burst = Burst::default();
            let mut first: Option<Instant> = None;
            let mut last = Instant::now();
            let mut last_rescan = Instant::now();
            let tick = Duration::from_millis(50);
            while !stopping.load(Ordering::SeqCst) {
                match rx.recv_timeout(tick) {
                    Ok(Ok(event)) => {
                        if event.need_rescan() {
                            burst.rescan = true;
                        }
                        for p in &event.paths {
                            let Some((rel, is_git)) = classify(&root, p) else {
                                continue;
                            };
                            if is_git {
                                burst.git = true;
                            } else if burst.paths.len() < config.max_paths {
                                burst.paths.insert(rel);
                            } else {
                                burst.overflow = true;
                            }
                            // New folders get their own watch (bounded).
                            let created_dir = matches!(
                                event.kind,
                                EventKind::Create(CreateKind::Folder | CreateKind::Any)
                                    | EventKind::Modify(ModifyKind::Name(_))
                            ) && p.is_dir();
                            if created_dir && !is_git {
                                if watched < config.max_watches {
                                    if watcher.watch(p, RecursiveMode::Recursive).is_ok() {
                                        watched += 1;
                                    }
                                } else {
                                    burst.rescan = true;
                                }
                            }
                        }
                        if burst.rescan || burst.git || !burst.paths.is_empty() || burst.overflow {
                            first.get_or_insert_with(Instant::now);
                            last = Instant::now();
                        }
                    }
                    Ok(Err(_)) => {
                        burst.rescan = true;
                        first.get_or_insert_with(Instant::now);
                        last = Instant::now();
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                let now = Instant::now();
                if let Some(f) = first
                    && (now.duration_since(last) >= config.quiet
                        || now.duration_since(f) >= config.max_latency)
                {
                    on_burst(std::mem::take(&mut burst));
                    first = None;
                }
                if degraded
                    && first.is_none()
                    && now.duration_since(last_rescan) >= config.rescan_every
                {
                    last_rescan = now;
                    on_burst(Burst {
                        rescan: true,
                        ..Burst::default()
                    });
                }
            }
        })
        .map_err(|e| WatchError::Notify(notify::Error::io(e)))?;
    Ok(Handle {
        stop,
        thread: Some(thread),
        watched,
        degraded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn wait_for(bursts: &Mutex<Vec<Burst>>, n: usize) -> Vec<Burst> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if bursts.lock().unwrap().len() >= n {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        bursts.lock().unwrap().clone()
    }

    #[test]
    fn a_burst_syncs_the_index_with_the_callers_walk_options() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::create_dir_all(root.join(".gen")).unwrap();
        std::fs::write(root.join("pkg/a.py"), "def f():\n    return 1\n").unwrap();
        let opts = BuildOptions {
            walk: WalkOptions {
                include_hidden: true,
                ..WalkOptions::default()
            },
            ..BuildOptions::default()
        };
        let folders = walk_dirs(&root, &opts.walk).len();
        assert!(folders > walk_dirs(&root, &WalkOptions::default()).len());
        let synced = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&synced);
        let handle = watch_and_sync(&root, opts, Config::default(), move |s| {
            sink.lock().unwrap().push(s)
        })
        .unwrap();
        // The watch enters the folders of the caller's walk (hidden ones included).
        assert_eq!(handle.watched, folders);
        std::fs::write(root.join("pkg/b.py"), "def g():\n    return 2\n").unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while synced.lock().unwrap().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        handle.stop();
        let got = synced.lock().unwrap();
        let first = got.first().expect("one sync after the burst");
        assert!(first.burst.paths.contains("pkg/b.py"), "{:?}", first.burst);
        let report = first.report.as_ref().expect("the sync succeeds");
        assert!(report.new_files >= 1, "{report:?}");
        assert!(root.join(".tsa/index.db").is_file());
    }

    #[test]
    fn one_callback_per_burst_and_skipped_folders_are_silent() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::create_dir_all(root.join(".tsa")).unwrap();
        std::fs::write(root.join("pkg/a.py"), "x = 1\n").unwrap();
        let bursts = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&bursts);
        let handle = watch(&root, Config::default(), move |b| {
            sink.lock().unwrap().push(b)
        })
        .unwrap();
        assert!(handle.watched >= 2);
        assert!(!handle.degraded);
        // A burst: several writes within the quiet period.
        for i in 0..5 {
            std::fs::write(root.join("pkg/a.py"), format!("x = {i}\n")).unwrap();
            std::fs::write(root.join(format!("pkg/new_{i}.py")), "y = 2\n").unwrap();
        }
        // Writes the index makes itself, and vendored trees, are not events.
        std::fs::write(root.join(".tsa/index.db"), "db").unwrap();
        std::fs::write(root.join("node_modules/x/i.js"), "z").unwrap();
        let got = wait_for(&bursts, 1);
        std::thread::sleep(Duration::from_millis(400));
        let got_after = bursts.lock().unwrap().clone();
        assert_eq!(got_after.len(), 1, "one burst, one callback: {got_after:?}");
        let paths = &got[0].paths;
        assert!(
            paths.contains("pkg/a.py") && paths.contains("pkg/new_4.py"),
            "{paths:?}"
        );
        assert!(
            paths
                .iter()
                .all(|p| !p.starts_with(".tsa") && !p.starts_with("node_modules"))
        );

        // A folder created later is watched too.
        std::fs::create_dir_all(root.join("later")).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        std::fs::write(root.join("later/b.py"), "b = 1\n").unwrap();
        let got = wait_for(&bursts, 3);
        let all: BTreeSet<String> = got.iter().flat_map(|b| b.paths.iter().cloned()).collect();
        assert!(all.contains("later/b.py"), "{all:?}");
        handle.stop();
    }

    #[test]
    fn too_many_folders_degrade_to_periodic_rescans() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for i in 0..5 {
            std::fs::create_dir_all(root.join(format!("d{i}"))).unwrap();
        }
        let bursts = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&bursts);
        let config = Config {
            max_watches: 2,
            rescan_every: Duration::from_millis(200),
            ..Config::default()
        };
        let handle = watch(&root, config, move |b| sink.lock().unwrap().push(b)).unwrap();
        assert!(handle.degraded);
        assert_eq!(handle.watched, 2);
        let got = wait_for(&bursts, 1);
        assert!(got[0].rescan);
        handle.stop();
    }

    #[test]
    fn paths_are_classified() {
        let root = Path::new("/p");
        assert_eq!(
            classify(root, Path::new("/p/a/b.py")),
            Some(("a/b.py".into(), false))
        );
        assert_eq!(classify(root, Path::new("/p/.tsa/index.db")), None);
        assert_eq!(classify(root, Path::new("/p/target/x.rs")), None);
        assert_eq!(
            classify(root, Path::new("/p/.git/HEAD")),
            Some((".git/HEAD".into(), true))
        );
        assert_eq!(classify(root, Path::new("/p/.git/objects/ab/cd")), None);
        assert_eq!(classify(Path::new("/p"), Path::new("/q/x.py")), None);
    }
}
