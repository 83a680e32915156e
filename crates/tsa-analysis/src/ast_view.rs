//! The parse tree at one line of a file (the engine of `structure ast_path`): the
//! named-node path from the root, the definitions enclosing the line, the subtree
//! of the innermost one (or of the whole file), or the nodes beside the one at the
//! line.

use serde::Serialize;
use tree_sitter::{Node, Parser, Point};
use tsa_lang::{FileExtract, Language};

use crate::ToolError;

/// Which view of the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Named nodes from the root to the innermost node at the line.
    Path,
    /// Enclosing definitions, outermost first.
    Scope,
    /// The subtree of the innermost enclosing definition, `max_depth` levels.
    Outline,
    /// The named nodes beside the innermost node at the line.
    Siblings,
}

/// A parse-tree node.
#[derive(Clone, Debug, Serialize)]
pub struct NodeRow {
    /// Levels below the first listed node (absent for siblings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
    /// Node kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// First line.
    pub start_line: usize,
    /// Last line.
    pub end_line: usize,
    /// Its `name` field (80 characters at most; null when it has none).
    pub name: Option<String>,
    /// True for an error or missing node (null otherwise).
    pub error: Option<bool>,
}

/// A node beside the one at the line: the node's fields without `depth`, then
/// `is_target`. Its keys keep the order answers have always had: the node's last
/// field first, then the others (the row was once built with `depth` and lost it
/// to an order-preserving map's swap-remove, which moved the last key into its
/// place).
#[derive(Clone, Debug)]
pub struct SiblingRow {
    /// The node (its `depth` is not shown).
    pub node: NodeRow,
    /// Whether it is the node at the line.
    pub is_target: bool,
}

impl Serialize for SiblingRow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        use serde_json::Value;
        let n = &self.node;
        let mut fields: Vec<(&str, Value)> = vec![
            ("type", Value::from(n.kind.as_str())),
            ("start_line", Value::from(n.start_line)),
            ("end_line", Value::from(n.end_line)),
        ];
        if let Some(name) = &n.name {
            fields.push(("name", Value::from(name.as_str())));
        }
        if let Some(e) = n.error {
            fields.push(("error", Value::from(e)));
        }
        let last = fields.pop();
        let mut m = s.serialize_map(Some(fields.len() + 2))?;
        for (k, v) in last.iter().chain(&fields) {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("is_target", &self.is_target)?;
        m.end()
    }
}

/// An enclosing definition.
#[derive(Clone, Debug, Serialize)]
pub struct ScopeRow {
    /// Nesting level (0 = outermost).
    pub depth: usize,
    /// Definition kind.
    pub kind: &'static str,
    /// Bare name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// Declaration header.
    pub signature: String,
}

/// One row of a view.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum AstRow {
    /// A parse-tree node.
    Node(NodeRow),
    /// An enclosing definition.
    Scope(ScopeRow),
    /// A node beside the one at the line.
    Sibling(SiblingRow),
}

/// A view of the tree at a line.
#[derive(Clone, Debug)]
pub struct AstView {
    /// Its rows.
    pub rows: Vec<AstRow>,
    /// Kind of the innermost node at the line (the root's without a line).
    pub innermost: String,
    /// The tree has syntax errors.
    pub has_error: bool,
}

fn node_row(n: Node<'_>, src: &[u8], depth: Option<usize>) -> NodeRow {
    NodeRow {
        depth,
        kind: n.kind().to_owned(),
        start_line: n.start_position().row + 1,
        end_line: n.end_position().row + 1,
        name: n
            .child_by_field_name("name")
            .and_then(|name| name.utf8_text(src).ok())
            .map(|t| t.chars().take(80).collect()),
        error: (n.is_error() || n.is_missing()).then_some(true),
    }
}

/// The innermost named node at the first non-blank column of `line` (1-based).
fn node_at<'t>(root: Node<'t>, text: &str, line: usize) -> Node<'t> {
    let l = text.lines().nth(line - 1).unwrap_or("");
    let col = l.len() - l.trim_start().len();
    let p = Point::new(line - 1, col);
    root.named_descendant_for_point_range(p, p).unwrap_or(root)
}

/// The subtree of `n` down to `max` levels, in source order (an explicit stack:
/// `max` may exceed what the thread's stack would hold).
fn outline_rows(n: Node<'_>, src: &[u8], max: usize) -> Vec<AstRow> {
    let mut out = Vec::new();
    let mut stack = vec![(n, 0)];
    let mut cursor = n.walk();
    while let Some((n, depth)) = stack.pop() {
        out.push(AstRow::Node(node_row(n, src, Some(depth))));
        if depth >= max {
            continue;
        }
        let start = stack.len();
        stack.extend(n.named_children(&mut cursor).map(|c| (c, depth + 1)));
        stack[start..].reverse();
    }
    out
}

/// Nesting depth of definition `i` (0 = top level).
fn def_depth(x: &FileExtract, i: usize) -> usize {
    let mut depth = 0;
    let mut at = x.defs[i].parent;
    while let Some(p) = at {
        depth += 1;
        at = x.defs[p].parent;
        if depth > 256 {
            break;
        }
    }
    depth
}

/// The definitions enclosing `line`, outermost first (by nesting, then start).
fn scopes(x: &FileExtract, line: Option<usize>) -> Vec<usize> {
    let mut scopes: Vec<usize> = match line {
        Some(l) => (0..x.defs.len())
            .filter(|&i| x.defs[i].line as usize <= l && l <= x.defs[i].end_line as usize)
            .collect(),
        None => Vec::new(),
    };
    scopes.sort_by_key(|&i| (def_depth(x, i), x.defs[i].start_byte));
    scopes
}

fn siblings(t: Node<'_>, src: &[u8]) -> Vec<AstRow> {
    match t.parent() {
        Some(p) => {
            let mut cursor = p.walk();
            p.named_children(&mut cursor)
                .map(|c| {
                    AstRow::Sibling(SiblingRow {
                        node: node_row(c, src, None),
                        is_target: c.id() == t.id(),
                    })
                })
                .collect()
        }
        None => vec![AstRow::Node(node_row(t, src, Some(0)))],
    }
}

/// The `view` of `text` (parsed as `lang`, definitions in `x`) at `line` (1-based,
/// checked by the caller; none only for the outline of the whole file).
pub fn ast_view(
    lang: Language,
    rel: &str,
    text: &str,
    x: &FileExtract,
    line: Option<usize>,
    view: View,
    max_depth: usize,
) -> Result<AstView, ToolError> {
    let mut parser = Parser::new();
    parser
        .set_language(&lang.grammar())
        .map_err(|_| ToolError::Internal(format!("no grammar for {}", lang.name())))?;
    let tree = parser
        .parse(text.as_bytes(), None)
        .ok_or_else(|| ToolError::Internal(format!("cannot parse '{rel}'")))?;
    let src = text.as_bytes();
    let root = tree.root_node();
    let target = line.map(|l| node_at(root, text, l));
    let scopes = scopes(x, line);
    let rows = match view {
        View::Path => {
            let mut chain: Vec<Node<'_>> = Vec::new();
            let mut at = target;
            while let Some(n) = at {
                chain.push(n);
                at = n.parent();
            }
            chain.reverse();
            chain
                .iter()
                .enumerate()
                .map(|(d, n)| AstRow::Node(node_row(*n, src, Some(d))))
                .collect()
        }
        View::Scope => scopes
            .iter()
            .enumerate()
            .map(|(d, &i)| {
                let def = &x.defs[i];
                AstRow::Scope(ScopeRow {
                    depth: d,
                    kind: def.kind.as_str(),
                    name: def.name.clone(),
                    qualified_name: def.qualname.clone(),
                    start_line: def.line,
                    end_line: def.end_line,
                    signature: def.signature.clone(),
                })
            })
            .collect(),
        View::Outline => {
            // The innermost definition's node, else the whole file.
            let start = scopes
                .last()
                .and_then(|&i| {
                    let d = &x.defs[i];
                    root.descendant_for_byte_range(d.start_byte, d.end_byte)
                })
                .unwrap_or(root);
            outline_rows(start, src, max_depth)
        }
        View::Siblings => siblings(target.unwrap_or(root), src),
    };
    Ok(AstView {
        rows,
        innermost: target.map(|t| t.kind()).unwrap_or(root.kind()).to_owned(),
        has_error: root.has_error(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str =
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n";

    fn view(line: Option<usize>, v: View, max: usize) -> AstView {
        let lang = Language::from_name("python").unwrap();
        let x = tsa_lang::extract(lang, SRC.as_bytes()).unwrap();
        ast_view(lang, "a.py", SRC, &x, line, v, max).unwrap()
    }

    fn names(v: &AstView) -> Vec<String> {
        v.rows
            .iter()
            .map(|r| match r {
                AstRow::Node(n) | AstRow::Sibling(SiblingRow { node: n, .. }) => {
                    format!("{}:{}", n.kind, n.name.as_deref().unwrap_or(""))
                }
                AstRow::Scope(s) => format!("scope:{}", s.qualified_name),
            })
            .collect()
    }

    #[test]
    fn scopes_path_outline_and_siblings() {
        let s = view(Some(3), View::Scope, 3);
        assert_eq!(names(&s), ["scope:A", "scope:A.f"]);
        assert_eq!(s.innermost, "return_statement");
        let p = view(Some(3), View::Path, 3);
        assert!(names(&p)[0].starts_with("module"));
        let o = view(Some(3), View::Outline, 1);
        assert_eq!(names(&o)[0], "function_definition:f");
        assert!(o.rows.len() > 1);
        let whole = view(None, View::Outline, 1);
        assert_eq!(names(&whole), ["module:", "class_definition:A"]);
        let sib = view(Some(2), View::Siblings, 3);
        let targets: Vec<Option<bool>> = sib
            .rows
            .iter()
            .map(|r| match r {
                AstRow::Sibling(n) => Some(n.is_target),
                _ => None,
            })
            .collect();
        assert_eq!(targets, [Some(true), Some(false)]);
        let row = serde_json::to_string(&sib.rows[0]).unwrap();
        assert_eq!(
            row,
            r#"{"name":"f","type":"function_definition","start_line":2,"end_line":3,"is_target":true}"#
        );
        assert!(!sib.has_error);
    }
}
