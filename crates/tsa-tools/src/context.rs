//! The session state every call sees: the project root, and the selector
//! subscriptions of this session (`search subscribe`, MCP `resources/subscribe`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use tsa_index::{BuildOptions, ProgressSink};

use crate::ToolError;

/// One session (an MCP connection, or one CLI run).
#[derive(Clone, Default)]
pub struct Context {
    root: Option<PathBuf>,
    progress: Option<ProgressSink>,
    /// Shared by clones: one registry per session.
    subs: Arc<Mutex<Subscriptions>>,
    /// True when the transport can push notifications (the MCP server).
    push: bool,
    /// The index's content fingerprint and the index files' stamp it was read at,
    /// shared by clones (see [`FingerprintCache`]).
    fingerprint: FingerprintCache,
    /// Set when the client cancelled the call being answered (MCP
    /// `notifications/cancelled`); long actions poll it.
    cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// The content fingerprint of a project's index, read again only when the index
/// files' (size, mtime) changed: a cursor's staleness check costs one `stat` pair
/// instead of a scan of every file row on each truncated answer.
#[derive(Clone, Debug, Default)]
pub(crate) struct FingerprintCache(Arc<Mutex<Option<(PathBuf, IndexStamp, String)>>>);

impl FingerprintCache {
    /// The fingerprint of `root`'s index ("" without one).
    pub(crate) fn get(&self, root: &Path) -> String {
        let stamp = index_stamp(root);
        let mut cached = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((r, s, f)) = cached.as_ref()
            && r == root
            && *s == stamp
        {
            return f.clone();
        }
        let f = tsa_index::Index::open(root)
            .ok()
            .flatten()
            .and_then(|index| index.content_fingerprint().ok())
            .unwrap_or_default();
        *cached = Some((root.to_path_buf(), stamp, f.clone()));
        f
    }
}

/// One selector subscription.
#[derive(Clone, Debug)]
pub struct Subscription {
    pub id: String,
    pub selector: String,
    pub uri: String,
    pub min_interval: Duration,
    /// Digest of the selector's result when last notified (or subscribed).
    fingerprint: u64,
    last_notified: Option<Instant>,
}

/// The subscription registry of one session.
#[derive(Debug, Default)]
struct Subscriptions {
    next_id: u64,
    subs: Vec<Subscription>,
    /// The index files' (size, mtime) at the last check: unchanged -> nothing to do.
    stamp: Option<IndexStamp>,
}

type IndexStamp = Vec<(u64, Option<SystemTime>)>;

fn index_stamp(root: &Path) -> IndexStamp {
    let db = tsa_index::index_path(root);
    [db.clone(), db.with_extension("db-wal")]
        .iter()
        .map(|p| match std::fs::metadata(p) {
            Ok(m) => (m.len(), m.modified().ok()),
            Err(_) => (0, None),
        })
        .collect()
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("root", &self.root)
            .field("progress", &self.progress.is_some())
            .field("push", &self.push)
            .finish()
    }
}

impl Context {
    /// The session's cache of the index's content fingerprint.
    pub(crate) fn fingerprint_cache(&self) -> FingerprintCache {
        self.fingerprint.clone()
    }

    /// A context with no project yet (`set_project_path` sets one).
    pub fn new() -> Self {
        Context::default()
    }

    /// A context bound to `root`, canonicalised (symlinks resolved).
    pub fn with_root(root: &Path) -> Result<Self, ToolError> {
        let mut c = Context::new();
        c.set_root(root)?;
        Ok(c)
    }

    /// Rebinds the project root: it must be an existing directory, neither a system
    /// folder nor the home folder or one of its ancestors (`security::check_project_root`).
    /// A refused root leaves the session as it was.
    pub fn set_root(&mut self, root: &Path) -> Result<PathBuf, ToolError> {
        let canonical = std::fs::canonicalize(root)
            .map_err(|_| ToolError::NotFound(root.display().to_string()))?;
        if !canonical.is_dir() {
            return Err(ToolError::Validation(format!(
                "project path must be a directory: {}",
                root.display()
            )));
        }
        // Symlinks are resolved first, so a link to `/etc` is refused as `/etc`.
        tsa_analysis::security::check_project_root(&canonical)?;
        if self.root.as_deref() != Some(canonical.as_path()) {
            // Subscriptions name selectors of the old project.
            let mut subs = self.registry();
            subs.subs.clear();
            subs.stamp = None;
        }
        self.root = Some(canonical.clone());
        Ok(canonical)
    }

    /// Where index builds report progress (a terminal bar, MCP notifications); `None` = quiet.
    pub fn set_progress(&mut self, sink: Option<ProgressSink>) {
        self.progress = sink;
    }

    /// Reports one step of a long action (`verify`: step `done` of `total`).
    pub fn report(&self, phase: &'static str, done: usize, total: usize) {
        if let Some(p) = &self.progress {
            p(tsa_index::Progress { phase, done, total });
        }
    }

    /// The flag the transport sets when the client cancels this call.
    pub fn set_cancel(&mut self, flag: Option<Arc<std::sync::atomic::AtomicBool>>) {
        self.cancel = flag;
    }

    /// Whether the client cancelled the call being answered.
    pub fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Build options carrying this session's progress sink, and health's tree
    /// measurements taken from the build's own parse.
    pub fn build_options(&self) -> BuildOptions {
        BuildOptions {
            progress: self.progress.clone(),
            facts: Some(tsa_analysis::health::facts_hook()),
            ..BuildOptions::default()
        }
    }

    pub fn root(&self) -> Result<&Path, ToolError> {
        self.root.as_deref().ok_or(ToolError::ProjectNotSet)
    }

    /// Declares whether this session's transport can push notifications.
    pub fn set_push(&mut self, push: bool) {
        self.push = push;
    }

    /// Whether subscriptions of this session can be notified.
    pub fn can_push(&self) -> bool {
        self.push
    }

    fn registry(&self) -> MutexGuard<'_, Subscriptions> {
        match self.subs.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Registers a subscription to `selector` whose current result digests to
    /// `fingerprint`; returns it. A second subscription to the same selector gets
    /// its own id (notifications are sent once per URI).
    pub fn subscribe(
        &self,
        selector: &str,
        min_interval: Duration,
        fingerprint: u64,
    ) -> Subscription {
        let root = self.root.clone();
        let mut reg = self.registry();
        if reg.stamp.is_none()
            && let Some(r) = root
        {
            reg.stamp = Some(index_stamp(&r));
        }
        reg.next_id += 1;
        let sub = Subscription {
            id: format!("sub-{}", reg.next_id),
            selector: selector.trim().to_owned(),
            uri: tsa_analysis::hyphae::resource_uri(selector),
            min_interval,
            fingerprint,
            last_notified: None,
        };
        reg.subs.push(sub.clone());
        sub
    }

    /// Removes the subscriptions with this id, selector or URI; returns them.
    pub fn unsubscribe(
        &self,
        sub_id: Option<&str>,
        selector: Option<&str>,
        uri: Option<&str>,
    ) -> Vec<Subscription> {
        let mut reg = self.registry();
        let (gone, kept): (Vec<Subscription>, Vec<Subscription>) =
            std::mem::take(&mut reg.subs).into_iter().partition(|s| {
                sub_id.is_some_and(|i| s.id == i)
                    || selector.is_some_and(|sel| s.selector == sel.trim())
                    || uri.is_some_and(|u| s.uri == u)
            });
        reg.subs = kept;
        gone
    }

    /// The live subscriptions of this session.
    pub fn subscriptions(&self) -> Vec<Subscription> {
        self.registry().subs.clone()
    }

    /// URIs whose selector result changed since they were last notified (or
    /// subscribed), one per URI, respecting each subscription's `min_interval`: a
    /// change inside the interval stays pending and is reported by a later check.
    /// Cheap when the index files did not change since the last check. Call it
    /// whenever the index may have changed (after tool calls, from a watcher).
    pub fn changed_subscriptions(&mut self) -> Vec<String> {
        let Some(root) = self.root.clone() else {
            return Vec::new();
        };
        let mut reg = self.registry();
        if reg.subs.is_empty() {
            return Vec::new();
        }
        let stamp = index_stamp(&root);
        if reg.stamp.as_ref() == Some(&stamp) {
            return Vec::new();
        }
        let index = match tsa_index::Index::open(&root) {
            Ok(Some(i)) => i,
            _ => return Vec::new(),
        };
        let now = Instant::now();
        let mut digests: std::collections::HashMap<String, Option<u64>> = Default::default();
        let mut changed: Vec<String> = Vec::new();
        let mut all_settled = true;
        for sub in reg.subs.iter_mut() {
            let digest = *digests.entry(sub.selector.clone()).or_insert_with(|| {
                tsa_analysis::hyphae::select(&index, &sub.selector)
                    .ok()
                    .map(|o| o.fingerprint())
            });
            let Some(digest) = digest else { continue };
            if digest == sub.fingerprint {
                continue;
            }
            if sub
                .last_notified
                .is_some_and(|t| now.duration_since(t) < sub.min_interval)
            {
                all_settled = false;
                continue;
            }
            sub.fingerprint = digest;
            sub.last_notified = Some(now);
            if !changed.contains(&sub.uri) {
                changed.push(sub.uri.clone());
            }
        }
        if all_settled {
            reg.stamp = Some(stamp);
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::Context;
    use tsa_analysis::hyphae;

    fn digest(ctx: &Context, selector: &str) -> u64 {
        let index = tsa_index::Index::open(ctx.root().unwrap())
            .unwrap()
            .unwrap();
        hyphae::select(&index, selector).unwrap().fingerprint()
    }

    #[test]
    fn changed_subscriptions_notify_once_per_uri_and_respect_min_interval() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.py");
        std::fs::write(&file, "class Base:\n    pass\n").unwrap();
        tsa_index::build(dir.path(), &tsa_index::BuildOptions::default()).unwrap();
        let mut ctx = Context::with_root(dir.path()).unwrap();
        let sel = ".class:extends(#Base)";
        let slow = ctx.subscribe(sel, Duration::from_secs(3600), digest(&ctx, sel));
        let twin = ctx.subscribe(sel, Duration::from_secs(3600), digest(&ctx, sel));
        let fast = ctx.subscribe(".class", Duration::ZERO, digest(&ctx, ".class"));
        assert_eq!(slow.uri, twin.uri);
        assert_ne!(slow.id, twin.id);
        assert!(ctx.changed_subscriptions().is_empty(), "nothing changed");

        let mut src = std::fs::read_to_string(&file).unwrap();
        src.push_str("\nclass A(Base):\n    pass\n");
        std::fs::write(&file, &src).unwrap();
        tsa_index::build(dir.path(), &tsa_index::BuildOptions::default()).unwrap();
        // One URI per changed selector, even with two subscriptions to it.
        assert_eq!(
            ctx.changed_subscriptions(),
            [slow.uri.clone(), fast.uri.clone()]
        );
        assert!(ctx.changed_subscriptions().is_empty(), "already notified");

        // A second change inside the slow subscriptions' interval waits.
        src.push_str("\nclass B(Base):\n    pass\n");
        std::fs::write(&file, &src).unwrap();
        tsa_index::build(dir.path(), &tsa_index::BuildOptions::default()).unwrap();
        assert_eq!(ctx.changed_subscriptions(), std::slice::from_ref(&fast.uri));
        assert!(ctx.changed_subscriptions().is_empty());

        let gone = ctx.unsubscribe(None, Some(sel), None);
        assert_eq!(gone.len(), 2);
        assert_eq!(ctx.subscriptions().len(), 1);
        // Rebinding the project drops the session's subscriptions.
        let other = tempfile::tempdir().unwrap();
        ctx.set_root(other.path()).unwrap();
        assert!(ctx.subscriptions().is_empty());
    }
}
