//! A source bundle for symbols (the engine of `structure explore`): the definitions
//! of some names (or the BM25 hits of a free-text query), grouped by file, each
//! with its caller count, its callees and, while the body budget lasts, its code.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;
use crate::signature::split_qualified;
use crate::source::Bodies;

/// A name that matched nothing, with close names.
#[derive(Clone, Debug, Serialize)]
pub struct MissingName {
    /// The name (or query) as asked.
    pub name: String,
    /// Close names in the index.
    pub suggestions: Vec<String>,
}

/// One definition of the bundle; flat and uniform (one TOON table): the code and
/// the lines cut from it are null for rows without code.
#[derive(Clone, Debug, Serialize)]
pub struct ExploreRow {
    /// Bare name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Kind.
    pub kind: String,
    /// File.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Language.
    pub language: String,
    /// Declaration header.
    pub signature: String,
    /// Resolved call edges reaching it.
    pub caller_count: usize,
    /// Distinct definitions it calls.
    pub callee_count: usize,
    /// The first ten of them, comma-separated.
    pub callees: String,
    /// Whether it is test code.
    pub is_test: bool,
    /// Its source, while the budget lasts.
    pub code: Option<String>,
    /// The lines cut from the code by the per-body cap.
    pub code_cut_lines: Option<String>,
}

/// A file of the matched definitions.
#[derive(Clone, Debug, Serialize)]
pub struct FileRow {
    /// Project-relative path.
    pub file: String,
    /// Matched definitions in it.
    pub symbols: usize,
}

/// What the bundle holds.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// The definitions of the first `max_files` files, at most `max_symbols`.
    pub rows: Vec<ExploreRow>,
    /// Every matched definition.
    pub total: usize,
    /// Every file of a match, in order of first appearance.
    pub files: Vec<FileRow>,
    /// Names that matched nothing.
    pub missing: Vec<MissingName>,
}

/// A bundle, or the names that matched nothing.
#[derive(Clone, Debug)]
pub enum ExploreLookup {
    /// Something matched.
    Found(Box<Bundle>),
    /// Nothing did.
    Missing(Vec<MissingName>),
}

/// The definitions of `names` (or, with no names, the BM25 hits of `query`), each
/// once; the misses, with close names for the first `suggested_misses` of them.
fn matches(
    index: &Index,
    names: &[String],
    query: &str,
    max_symbols: usize,
    suggested_misses: usize,
) -> Result<(Vec<SymbolRow>, Vec<MissingName>), ToolError> {
    let mut matched: Vec<SymbolRow> = Vec::new();
    let mut missing: Vec<MissingName> = Vec::new();
    if names.is_empty() {
        let (rows, _) = index.search(query, None, &[], (max_symbols * 4).max(100))?;
        matched.extend(
            rows.into_iter()
                .map(|(s, _)| s)
                .filter(|s| s.kind != "impl"),
        );
        if matched.is_empty() {
            missing.push(MissingName {
                name: query.to_owned(),
                suggestions: index.suggest(query, 5)?,
            });
        }
    } else {
        for n in names {
            let (owner, name) = split_qualified(n);
            let defs: Vec<SymbolRow> = index
                .find_symbols(name, owner, None)?
                .into_iter()
                .filter(|s| !matches!(s.kind.as_str(), "impl" | "module"))
                .collect();
            if defs.is_empty() {
                // Close names for the first few misses only.
                let suggestions = if missing.len() < suggested_misses {
                    index.suggest(name, 5)?
                } else {
                    Vec::new()
                };
                missing.push(MissingName {
                    name: n.clone(),
                    suggestions,
                });
            }
            matched.extend(defs);
        }
    }
    let mut seen = HashSet::new();
    matched.retain(|s| seen.insert(s.id));
    Ok((matched, missing))
}

/// Caller counts and callee names (distinct, in edge order) of `ids`.
type Fans = (HashMap<i64, usize>, HashMap<i64, Vec<String>>);

fn fans(index: &Index, ids: &[i64]) -> Result<Fans, ToolError> {
    let mut callers: HashMap<i64, usize> = HashMap::new();
    for e in index.edges_to(ids)? {
        *callers.entry(e.target).or_default() += 1;
    }
    let out_edges = index.edges_from(ids)?;
    let targets: Vec<i64> = out_edges.iter().map(|e| e.target).collect();
    let names_by_id = index.symbols_by_id(&targets)?;
    let mut callees: HashMap<i64, Vec<String>> = HashMap::new();
    for e in &out_edges {
        if let Some(t) = names_by_id.get(&e.target) {
            let v = callees.entry(e.caller).or_default();
            if !v.contains(&t.qualname) {
                v.push(t.qualname.clone());
            }
        }
    }
    Ok((callers, callees))
}

/// The bundle for `names` or `query`: the matches of the first `max_files` files
/// (in order of first appearance), at most `max_symbols`, code from `bodies`.
pub fn explore(
    index: &Index,
    names: &[String],
    query: &str,
    max_files: usize,
    max_symbols: usize,
    suggested_misses: usize,
    bodies: &mut Bodies<'_>,
) -> Result<ExploreLookup, ToolError> {
    let (matched, missing) = matches(index, names, query, max_symbols, suggested_misses)?;
    if matched.is_empty() {
        return Ok(ExploreLookup::Missing(missing));
    }
    let mut files: Vec<FileRow> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for s in &matched {
        match at.get(s.file.as_str()) {
            Some(&i) => files[i].symbols += 1,
            None => {
                at.insert(&s.file, files.len());
                files.push(FileRow {
                    file: s.file.clone(),
                    symbols: 1,
                });
            }
        }
    }
    let kept_files: HashSet<&str> = files
        .iter()
        .take(max_files)
        .map(|f| f.file.as_str())
        .collect();
    let kept: Vec<&SymbolRow> = matched
        .iter()
        .filter(|s| kept_files.contains(s.file.as_str()))
        .take(max_symbols)
        .collect();
    let ids: Vec<i64> = kept.iter().map(|s| s.id).collect();
    let (callers, callees) = fans(index, &ids)?;
    let rows: Vec<ExploreRow> = kept
        .iter()
        .map(|s| {
            let cs = callees.get(&s.id).cloned().unwrap_or_default();
            let b = bodies.inline(&s.file, s.line, s.end_line);
            ExploreRow {
                name: s.name.clone(),
                qualified_name: s.qualname.clone(),
                kind: s.kind.clone(),
                file: s.file.clone(),
                line: s.line,
                end_line: s.end_line,
                language: s.language.clone(),
                signature: s.signature.clone(),
                caller_count: callers.get(&s.id).copied().unwrap_or(0),
                callee_count: cs.len(),
                callees: cs
                    .iter()
                    .take(10)
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
                is_test: s.is_test,
                code: b.body,
                code_cut_lines: b.body_cut_lines,
            }
        })
        .collect();
    Ok(ExploreLookup::Found(Box::new(Bundle {
        rows,
        total: matched.len(),
        files,
        missing,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::BodyBudget;

    #[test]
    fn a_bundle_by_names_and_by_query() {
        let (dir, ix) = crate::test_support::index_of(&[
            (
                "a.py",
                "def helper():\n    return 1\n\n\ndef build():\n    return helper()\n",
            ),
            ("b.py", "def build_all():\n    pass\n"),
        ]);
        let budget = BodyBudget {
            rows: 1,
            lines_each: 40,
            lines_total: 400,
        };
        let mut bodies = Bodies::new(dir.path(), budget);
        let names = ["build".to_owned(), "helper".to_owned(), "nope".to_owned()];
        let ExploreLookup::Found(b) = explore(&ix, &names, "", 12, 20, 8, &mut bodies).unwrap()
        else {
            panic!("found")
        };
        assert_eq!(b.rows[0].name, "build");
        assert_eq!(b.rows[0].callees, "helper");
        assert!(b.rows[0].code.is_some() && b.rows[1].code.is_none());
        assert_eq!(b.rows[1].caller_count, 1);
        assert_eq!(b.missing[0].name, "nope");
        assert_eq!(b.files.len(), 1);
        let mut bodies = Bodies::new(dir.path(), budget);
        let r = explore(&ix, &[], "zzq", 12, 20, 8, &mut bodies).unwrap();
        assert!(matches!(r, ExploreLookup::Missing(m) if m.len() == 1));
    }
}
