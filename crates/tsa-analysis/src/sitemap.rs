//! The symbol map of a folder from the index (the engine of `structure sitemap`):
//! its indexed files with their definition counts, the definitions with their
//! nesting depth (in API mode only public, non-test, top-level or member ones), and
//! the files grouped by folder as modules.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use tsa_index::{Index, SymbolRow};
use tsa_lang::is_test_path;

use crate::ToolError;
use crate::signature::visibility;

/// An indexed file with its definition counts.
#[derive(Clone, Debug, Serialize)]
pub struct FileEntry {
    /// Project-relative path.
    pub file: String,
    /// Its language.
    pub language: String,
    /// Definitions in it.
    pub definitions: usize,
    /// Of which types.
    pub types: usize,
    /// Of which functions and methods.
    pub functions: usize,
}

/// A folder of the map, as a module.
#[derive(Clone, Debug, Serialize)]
pub struct ModuleRow {
    /// The folder (`.` for the root).
    pub module: String,
    /// Files in it.
    pub files: usize,
    /// Definitions in them.
    pub definitions: usize,
    /// Their languages, in order of first appearance (space-separated).
    #[serde(serialize_with = "crate::flat::spaced")]
    pub languages: Vec<String>,
}

/// A definition with its nesting depth (0 = top level).
#[derive(Clone, Debug)]
pub struct Placed {
    /// The definition.
    pub symbol: SymbolRow,
    /// Its nesting depth.
    pub depth: usize,
}

/// A definition as a row of the flat map.
#[derive(Clone, Debug, Serialize)]
pub struct FlatRow<'a> {
    /// Qualified name.
    pub qualified_name: &'a str,
    /// Kind.
    pub kind: &'a str,
    /// File.
    pub file: &'a str,
    /// First line.
    pub line: u32,
}

/// A definition as a row of the full map.
#[derive(Clone, Debug, Serialize)]
pub struct FullRow<'a> {
    /// File.
    pub file: &'a str,
    /// Bare name.
    pub name: &'a str,
    /// Qualified name.
    pub qualified_name: &'a str,
    /// Kind.
    pub kind: &'a str,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Nesting depth.
    pub depth: usize,
    /// Declaration header.
    pub signature: &'a str,
    /// Present (true) for test code.
    pub is_test: Option<bool>,
}

impl Placed {
    /// The row of the flat map.
    pub fn flat(&self) -> FlatRow<'_> {
        let y = &self.symbol;
        FlatRow {
            qualified_name: &y.qualname,
            kind: &y.kind,
            file: &y.file,
            line: y.line,
        }
    }

    /// The row of the full map.
    pub fn full(&self) -> FullRow<'_> {
        let y = &self.symbol;
        FullRow {
            file: &y.file,
            name: &y.name,
            qualified_name: &y.qualname,
            kind: &y.kind,
            line: y.line,
            end_line: y.end_line,
            depth: self.depth,
            signature: &y.signature,
            is_test: y.is_test.then_some(true),
        }
    }
}

/// The map of a folder.
#[derive(Clone, Debug, Default)]
pub struct SiteMap {
    /// Indexed files under the folder, in path order (none: nothing to map).
    pub files: Vec<FileEntry>,
    /// The definitions kept (impl blocks never; API mode: public API only).
    pub symbols: Vec<Placed>,
}

fn is_type(kind: &str) -> bool {
    matches!(
        kind,
        "class" | "struct" | "enum" | "trait" | "interface" | "type"
    )
}

/// The map of the files under `prefix` (`""`: everything), of one `language` when
/// given; `api` keeps only public definitions at depth <= 1 outside tests.
pub fn sitemap(
    index: &Index,
    prefix: &str,
    language: Option<&str>,
    api: bool,
) -> Result<SiteMap, ToolError> {
    let files = index.files_under(prefix, language)?;
    if files.is_empty() {
        return Ok(SiteMap::default());
    }
    let symbols = index.symbols_under(prefix, language)?;
    let parents: HashMap<i64, Option<i64>> =
        symbols.iter().map(|s| (s.symbol.id, s.parent)).collect();
    let depth = |mut id: i64| {
        let mut d = 0usize;
        while let Some(Some(p)) = parents.get(&id) {
            d += 1;
            id = *p;
            if d > 64 {
                break;
            }
        }
        d
    };
    let mut per_file: HashMap<&str, (usize, usize, usize)> = HashMap::new();
    for s in &symbols {
        let e = per_file.entry(s.symbol.file.as_str()).or_default();
        e.0 += 1;
        if is_type(&s.symbol.kind) {
            e.1 += 1;
        }
        if matches!(s.symbol.kind.as_str(), "function" | "method") {
            e.2 += 1;
        }
    }
    let files: Vec<FileEntry> = files
        .into_iter()
        .map(|(file, language)| {
            let (n, t, f) = per_file.get(file.as_str()).copied().unwrap_or_default();
            FileEntry {
                file,
                language,
                definitions: n,
                types: t,
                functions: f,
            }
        })
        .collect();
    let kept: Vec<Placed> = symbols
        .iter()
        .filter(|s| s.symbol.kind != "impl")
        .map(|s| Placed {
            symbol: s.symbol.clone(),
            depth: depth(s.symbol.id),
        })
        .filter(|p| {
            let y = &p.symbol;
            !api || (!y.is_test
                && !is_test_path(&y.file)
                && p.depth <= 1
                && visibility(&y.language, &y.name, &y.signature) == "public")
        })
        .collect();
    Ok(SiteMap {
        files,
        symbols: kept,
    })
}

/// The files grouped by folder, in folder order.
pub fn modules(files: &[FileEntry]) -> Vec<ModuleRow> {
    let mut modules: BTreeMap<String, ModuleRow> = BTreeMap::new();
    for f in files {
        let dir = f
            .file
            .rsplit_once('/')
            .map(|(d, _)| d)
            .unwrap_or(".")
            .to_owned();
        let m = modules.entry(dir.clone()).or_insert_with(|| ModuleRow {
            module: dir,
            files: 0,
            definitions: 0,
            languages: Vec::new(),
        });
        m.files += 1;
        m.definitions += f.definitions;
        if !m.languages.contains(&f.language) {
            m.languages.push(f.language.clone());
        }
    }
    modules.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_definitions_and_modules() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
        std::fs::write(
            dir.path().join("pkg/a.py"),
            "class Api:\n    def run(self):\n        pass\n\n    def _hidden(self):\n        pass\n\n\ndef _private():\n    pass\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("main.py"), "def main():\n    pass\n").unwrap();
        tsa_index::build(dir.path(), &tsa_index::BuildOptions::default()).unwrap();
        let ix = Index::open(dir.path()).unwrap().unwrap();
        let all = sitemap(&ix, "", None, false).unwrap();
        assert_eq!(all.files.len(), 2);
        let a = all.files.iter().find(|f| f.file == "pkg/a.py").unwrap();
        assert_eq!((a.definitions, a.types, a.functions), (4, 1, 3));
        let run = all.symbols.iter().find(|p| p.symbol.name == "run").unwrap();
        assert_eq!(run.depth, 1);
        let api = sitemap(&ix, "", None, true).unwrap();
        let names: Vec<&str> = api.symbols.iter().map(|p| p.symbol.name.as_str()).collect();
        assert!(
            names.contains(&"run") && !names.contains(&"_hidden"),
            "{names:?}"
        );
        let m = modules(&all.files);
        let dirs: Vec<(&str, usize)> = m.iter().map(|r| (r.module.as_str(), r.files)).collect();
        assert_eq!(dirs, [(".", 1), ("pkg", 1)]);
        assert!(
            sitemap(&ix, "nowhere", None, false)
                .unwrap()
                .files
                .is_empty()
        );
    }
}
