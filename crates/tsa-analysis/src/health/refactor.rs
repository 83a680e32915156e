//! Extract-method candidates for `edit refactor`: long or complex functions with the
//! blocks inside them worth extracting and their line ranges, complexity hotspots
//! and a skeleton of the file, all from the parse tree.

use std::path::Path;

use serde::Serialize;
use tree_sitter::Node;
use tsa_lang::Language;

use crate::complexity::{self, FunctionCc, Rules, band};
use crate::error::ToolError;
use crate::health::HealthConfig;

/// A block of a function body worth a helper of its own.
#[derive(Clone, Debug, Serialize)]
pub struct Extraction {
    pub start_line: u32,
    pub end_line: u32,
    pub lines: u32,
    /// The statement's node kind, or `N consecutive branching statements`.
    pub node_kind: String,
    /// Paths the block takes out of the function.
    pub complexity_removed: u32,
    pub suggestion: String,
}

/// A function over a threshold, with the blocks to extract from it.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub name: String,
    pub line: u32,
    pub end_line: u32,
    pub lines: u32,
    pub complexity: u32,
    pub band: &'static str,
    pub nesting: u32,
    /// Which thresholds it passes.
    pub reason: String,
    /// Its blocks to extract, most complex first (when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extractions: Option<Vec<Extraction>>,
}

/// A function of complexity above 10.
#[derive(Clone, Debug, Serialize)]
pub struct Hotspot {
    pub name: String,
    pub line: u32,
    pub end_line: u32,
    pub complexity: u32,
    pub band: &'static str,
}

/// A class or function of the file's skeleton.
#[derive(Clone, Debug, Serialize)]
pub struct SkeletonItem {
    /// `class` or `function`.
    pub kind: &'static str,
    pub name: String,
    pub line: u32,
    /// Last line (functions only; `null` for classes).
    pub end_line: Option<u32>,
    /// The first line of the definition, trimmed, at most 160 characters.
    pub signature: String,
}

/// The thresholds a function is measured against (`.tsa` health config).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Thresholds {
    pub complexity: f64,
    pub lines: f64,
}

/// What `edit refactor` reports for one file.
#[derive(Clone, Debug)]
pub struct RefactorPlan {
    pub language: Language,
    pub thresholds: Thresholds,
    /// Most complex first, then longest.
    pub candidates: Vec<Candidate>,
    /// Most complex first, then by line.
    pub hotspots: Vec<Hotspot>,
    /// Functions of the file.
    pub functions: usize,
    /// Classes and functions by line (when asked for).
    pub skeleton: Option<Vec<SkeletonItem>>,
}

/// Blocks shorter than this are not worth a helper of their own.
const MIN_BLOCK_LINES: u32 = 5;

fn rows_of(n: Node<'_>) -> (u32, u32) {
    (
        n.start_position().row as u32 + 1,
        n.end_position().row as u32 + 1,
    )
}

/// Top-level statements of a function body that span at least `MIN_BLOCK_LINES`
/// lines or add at least 3 paths, and runs of consecutive branching statements
/// (dispatch chains): each a candidate helper, most complex first.
fn extractions(rules: &Rules, func: Node<'_>) -> Vec<Extraction> {
    let Some(body) = func.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut out: Vec<Extraction> = Vec::new();
    let mut push = |a: u32, b: u32, paths: u32, what: String| {
        out.push(Extraction {
            start_line: a,
            end_line: b,
            lines: b - a + 1,
            suggestion: format!("extract lines {a}-{b} ({what}) into a named helper"),
            node_kind: what,
            complexity_removed: paths,
        });
    };
    let mut cursor = body.walk();
    let stmts: Vec<Node<'_>> = body
        .named_children(&mut cursor)
        .filter(|n| !n.kind().contains("comment"))
        .collect();
    // Runs of consecutive branching statements (a dispatch chain) as one block.
    let mut i = 0;
    while i < stmts.len() {
        let paths = complexity::decisions_within(rules, stmts[i]);
        let (a, b) = rows_of(stmts[i]);
        let mut j = i + 1;
        let mut run_paths = paths;
        if paths > 0 {
            while j < stmts.len() {
                let p = complexity::decisions_within(rules, stmts[j]);
                if p == 0 {
                    break;
                }
                run_paths += p;
                j += 1;
            }
        }
        if j - i >= 2 {
            let (_, end) = rows_of(stmts[j - 1]);
            if end - a + 1 >= MIN_BLOCK_LINES || run_paths >= 3 {
                push(
                    a,
                    end,
                    run_paths,
                    format!("{} consecutive branching statements", j - i),
                );
            }
            i = j;
            continue;
        }
        if b - a + 1 >= MIN_BLOCK_LINES || paths >= 3 {
            push(a, b, paths, stmts[i].kind().to_owned());
        }
        i += 1;
    }
    out.sort_by(|x, y| {
        y.complexity_removed
            .cmp(&x.complexity_removed)
            .then(y.lines.cmp(&x.lines))
    });
    out
}

fn functions_with_nodes<'t>(rules: &Rules, root: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(cur) = stack.pop() {
        if rules.is_function(cur) {
            out.push(cur);
        }
        stack.extend(cur.children(&mut cursor));
    }
    out.sort_by_key(|n| n.start_byte());
    out
}

/// A function over a threshold as a candidate, or `None`.
fn candidate(
    rules: &Rules,
    m: &FunctionCc,
    node: Node<'_>,
    t: Thresholds,
    with_blocks: bool,
) -> Option<Candidate> {
    let lines = m.end_line - m.line + 1;
    let complex = f64::from(m.complexity) > t.complexity;
    let long = f64::from(lines) > t.lines;
    if !(complex || long) {
        return None;
    }
    let mut reasons = Vec::new();
    if complex {
        reasons.push(format!("complexity {} > {}", m.complexity, t.complexity));
    }
    if long {
        reasons.push(format!("{lines} lines > {}", t.lines));
    }
    Some(Candidate {
        name: m.name.clone(),
        line: m.line,
        end_line: m.end_line,
        lines,
        complexity: m.complexity,
        band: band(m.complexity),
        nesting: m.nesting,
        reason: reasons.join("; "),
        extractions: with_blocks.then(|| extractions(rules, node)),
    })
}

fn skeleton(
    rules: &Rules,
    root: Node<'_>,
    text: &str,
    metrics: &[FunctionCc],
) -> Vec<SkeletonItem> {
    let classes = complexity::classes(rules, root, text.as_bytes());
    let mut items: Vec<(u32, u32, &'static str, String)> = classes
        .iter()
        .map(|c| (c.line, 0, "class", c.name.clone()))
        .chain(
            metrics
                .iter()
                .map(|f| (f.line, f.end_line, "function", f.name.clone())),
        )
        .collect();
    items.sort_by_key(|i| i.0);
    let lines: Vec<&str> = text.lines().collect();
    items
        .into_iter()
        .map(|(line, end, kind, name)| {
            let head = lines.get(line as usize - 1).map_or("", |l| l.trim());
            SkeletonItem {
                kind,
                name,
                line,
                end_line: (end != 0).then_some(end),
                signature: head.chars().take(160).collect(),
            }
        })
        .collect()
}

/// The extract-method plan of project file `rel` (project-relative, a source file).
pub fn plan(
    root: &Path,
    rel: &str,
    include_extractions: bool,
    include_skeleton: bool,
) -> Result<RefactorPlan, ToolError> {
    let lang = Language::from_path(rel).ok_or_else(|| ToolError::Language(rel.to_owned()))?;
    let rules = complexity::rules(lang).ok_or_else(|| ToolError::Language(rel.to_owned()))?;
    let text = crate::security::read_text_in_root(root, rel)?;
    let tree = complexity::parse(lang, text.as_bytes())
        .ok_or_else(|| ToolError::Internal(format!("cannot parse '{rel}'")))?;
    let cfg = HealthConfig::load(root)?;
    let threshold = |id: &str, d: f64| cfg.smells.get(id).map_or(d, |r| r.warning);
    let thresholds = Thresholds {
        complexity: threshold("complex_function", 10.0),
        lines: threshold("long_method", 50.0),
    };
    let metrics = complexity::functions(rules, tree.root_node(), text.as_bytes());
    let nodes = functions_with_nodes(rules, tree.root_node());
    let mut candidates: Vec<Candidate> = metrics
        .iter()
        .zip(nodes.iter())
        .filter_map(|(m, node)| candidate(rules, m, *node, thresholds, include_extractions))
        .collect();
    candidates.sort_by(|a, b| b.complexity.cmp(&a.complexity).then(b.lines.cmp(&a.lines)));
    let mut hot: Vec<&FunctionCc> = metrics.iter().filter(|f| f.complexity > 10).collect();
    hot.sort_by(|a, b| b.complexity.cmp(&a.complexity).then(a.line.cmp(&b.line)));
    let hotspots = hot
        .iter()
        .map(|f| Hotspot {
            name: f.name.clone(),
            line: f.line,
            end_line: f.end_line,
            complexity: f.complexity,
            band: band(f.complexity),
        })
        .collect();
    Ok(RefactorPlan {
        language: lang,
        thresholds,
        candidates,
        hotspots,
        functions: metrics.len(),
        skeleton: include_skeleton.then(|| skeleton(rules, tree.root_node(), &text, &metrics)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_and_complex_functions_are_candidates_with_their_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let mut src =
            String::from("class K:\n    pass\n\n\ndef small():\n    return 1\n\n\ndef big(x):\n");
        for i in 0..12 {
            src.push_str(&format!("    if x == {i}:\n        x += 1\n"));
        }
        src.push_str("    return x\n");
        std::fs::write(dir.path().join("m.py"), &src).unwrap();
        let p = plan(dir.path(), "m.py", true, true).unwrap();
        assert_eq!(p.functions, 2);
        assert_eq!(p.candidates.len(), 1);
        let c = &p.candidates[0];
        assert_eq!(c.name, "big");
        assert!(c.reason.starts_with("complexity 13 > 10"), "{}", c.reason);
        let blocks = c.extractions.as_ref().unwrap();
        assert_eq!(blocks[0].node_kind, "12 consecutive branching statements");
        assert_eq!(p.hotspots.len(), 1);
        let skeleton = p.skeleton.unwrap();
        let kinds: Vec<(&str, Option<u32>)> =
            skeleton.iter().map(|s| (s.kind, s.end_line)).collect();
        assert_eq!(
            kinds,
            [
                ("class", None),
                ("function", Some(6)),
                ("function", Some(34))
            ]
        );
        assert_eq!(skeleton[2].signature, "def big(x):");
        let lean = plan(dir.path(), "m.py", false, false).unwrap();
        assert!(lean.candidates[0].extractions.is_none() && lean.skeleton.is_none());
    }
}
