//! Shared by the git-based `edit` actions (impact, pr): the change set of a mode,
//! the changed definitions of each file (both versions parsed and compared,
//! restricted to the diff hunks), and the blast radius in the index (callers of
//! changed definitions over resolved call edges, transitive dependents over the
//! file import graph).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use serde_json::{Value, json};
use tsa_index::{Index, SymbolRow};
use tsa_lang::Language;

use crate::ToolError;
use crate::git::{DiffMode, FileChange};
use crate::semdiff::{self, Change, ChangeKind, Version};

/// The `mode` parameter: diff | staged | branch | pr (pr needs the network).
pub fn parse_mode(
    mode: Option<&str>,
    pr_url: Option<&str>,
    default: &str,
) -> Result<DiffMode, ToolError> {
    if let Some(url) = pr_url.map(str::trim).filter(|u| !u.is_empty()) {
        return Err(pr_unsupported(url));
    }
    match mode
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .unwrap_or(default)
    {
        "diff" | "unstaged" => Ok(DiffMode::Unstaged),
        "staged" | "cached" => Ok(DiffMode::Staged),
        "branch" => Ok(DiffMode::Branch),
        "pr" => Err(pr_unsupported("")),
        other => Err(ToolError::Validation(format!(
            "mode must be diff|staged|branch|pr, got '{other}'"
        ))),
    }
}

fn pr_unsupported(url: &str) -> ToolError {
    let what = if url.is_empty() {
        "mode=pr".to_owned()
    } else {
        format!("pr_url '{url}'")
    };
    ToolError::Validation(format!(
        "{what} is not supported offline: reading a pull request needs GitHub's gh CLI and the network, which this server does not use. Check out the PR branch and use mode=branch (HEAD vs its merge base with main/master) instead"
    ))
}

/// One changed file, both versions parsed (when its language is known).
pub struct FileAnalysis {
    pub change: FileChange,
    pub language: Option<Language>,
    pub old: Version,
    pub new: Version,
    pub changes: Vec<Change>,
}

fn intersects(ranges: &[(u32, u32)], a: u32, b: u32) -> bool {
    ranges.iter().any(|&(s, e)| s <= b && a <= e)
}

/// Parses both sides of `fc` and keeps the definition changes the diff hunks touch.
pub fn analyse_file(fc: FileChange) -> Result<FileAnalysis, ToolError> {
    let language = Language::from_path(&fc.path).or_else(|| Language::from_path(&fc.old_path));
    let (mut old, mut new) = (Version::empty(), Version::empty());
    let mut changes = Vec::new();
    if let Some(lang) = language {
        if let Some(t) = &fc.old_text {
            old = semdiff::analyse(lang, t)?;
        }
        if let Some(t) = &fc.new_text {
            new = semdiff::analyse(lang, t)?;
        }
        changes = semdiff::compare(&old, &new)
            .into_iter()
            .filter(|c| {
                let on_new = c.new.is_some_and(|j| {
                    let d = &new.defs[j];
                    intersects(&fc.new_ranges, d.line, d.end_line)
                });
                let on_old = c.old.is_some_and(|i| {
                    let d = &old.defs[i];
                    intersects(&fc.old_ranges, d.line, d.end_line)
                });
                on_new || on_old
            })
            .collect();
    }
    Ok(FileAnalysis {
        change: fc,
        language,
        old,
        new,
        changes,
    })
}

impl FileAnalysis {
    /// Changed definitions as rows (`file` added).
    pub fn symbol_rows(&self, bodies: bool) -> Vec<Value> {
        self.changes
            .iter()
            .map(|c| {
                let mut v = semdiff::change_json(c, &self.old, &self.new, bodies);
                v["file"] = json!(self.change.path);
                v
            })
            .collect()
    }

    /// (qualname, change) of the changes that can break callers (the old name for
    /// removals and renames).
    pub fn caller_relevant(&self) -> Vec<(String, ChangeKind)> {
        self.changes
            .iter()
            .filter(|c| {
                matches!(
                    c.kind,
                    ChangeKind::Removed
                        | ChangeKind::Renamed
                        | ChangeKind::SignatureChanged
                        | ChangeKind::BodyChanged
                )
            })
            .filter_map(|c| {
                let d = c
                    .old
                    .map(|i| &self.old.defs[i])
                    .or(c.new.map(|j| &self.new.defs[j]))?;
                Some((d.qualname.clone(), c.kind))
            })
            .collect()
    }
}

/// The reach of a change set in the index.
pub struct Blast {
    /// Index definitions of changed symbols.
    pub targets: Vec<SymbolRow>,
    /// Resolved callers of the targets: (caller, target qualname, call line).
    pub callers: Vec<(SymbolRow, String, u32)>,
    /// Files depending on changed files (transitively, imports) or calling changed
    /// definitions, changed files excluded.
    pub affected: BTreeSet<String>,
    /// Direct importers per changed file.
    pub direct: BTreeMap<String, Vec<String>>,
    /// Reverse import adjacency: file -> files importing it.
    pub importers: HashMap<String, BTreeSet<String>>,
}

impl Blast {
    /// Files reachable from `start` over reverse imports (start excluded).
    pub fn dependents_of(&self, start: &[&str]) -> BTreeSet<String> {
        let mut seen: BTreeSet<String> = start.iter().map(|s| (*s).to_owned()).collect();
        let mut q: VecDeque<String> = seen.iter().cloned().collect();
        while let Some(f) = q.pop_front() {
            if let Some(next) = self.importers.get(&f) {
                for n in next {
                    if seen.insert(n.clone()) {
                        q.push_back(n.clone());
                    }
                }
            }
        }
        for s in start {
            seen.remove(*s);
        }
        seen
    }
}

/// Callers of the changed definitions and dependents of the changed files.
pub fn blast(index: &Index, files: &[FileAnalysis]) -> Result<Blast, ToolError> {
    let mut importers: HashMap<String, BTreeSet<String>> = HashMap::new();
    for e in index.file_imports()? {
        importers.entry(e.target_file).or_default().insert(e.file);
    }
    let mut targets = Vec::new();
    for fa in files {
        let wanted = fa.caller_relevant();
        if wanted.is_empty() {
            continue;
        }
        let rows = index.symbols_in_file(&fa.change.old_path)?;
        for (q, _) in &wanted {
            targets.extend(rows.iter().filter(|r| &r.qualname == q).cloned());
        }
    }
    let ids: Vec<i64> = targets.iter().map(|t| t.id).collect();
    let by_id: HashMap<i64, &SymbolRow> = targets.iter().map(|t| (t.id, t)).collect();
    let edges = index.edges_to(&ids)?;
    let caller_rows = index.symbols_by_id(&edges.iter().map(|e| e.caller).collect::<Vec<_>>())?;
    let target_set: BTreeSet<i64> = ids.iter().copied().collect();
    let mut callers = Vec::new();
    for e in &edges {
        if target_set.contains(&e.caller) {
            continue;
        }
        if let (Some(c), Some(t)) = (caller_rows.get(&e.caller), by_id.get(&e.target)) {
            callers.push((c.clone(), t.qualname.clone(), e.line));
        }
    }
    let changed: Vec<&str> = files.iter().map(|f| f.change.path.as_str()).collect();
    let mut b = Blast {
        targets,
        callers,
        affected: BTreeSet::new(),
        direct: BTreeMap::new(),
        importers,
    };
    let mut start: Vec<&str> = changed.clone();
    start.extend(files.iter().map(|f| f.change.old_path.as_str()));
    let mut affected = b.dependents_of(&start);
    for (c, _, _) in &b.callers {
        affected.insert(c.file.clone());
    }
    for f in files {
        affected.remove(&f.change.path);
        affected.remove(&f.change.old_path);
        let direct: Vec<String> = b
            .importers
            .get(&f.change.old_path)
            .map(|s| s.iter().filter(|x| **x != f.change.path).cloned().collect())
            .unwrap_or_default();
        b.direct.insert(f.change.path.clone(), direct);
    }
    b.affected = affected;
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::Repo;
    use crate::git::testrepo::{add_all, commit, init, write};

    #[test]
    fn changed_definitions_come_from_the_hunks_of_a_real_diff() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let repo = init(root);
        let old =
            "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
        write(root, "m.py", old);
        write(root, "r.rs", "fn x() -> u8 {\n    1\n}\n");
        add_all(&repo);
        commit(&repo, "one");
        // b's body changes, c is removed, d is added; a is untouched.
        write(
            root,
            "m.py",
            "def a():\n    return 1\n\n\ndef b():\n    return 20\n\n\ndef d():\n    return 4\n",
        );
        let set = Repo::open(root)
            .unwrap()
            .changes(DiffMode::Unstaged)
            .unwrap();
        assert_eq!(set.files.len(), 1);
        let fa = analyse_file(set.files.into_iter().next().unwrap()).unwrap();
        let mut got: Vec<(String, &str)> = fa
            .symbol_rows(false)
            .iter()
            .map(|r| {
                (
                    r["symbol"].as_str().unwrap().to_owned(),
                    match r["change"].as_str().unwrap() {
                        "body_changed" => "body_changed",
                        "removed" => "removed",
                        "added" => "added",
                        other => panic!("unexpected {other}"),
                    },
                )
            })
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                ("b".to_owned(), "body_changed"),
                ("c".to_owned(), "removed"),
                ("d".to_owned(), "added")
            ]
        );
        let rel: Vec<_> = fa.caller_relevant().into_iter().map(|(q, _)| q).collect();
        assert_eq!(rel, ["b", "c"], "added definitions have no callers yet");
    }

    #[test]
    fn pr_urls_and_unknown_modes_are_refused() {
        let e = parse_mode(None, Some("https://github.com/o/r/pull/3"), "diff").unwrap_err();
        assert!(e.to_string().contains("not supported offline"));
        assert!(parse_mode(Some("pr"), None, "diff").is_err());
        assert!(
            parse_mode(Some("x"), None, "diff")
                .unwrap_err()
                .to_string()
                .starts_with("mode must be")
        );
        assert_eq!(parse_mode(None, None, "branch").unwrap(), DiffMode::Branch);
    }
}
