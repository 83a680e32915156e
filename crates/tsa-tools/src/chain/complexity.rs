//! McCabe cyclomatic complexity of definitions (analyses.md §2): 1 + decision
//! nodes inside the body, from one tree-sitter parse per file.

use std::path::Path;

use rustc_hash::FxHashMap;
use tsa_lang::Language;

use crate::hyphae::Universe;

/// Node kinds that add a branch, across the grammars (branches, loops, catches,
/// conditional expressions, comprehensions, match arms).
const DECISION: &[&str] = &[
    "if_statement",
    "if_expression",
    "if_let_expression",
    "elif_clause",
    "else_if_clause",
    "for_statement",
    "for_in_statement",
    "for_of_statement",
    "for_expression",
    "enhanced_for_statement",
    "foreach_statement",
    "for_each_statement",
    "while_statement",
    "while_expression",
    "while_let_expression",
    "do_statement",
    "do_while_statement",
    "loop_expression",
    "catch_clause",
    "except_clause",
    "rescue",
    "case_clause",
    "switch_case",
    "switch_section",
    "expression_case",
    "type_case",
    "match_arm",
    "when_entry",
    "conditional_expression",
    "ternary_expression",
    "conditional",
    "boolean_operator",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
    "guard",
];

/// Binary operators that short-circuit (each adds a path).
const SHORT_CIRCUIT: &[&str] = &["&&", "||", "and", "or", "??"];

fn count(node: tree_sitter::Node<'_>, first_row: usize, last_row: usize) -> u32 {
    let mut n = 0;
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(cur) = stack.pop() {
        let (s, e) = (cur.start_position().row, cur.end_position().row);
        if e < first_row || s > last_row {
            continue;
        }
        if s >= first_row && e <= last_row {
            let kind = cur.kind();
            if DECISION.contains(&kind) {
                n += 1;
            } else if matches!(
                kind,
                "binary_expression" | "binary_operator" | "logical_expression"
            ) && let Some(op) = cur.child_by_field_name("operator")
                && SHORT_CIRCUIT.contains(&op.kind())
            {
                n += 1;
            }
        }
        for child in cur.children(&mut cursor) {
            stack.push(child);
        }
    }
    n
}

/// Complexity per symbol id; `None` where the file cannot be read or parsed.
pub fn of_symbols(root: &Path, universe: &Universe, ids: &[i64]) -> FxHashMap<i64, Option<u32>> {
    let mut by_file: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
    for id in ids {
        if let Some(s) = universe.get(*id) {
            by_file.entry(s.file_id).or_default().push(*id);
        }
    }
    let mut out = FxHashMap::default();
    for (file_id, members) in by_file {
        let tree = universe.files.get(&file_id).and_then(|f| {
            let lang = Language::from_path(&f.path)?;
            let text = std::fs::read(root.join(&f.path)).ok()?;
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).ok()?;
            parser.parse(&text, None)
        });
        for id in members {
            let value = match (&tree, universe.get(id)) {
                (Some(t), Some(s)) if s.line >= 1 => {
                    let first = s.line as usize - 1;
                    let last = (s.end_line.max(s.line)) as usize - 1;
                    Some(1 + count(t.root_node(), first, last))
                }
                _ => None,
            };
            out.insert(id, value);
        }
    }
    out
}

/// The risk band of a complexity (analyses.md §2).
pub fn band(cc: u32) -> &'static str {
    match cc {
        0..=5 => "low",
        6..=10 => "medium",
        11..=20 => "high",
        _ => "critical",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_python_branches() {
        let src = "def f(x):\n    if x and x > 1:\n        return 1\n    for i in x:\n        pass\n    return 2 if x else 3\n";
        let mut p = tree_sitter::Parser::new();
        p.set_language(&Language::from_name("python").unwrap().grammar())
            .unwrap();
        let t = p.parse(src, None).unwrap();
        // if, and, for, conditional expression.
        assert_eq!(1 + count(t.root_node(), 0, 5), 5);
        assert_eq!(band(5), "low");
        assert_eq!(band(21), "critical");
    }
}
