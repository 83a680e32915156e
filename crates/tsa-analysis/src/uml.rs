//! What `viz uml` draws, from the index and the parse tree: import weights between
//! packages (folders) or components (files), the control-flow steps of one function,
//! and Mermaid-safe class ids.

use std::collections::BTreeMap;
use std::path::Path;

use tsa_index::{Index, SymbolRow};
use tsa_lang::Language;

use crate::error::ToolError;

/// A Mermaid class id: letters, digits and `_` (a leading digit gets a `C`).
pub fn class_id(name: &str) -> String {
    let id: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if id.starts_with(|c: char| c.is_ascii_digit()) {
        format!("C{id}")
    } else {
        id
    }
}

/// How files are grouped in an import diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    /// Folders, this many levels (`(root)` for top-level files).
    Packages(usize),
    /// Files.
    Components,
}

impl Grouping {
    /// The group of a project file.
    pub fn of(self, file: &str) -> String {
        match self {
            Grouping::Packages(depth) => {
                let parts: Vec<&str> = file.split('/').collect();
                let dirs = &parts[..parts.len().saturating_sub(1)];
                if dirs.is_empty() {
                    "(root)".to_owned()
                } else {
                    dirs[..dirs.len().min(depth)].join("/")
                }
            }
            Grouping::Components => file.to_owned(),
        }
    }
}

/// Imports from one group to another: ((from, to), count).
pub type ImportWeight = ((String, String), usize);

/// Resolved imports between different groups, heaviest first (then by pair); test
/// files only with `tests`.
pub fn import_weights(
    index: &Index,
    grouping: Grouping,
    tests: bool,
) -> Result<Vec<ImportWeight>, ToolError> {
    let mut weights: BTreeMap<(String, String), usize> = BTreeMap::new();
    for imp in index.file_imports()? {
        let (f, t) = (imp.file.as_str(), imp.target_file.as_str());
        if !tests && (tsa_lang::is_test_path(f) || tsa_lang::is_test_path(t)) {
            continue;
        }
        let (a, b) = (grouping.of(f), grouping.of(t));
        if a != b {
            *weights.entry((a, b)).or_default() += 1;
        }
    }
    let mut edges: Vec<ImportWeight> = weights.into_iter().collect();
    edges.sort_by(|x, y| y.1.cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
    Ok(edges)
}

/// The step a node of a function body is: `decision`, `loop`, `return` or `try`.
fn step_of(n: tree_sitter::Node<'_>) -> Option<&'static str> {
    let kind = n.kind();
    if !n.is_named() {
        None
    } else if kind.contains("if") && (kind.ends_with("statement") || kind.ends_with("expression")) {
        Some("decision")
    } else if ["for", "while", "loop", "do_statement"]
        .iter()
        .any(|k| kind.starts_with(k))
    {
        Some("loop")
    } else if kind.starts_with("return") {
        Some("return")
    } else if kind.contains("try") && kind.ends_with("statement") {
        Some("try")
    } else {
        None
    }
}

/// The branching, looping, returning and `try` statements of definition `def`
/// after its first line, with their 1-based lines, in source order.
pub fn activity_steps(
    root: &Path,
    def: &SymbolRow,
) -> Result<Vec<(&'static str, usize)>, ToolError> {
    let Some(lang) = Language::from_path(&def.file) else {
        return Err(ToolError::Language(def.file.clone()));
    };
    let text = crate::security::read_text_in_root(root, &def.file)?;
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&lang.grammar())
        .map_err(|e| ToolError::Internal(e.to_string()))?;
    let tree = parser
        .parse(&text, None)
        .ok_or_else(|| ToolError::Internal("parse failed".into()))?;
    let (first, last) = (def.line as usize - 1, def.end_line as usize - 1);
    let mut steps: Vec<(&'static str, usize)> = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        let row = n.start_position().row;
        if n.end_position().row < first || row > last {
            continue;
        }
        if let Some(s) = step_of(n)
            && row > first
        {
            steps.push((s, row + 1));
        }
        let mut c = n.walk();
        let children: Vec<_> = n.children(&mut c).collect();
        stack.extend(children.into_iter().rev());
    }
    steps.sort_by_key(|(_, l)| *l);
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_ids_are_mermaid_safe() {
        assert_eq!(class_id("Foo"), "Foo");
        assert_eq!(class_id("a.b<T>"), "a_b_T_");
        assert_eq!(class_id("1x"), "C1x");
    }

    #[test]
    fn files_group_into_packages_or_components() {
        assert_eq!(Grouping::Packages(2).of("a/b/c/d.py"), "a/b");
        assert_eq!(Grouping::Packages(2).of("top.py"), "(root)");
        assert_eq!(Grouping::Components.of("a/b.py"), "a/b.py");
    }

    #[test]
    fn activity_steps_follow_the_source() {
        let dir = tempfile::tempdir().unwrap();
        let src =
            "def f(xs):\n    for x in xs:\n        if x:\n            return x\n    return None\n";
        std::fs::write(dir.path().join("m.py"), src).unwrap();
        let def = SymbolRow {
            id: 1,
            name: "f".into(),
            kind: "function".into(),
            qualname: "f".into(),
            owner: None,
            file: "m.py".into(),
            language: "python".into(),
            line: 1,
            end_line: 5,
            signature: String::new(),
            is_test: false,
        };
        let steps = activity_steps(dir.path(), &def).unwrap();
        assert_eq!(
            steps,
            [("loop", 2), ("decision", 3), ("return", 4), ("return", 5)]
        );
    }
}
