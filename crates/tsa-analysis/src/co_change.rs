//! The engine of `nav co_change`: the files that change together with a target
//! file in a history window, ranked by lift (analyses §9).

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::history::{Commit, History};

/// A file that changed together with the target.
#[derive(Clone, Debug, Serialize)]
pub struct Partner {
    /// Project-relative file.
    pub file: String,
    /// Commits touching both files.
    pub shared_commits: usize,
    /// How much more often they change together than chance would say, rounded
    /// to two decimals.
    pub lift: f64,
}

/// The change partners of one file.
#[derive(Clone, Debug)]
pub struct CoChanges {
    /// Commits of the window touching the target.
    pub touching: usize,
    /// Commits read.
    pub read: usize,
    /// Partners sharing at least `min_shared` commits, by lift, then shared
    /// commits, then file.
    pub partners: Vec<Partner>,
    /// Files sharing fewer commits than `min_shared`.
    pub below_threshold: usize,
}

/// `round(x, 2)`.
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The files that changed with `target` in `history`, at least `min_shared` times.
pub fn co_changes(history: &History, target: &str, min_shared: usize) -> CoChanges {
    let total = history.commits.len();
    let touching: Vec<&Commit> = history
        .commits
        .iter()
        .filter(|c| c.files.iter().any(|f| f == target))
        .collect();
    let t = touching.len();
    // Commit counts of every file, and those shared with the target.
    let mut commits_of: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &history.commits {
        for f in &c.files {
            *commits_of.entry(f.as_str()).or_default() += 1;
        }
    }
    let target_commits: HashSet<&str> = touching.iter().map(|c| c.id.as_str()).collect();
    let mut shared: BTreeMap<&str, usize> = BTreeMap::new();
    for c in history
        .commits
        .iter()
        .filter(|c| target_commits.contains(c.id.as_str()))
    {
        for f in c.files.iter().filter(|f| *f != target) {
            *shared.entry(f.as_str()).or_default() += 1;
        }
    }
    let mut below = 0usize;
    let mut partners: Vec<Partner> = Vec::new();
    for (file, s) in shared {
        if s < min_shared {
            below += 1;
            continue;
        }
        let p = commits_of.get(file).copied().unwrap_or(s);
        partners.push(Partner {
            file: file.to_owned(),
            shared_commits: s,
            lift: round2(s as f64 * total as f64 / (t as f64 * p as f64)),
        });
    }
    partners.sort_by(|a, b| {
        b.lift
            .total_cmp(&a.lift)
            .then(b.shared_commits.cmp(&a.shared_commits))
            .then_with(|| a.file.cmp(&b.file))
    });
    CoChanges {
        touching: t,
        read: total,
        partners,
        below_threshold: below,
    }
}
