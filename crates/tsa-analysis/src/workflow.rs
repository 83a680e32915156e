//! The index facts behind `project workflow`: what the target is (a file, a folder or
//! the whole project), which indexed files it holds, how many of them changed since
//! the last build, and its production callables ranked by resolved fan-in.

use std::path::Path;

use serde::Serialize;
use tsa_index::{Index, WalkOptions, pending_changes};
use tsa_lang::is_test_path;

use crate::chain::fan_counts;
use crate::error::ToolError;
use crate::health::model::{CALLABLE, Scope};
use crate::hyphae::Universe;
use crate::security::resolve_in_root;
use crate::source::source_file;

/// What a workflow target is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The whole project (`.`).
    Project,
    /// A folder, project-relative, without a trailing `/`.
    Folder(String),
    /// A source file, project-relative.
    File(String),
}

impl Target {
    /// Its path (`.` for the project).
    pub fn path(&self) -> &str {
        match self {
            Target::Project => ".",
            Target::Folder(p) | Target::File(p) => p,
        }
    }

    /// `project`, `folder` or `file`.
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Project => "project",
            Target::Folder(_) => "folder",
            Target::File(_) => "file",
        }
    }
}

/// The target named by `input` (none, empty or `.`: the project); a path that does
/// not exist is NotFound, a file must be a source file.
pub fn target_of(root: &Path, input: Option<&str>) -> Result<Target, ToolError> {
    let raw = input.map(str::trim).unwrap_or("");
    if raw.is_empty() || raw == "." || raw == "./" {
        return Ok(Target::Project);
    }
    let (abs, rel) = resolve_in_root(root, raw)?;
    if !abs.exists() {
        return Err(ToolError::NotFound(rel));
    }
    if abs.is_dir() {
        let rel = rel.trim_end_matches('/').to_owned();
        return Ok(if rel.is_empty() || rel == "." {
            Target::Project
        } else {
            Target::Folder(rel)
        });
    }
    Ok(Target::File(source_file(root, raw)?))
}

/// The indexed files under `scope`, in the index's order.
pub fn files_in(index: &Index, scope: &Scope) -> Result<Vec<String>, ToolError> {
    Ok(index
        .files()?
        .into_iter()
        .filter(|f| scope.holds(f))
        .collect())
}

/// How many files under `scope` are new, modified or deleted since the last build.
pub fn stale_count(root: &Path, scope: &Scope) -> Result<usize, ToolError> {
    let pending = pending_changes(root, &WalkOptions::default())?;
    Ok(pending
        .new
        .iter()
        .chain(&pending.modified)
        .chain(&pending.deleted)
        .filter(|f| scope.holds(f))
        .count())
}

/// A production callable of the target, ranked by resolved fan-in.
#[derive(Clone, Debug, Serialize)]
pub struct FocusFunction {
    /// Qualified name.
    pub name: String,
    /// Definition kind.
    pub kind: String,
    /// Its file, project-relative.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Resolved callers.
    pub fan_in: usize,
    /// Resolved callees.
    pub fan_out: usize,
}

/// Most callers first, then most callees, then by file and line.
pub fn rank(functions: &mut [FocusFunction]) {
    functions.sort_by(|a, b| {
        b.fan_in
            .cmp(&a.fan_in)
            .then_with(|| b.fan_out.cmp(&a.fan_out))
            .then_with(|| (&a.file, a.line).cmp(&(&b.file, b.line)))
    });
}

/// The production callables under `scope` (test code left out), most called first.
pub fn focus_functions(index: &Index, scope: &Scope) -> Result<Vec<FocusFunction>, ToolError> {
    let universe = Universe::load(index)?;
    let in_target: Vec<i64> = universe
        .syms
        .iter()
        .filter(|s| CALLABLE.contains(&s.kind.as_str()) && !s.is_test)
        .filter(|s| {
            universe
                .file_of(s)
                .is_some_and(|f| scope.holds(&f.path) && !is_test_path(&f.path))
        })
        .map(|s| s.id)
        .collect();
    let fans = fan_counts(index, &universe, &in_target)?;
    let mut out: Vec<FocusFunction> = in_target
        .iter()
        .filter_map(|id| {
            let s = universe.get(*id)?;
            let file = universe.file_of(s)?;
            let f = fans.get(id).copied().unwrap_or_default();
            Some(FocusFunction {
                name: s.qualname.clone(),
                kind: s.kind.clone(),
                file: file.path.clone(),
                line: s.line,
                end_line: s.end_line,
                fan_in: f.fan_in,
                fan_out: f.fan_out,
            })
        })
        .collect();
    rank(&mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, file: &str, line: u32, fan_in: usize, fan_out: usize) -> FocusFunction {
        FocusFunction {
            name: name.into(),
            kind: "function".into(),
            file: file.into(),
            line,
            end_line: line + 1,
            fan_in,
            fan_out,
        }
    }

    #[test]
    fn focus_functions_rank_by_fan_in_then_fan_out_then_place() {
        let mut v = vec![
            f("c", "b.py", 1, 1, 0),
            f("a", "a.py", 9, 2, 0),
            f("b", "a.py", 3, 1, 0),
            f("d", "a.py", 1, 1, 4),
        ];
        rank(&mut v);
        let names: Vec<&str> = v.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, ["a", "d", "b", "c"]);
    }

    #[test]
    fn targets_name_their_kind_and_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 1\n").unwrap();
        let root = dir.path();
        assert_eq!(target_of(root, None).unwrap(), Target::Project);
        assert_eq!(target_of(root, Some("./")).unwrap().kind(), "project");
        let folder = target_of(root, Some("src/")).unwrap();
        assert_eq!((folder.kind(), folder.path()), ("folder", "src"));
        let file = target_of(root, Some("src/a.py")).unwrap();
        assert_eq!((file.kind(), file.path()), ("file", "src/a.py"));
        assert!(matches!(
            target_of(root, Some("nope")),
            Err(ToolError::NotFound(_))
        ));
    }
}
