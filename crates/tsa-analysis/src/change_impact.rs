//! The blast radius of a change set, for the git-based `edit` actions (impact, pr):
//! the changed definitions of each file (both versions parsed and compared,
//! restricted to the diff hunks), and the blast radius in the index (callers of
//! changed definitions over resolved call edges, transitive dependents over the
//! file import graph).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::Path;

use serde_json::{Value, json};
use tsa_index::{Index, SymbolRow};
use tsa_lang::Language;

use crate::ToolError;
use crate::git::FileChange;
use crate::graph::{Dir, IndexGraph, bfs};
use crate::semdiff::{self, Change as Edit, ChangeKind, Version};
use crate::trust::{Assessor, Change, Subject, Trust, subjects_of};

/// One changed file, both versions parsed (when its language is known).
pub struct FileAnalysis {
    pub change: FileChange,
    pub language: Option<Language>,
    pub old: Version,
    pub new: Version,
    pub changes: Vec<Edit>,
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

/// One changed definition that callers can feel, with its reach and trust.
pub struct DefImpact {
    /// Its index row, when the index holds it.
    pub id: Option<i64>,
    pub file: String,
    /// The qualified name callers use (the old one for removals and renames).
    pub symbol: String,
    pub kind: ChangeKind,
    /// Resolved callers outside the changed definitions.
    pub callers: usize,
    pub trust: Trust,
}

impl DefImpact {
    /// The change as [`trust`](tsa_analysis::trust) grades it.
    pub fn change(&self) -> Change {
        if breaks_callers(self.kind) {
            Change::Breaking
        } else {
            Change::Behaviour
        }
    }
}

/// Whether a change breaks the callers of the definition (removal, rename, signature).
pub fn breaks_callers(kind: ChangeKind) -> bool {
    matches!(
        kind,
        ChangeKind::Removed | ChangeKind::Renamed | ChangeKind::SignatureChanged
    )
}

/// How far a transitive caller walk goes up from the changed definitions.
const CALLER_DEPTH: u32 = 10;

/// The reach of a change set in the index, symbol by symbol: the changed
/// definitions callers can feel (removed, renamed, signature or body changed) and
/// what reaches them over resolved calls, the files importing a changed name, and,
/// only when a file's module-level code changed (or the file went away), the files
/// importing it, transitively. An added definition or a comment reaches nobody.
pub struct Blast {
    /// Index definitions of changed symbols.
    pub targets: Vec<SymbolRow>,
    /// Resolved callers of the targets: (caller, target qualname, call line).
    pub callers: Vec<(SymbolRow, String, u32)>,
    /// Every caller reaching a target through resolved calls (up to
    /// [`CALLER_DEPTH`] levels), targets excluded.
    pub transitive_callers: usize,
    /// Files affected by the change (changed files excluded).
    pub affected: BTreeSet<String>,
    /// Why each affected file is affected.
    pub reasons: BTreeMap<String, BTreeSet<String>>,
    /// Per changed file: the files it affects directly (name importers, module
    /// importers, direct callers).
    pub direct: BTreeMap<String, Vec<String>>,
    /// Per changed file: every file it affects.
    pub by_changed: BTreeMap<String, BTreeSet<String>>,
    /// Changed files whose module-level code changed (or that were deleted).
    pub module_changed: Vec<String>,
    /// The changed definitions callers can feel, with their trust.
    pub defs: Vec<DefImpact>,
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

    fn add(&mut self, changed: &str, file: &str, why: String, direct: bool) {
        self.reasons.entry(file.to_owned()).or_default().insert(why);
        self.by_changed
            .entry(changed.to_owned())
            .or_default()
            .insert(file.to_owned());
        if direct {
            let d = self.direct.entry(changed.to_owned()).or_default();
            if !d.iter().any(|x| x == file) {
                d.push(file.to_owned());
            }
        }
    }
}

impl FileAnalysis {
    /// Whether the code outside every definition changed (or the file was deleted).
    pub fn module_changed(&self) -> bool {
        self.language.is_some()
            && (self.change.status == "deleted" || self.old.module_code != self.new.module_code)
    }
}

/// The index row of a changed definition: by its old qualified name in the old
/// file, else, for a definition that keeps its name (an index built after the
/// change), by its new one in the new file. A removed or renamed definition is
/// never matched by its new version: its callers use the old name.
fn index_row<'r>(
    fa: &FileAnalysis,
    c: &semdiff::Change,
    old_rows: &'r [SymbolRow],
    new_rows: &'r [SymbolRow],
) -> Option<&'r SymbolRow> {
    let pick = |rows: &'r [SymbolRow], d: &semdiff::DefInfo| {
        rows.iter()
            .find(|r| r.qualname == d.qualname && r.kind == d.kind)
            .or_else(|| rows.iter().find(|r| r.qualname == d.qualname))
    };
    let keeps_name = !matches!(c.kind, ChangeKind::Removed | ChangeKind::Renamed);
    c.old
        .and_then(|i| pick(old_rows, &fa.old.defs[i]))
        .or_else(|| {
            c.new
                .filter(|_| keeps_name)
                .and_then(|j| pick(new_rows, &fa.new.defs[j]))
        })
}

/// The reach of the change set `files` in the index (see [`Blast`]), each
/// caller-relevant changed definition assessed by [`tsa_analysis::trust`].
pub fn blast(index: &Index, root: &Path, files: &[FileAnalysis]) -> Result<Blast, ToolError> {
    let mut importers: HashMap<String, BTreeSet<String>> = HashMap::new();
    for e in index.file_imports()? {
        importers.entry(e.target_file).or_default().insert(e.file);
    }
    let changed: BTreeSet<String> = files
        .iter()
        .flat_map(|f| [f.change.path.clone(), f.change.old_path.clone()])
        .collect();
    let mut assessor = Assessor::new(index, root).expect_changed(changed.iter().cloned());
    let mut b = Blast {
        targets: Vec::new(),
        callers: Vec::new(),
        transitive_callers: 0,
        affected: BTreeSet::new(),
        reasons: BTreeMap::new(),
        direct: BTreeMap::new(),
        by_changed: BTreeMap::new(),
        module_changed: Vec::new(),
        defs: Vec::new(),
        importers,
    };
    // Targets per changed file (index rows), and the changed definitions.
    let mut file_targets: Vec<Vec<i64>> = Vec::with_capacity(files.len());
    for fa in files {
        b.direct.entry(fa.change.path.clone()).or_default();
        let mut ids = Vec::new();
        let Some(lang) = fa.language else {
            file_targets.push(ids);
            continue;
        };
        let old_rows = index.symbols_in_file(&fa.change.old_path)?;
        let new_rows = if fa.change.path == fa.change.old_path {
            Vec::new()
        } else {
            index.symbols_in_file(&fa.change.path)?
        };
        let new_rows = if new_rows.is_empty() {
            &old_rows
        } else {
            &new_rows
        };
        for c in &fa.changes {
            if !matches!(
                c.kind,
                ChangeKind::Removed
                    | ChangeKind::Renamed
                    | ChangeKind::SignatureChanged
                    | ChangeKind::BodyChanged
            ) {
                continue;
            }
            let row = index_row(fa, c, &old_rows, new_rows);
            let subject = match row {
                Some(r) => subjects_of(index, std::slice::from_ref(r))?.remove(0),
                None => match (c.old, c.new) {
                    (Some(i), _) => {
                        Subject::from_version(&fa.old, i, &fa.change.old_path, lang.name(), None)
                    }
                    (None, Some(j)) => {
                        Subject::from_version(&fa.new, j, &fa.change.path, lang.name(), None)
                    }
                    (None, None) => continue,
                },
            };
            let trust = assessor.assess_subjects(std::slice::from_ref(&subject), 0)?;
            if let Some(r) = row {
                ids.push(r.id);
                b.targets.push(r.clone());
            }
            b.defs.push(DefImpact {
                id: row.map(|r| r.id),
                file: fa.change.path.clone(),
                symbol: subject.qualname.clone(),
                kind: c.kind,
                callers: 0,
                trust,
            });
        }
        file_targets.push(ids);
    }
    // Direct callers of the targets.
    let ids: Vec<i64> = b.targets.iter().map(|t| t.id).collect();
    let target_set: BTreeSet<i64> = ids.iter().copied().collect();
    let by_id: HashMap<i64, &SymbolRow> = b.targets.iter().map(|t| (t.id, t)).collect();
    let edges = index.edges_to(&ids)?;
    let caller_rows = index.symbols_by_id(&edges.iter().map(|e| e.caller).collect::<Vec<_>>())?;
    let mut per_target: HashMap<i64, usize> = HashMap::new();
    for e in &edges {
        if target_set.contains(&e.caller) {
            continue;
        }
        if let (Some(c), Some(t)) = (caller_rows.get(&e.caller), by_id.get(&e.target)) {
            b.callers.push((c.clone(), t.qualname.clone(), e.line));
            *per_target.entry(e.target).or_default() += 1;
        }
    }
    for d in &mut b.defs {
        d.callers = d.id.map_or(0, |t| per_target.get(&t).copied().unwrap_or(0));
    }
    // What reaches the targets over resolved calls, per changed file.
    let mut g = IndexGraph::new(index);
    let mut reached: BTreeSet<i64> = BTreeSet::new();
    for (fa, ids) in files.iter().zip(&file_targets) {
        if ids.is_empty() {
            continue;
        }
        let walk = bfs(&mut g, ids, Dir::Up, CALLER_DEPTH)?;
        let nodes: Vec<(i64, u32)> = walk
            .nodes
            .iter()
            .copied()
            .filter(|(id, d)| *d > 0 && !target_set.contains(id))
            .collect();
        reached.extend(nodes.iter().map(|(id, _)| *id));
        let rows = index.symbols_by_id(&nodes.iter().map(|(id, _)| *id).collect::<Vec<_>>())?;
        for (id, depth) in nodes {
            if let Some(r) = rows.get(&id) {
                let why = if depth == 1 {
                    format!(
                        "{} calls a changed definition of {}",
                        r.qualname, fa.change.path
                    )
                } else {
                    format!(
                        "{} reaches a changed definition of {} through {depth} calls",
                        r.qualname, fa.change.path
                    )
                };
                b.add(&fa.change.path, &r.file, why, depth == 1);
            }
        }
    }
    b.transitive_callers = reached.len();
    // Importers: of a changed name, or of a file whose module-level code changed.
    for fa in files {
        let f = fa.change.path.as_str();
        if fa.module_changed() {
            b.module_changed.push(f.to_owned());
            let direct: BTreeSet<String> = [f, fa.change.old_path.as_str()]
                .iter()
                .filter_map(|p| b.importers.get(*p))
                .flatten()
                .cloned()
                .collect();
            for d in b.dependents_of(&[f, fa.change.old_path.as_str()]) {
                let why = if direct.contains(&d) {
                    format!("imports {f}, whose module-level code changed")
                } else {
                    format!("imports {f} (indirectly), whose module-level code changed")
                };
                let is_direct = direct.contains(&d);
                b.add(f, &d, why, is_direct);
            }
            continue;
        }
        let top: Vec<(&str, ChangeKind)> = fa
            .changes
            .iter()
            .filter(|c| c.kind.is_semantic() && c.kind != ChangeKind::Added)
            .filter_map(|c| {
                let d = c
                    .old
                    .map(|i| &fa.old.defs[i])
                    .or(c.new.map(|j| &fa.new.defs[j]))?;
                d.parent.is_none().then_some((d.name.as_str(), c.kind))
            })
            .collect();
        if top.is_empty() {
            continue;
        }
        let gone_public = top.iter().any(|(n, k)| {
            matches!(k, ChangeKind::Removed | ChangeKind::Renamed) && !n.starts_with('_')
        });
        let defined: BTreeSet<&str> = fa
            .old
            .defs
            .iter()
            .chain(&fa.new.defs)
            .map(|d| d.name.as_str())
            .collect();
        for row in index.importers_of_file(&fa.change.old_path)? {
            if changed.contains(&row.file) {
                continue;
            }
            let by_target = row
                .target
                .as_ref()
                .is_some_and(|t| target_set.contains(&t.id));
            let named = row
                .name
                .as_deref()
                .and_then(|n| top.iter().find(|(t, _)| *t == n));
            let whole_module =
                row.target.is_none() && row.name.as_deref().is_none_or(|n| !defined.contains(n));
            let why = if by_target || named.is_some() {
                format!(
                    "imports '{}' from {f}, which changed",
                    row.name.as_deref().unwrap_or(&row.alias)
                )
            } else if whole_module && gone_public {
                format!("imports {f} as a module, and a public name of it was removed or renamed")
            } else {
                continue;
            };
            b.add(f, &row.file, why, true);
        }
    }
    b.reasons.retain(|f, _| !changed.contains(f));
    b.affected = b.reasons.keys().cloned().collect();
    for set in b.by_changed.values_mut() {
        set.retain(|f| !changed.contains(f));
    }
    for list in b.direct.values_mut() {
        list.retain(|f| !changed.contains(f));
        list.sort();
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::testrepo::{add_all, commit, init, write};
    use crate::git::{DiffMode, Repo};

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
}
