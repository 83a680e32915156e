//! Project-level facts for `project overview` and `project parser`: the folder
//! structure and entry points from the index, the grade spread, and whether a
//! language's grammar and queries load.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use tsa_index::Index;
use tsa_lang::{Language, Tier};

use crate::error::ToolError;
use crate::health::{DepsMode, Scorer};

/// Names that start a program.
const ENTRY_NAMES: [&str; 4] = ["main", "__main__", "create_app", "run_server"];

/// A folder with the indexed files below it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Folder {
    pub folder: String,
    pub files: usize,
}

/// A function that starts a program (or a `__main__.py`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct EntryPoint {
    pub name: String,
    pub file: String,
    pub line: u32,
    pub language: String,
}

/// Every folder of `files` to `depth` levels, with the files below it, by path.
pub fn folders(files: &[String], depth: usize) -> Vec<Folder> {
    let mut folders: BTreeMap<String, usize> = BTreeMap::new();
    for f in files {
        let parts: Vec<&str> = f.split('/').collect();
        for n in 1..parts.len().min(depth + 1) {
            *folders.entry(parts[..n].join("/")).or_default() += 1;
        }
    }
    folders
        .into_iter()
        .map(|(folder, files)| Folder { folder, files })
        .collect()
}

/// Whether a file's name makes its `main` function an entry point.
fn main_file(base: &str) -> bool {
    let stem = base.split('.').next().unwrap_or(base);
    matches!(
        stem,
        "main" | "__main__" | "manage" | "app" | "server" | "cli"
    )
}

/// The entry points of the indexed `files`: top-level functions with a name that
/// starts a program, `main` in a main-like file, and every `__main__.py`.
pub fn entry_points(index: &Index, files: &[String]) -> Result<Vec<EntryPoint>, ToolError> {
    let mut entries = Vec::new();
    for f in files {
        let base = f.rsplit('/').next().unwrap_or(f);
        let main_file = main_file(base);
        for s in index.symbols_in_file(f)? {
            let entry = matches!(s.kind.as_str(), "function" | "method")
                && s.owner.is_none()
                && ENTRY_NAMES.contains(&s.name.as_str());
            if entry || (main_file && s.kind == "function" && s.name == "main") {
                entries.push(EntryPoint {
                    name: s.qualname,
                    file: s.file,
                    line: s.line,
                    language: s.language,
                });
            }
        }
        if base == "__main__.py" {
            entries.push(EntryPoint {
                name: "__main__".to_owned(),
                file: f.clone(),
                line: 1,
                language: "python".to_owned(),
            });
        }
    }
    Ok(entries)
}

/// Files per health grade (only grades that occur), every file scored.
pub fn grade_distribution(
    root: &Path,
    index: &Index,
    files: &[String],
) -> Result<BTreeMap<String, usize>, ToolError> {
    let scorer = Scorer::new(root, index, DepsMode::Full)?;
    let mut dist: BTreeMap<String, usize> = BTreeMap::new();
    for (_, r) in scorer.score_all(files) {
        if let Ok(score) = r {
            *dist.entry(score.grade.to_string()).or_default() += 1;
        }
    }
    Ok(dist)
}

/// The name of a tier.
pub fn tier_name(t: Tier) -> &'static str {
    match t {
        Tier::Full => "full",
        Tier::Symbol => "symbol",
        Tier::Structure => "structure",
    }
}

/// Whether the grammar loads and the queries compile (an empty parse runs both),
/// with the problem when not.
pub fn readiness(l: Language) -> (bool, Option<String>) {
    let mut p = tree_sitter::Parser::new();
    if let Err(e) = p.set_language(&l.grammar()) {
        return (false, Some(format!("grammar: {e}")));
    }
    match tsa_lang::extract(l, b"") {
        Ok(_) => (true, None),
        Err(e) => (false, Some(e.to_string())),
    }
}

/// What the index does with a language's files, by its tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    pub definitions: bool,
    pub imports: bool,
    pub call_graph: bool,
    pub indexed: bool,
}

/// The capabilities of a language.
pub fn capabilities(l: Language) -> Capabilities {
    Capabilities {
        definitions: true,
        imports: l.tier() != Tier::Structure,
        call_graph: l.tier() == Tier::Full,
        indexed: l.tier() != Tier::Structure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_count_the_files_below_them_to_a_depth() {
        let files: Vec<String> = ["a/b/c.py", "a/d.py", "e.py", "a/b/f/g.py"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let got: Vec<(String, usize)> = folders(&files, 2)
            .into_iter()
            .map(|f| (f.folder, f.files))
            .collect();
        assert_eq!(
            got,
            [("a".to_owned(), 3), ("a/b".to_owned(), 2)],
            "a/b/f is deeper than 2 levels"
        );
    }

    #[test]
    fn main_like_files_and_every_language_is_ready() {
        assert!(main_file("__main__.py") && main_file("cli.rs") && !main_file("util.py"));
        for l in Language::ALL {
            assert_eq!(readiness(*l), (true, None), "{}", l.name());
        }
        let c = capabilities(Language::from_name("python").unwrap());
        assert!(c.call_graph && c.indexed);
    }
}
