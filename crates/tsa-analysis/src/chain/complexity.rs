//! Complexity of chain-DSL working sets: a thin adapter over the canonical
//! definition in `crate::complexity` (analyses.md §2).

use std::path::Path;

use rustc_hash::FxHashMap;
use tsa_lang::Language;

use crate::complexity as canonical;
use crate::hyphae::Universe;

/// Complexity per symbol id; `None` where the file cannot be read or parsed or its
/// language has no complexity rules. Delegates to the canonical definition
/// (`crate::complexity`).
pub fn of_symbols(root: &Path, universe: &Universe, ids: &[i64]) -> FxHashMap<i64, Option<u32>> {
    let mut by_file: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
    for id in ids {
        if let Some(s) = universe.get(*id) {
            by_file.entry(s.file_id).or_default().push(*id);
        }
    }
    let mut out = FxHashMap::default();
    for (file_id, members) in by_file {
        let parsed = universe.files.get(&file_id).and_then(|f| {
            let lang = Language::from_path(&f.path)?;
            let rules = canonical::rules(lang)?;
            let text = crate::security::read_in_root(root, &f.path).ok()?;
            Some((rules, canonical::parse(lang, &text)?))
        });
        for id in members {
            let value = match (&parsed, universe.get(id)) {
                (Some((rules, tree)), Some(s)) if s.line >= 1 => Some(canonical::of_span(
                    rules,
                    tree.root_node(),
                    s.line,
                    s.end_line,
                )),
                _ => None,
            };
            out.insert(id, value);
        }
    }
    out
}

/// The risk band of a complexity (analyses.md §2).
pub fn band(cc: u32) -> &'static str {
    canonical::band(cc)
}
