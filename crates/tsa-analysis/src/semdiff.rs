//! Semantic comparison of two versions of one source file: both are parsed
//! (definitions from `tsa_lang::extract`, tokens from the tree-sitter tree), each
//! definition is fingerprinted by its own tokens (those not inside a nested
//! definition) split into code, docs (docstrings, doc comments) and comments, and
//! the definitions are matched by qualified name (then renames by code shape).

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Value, json};
use tsa_lang::Language;

use crate::ToolError;

/// One definition of a parsed version.
#[derive(Clone, Debug)]
pub struct DefInfo {
    pub name: String,
    pub qualname: String,
    pub kind: &'static str,
    pub parent: Option<usize>,
    pub line: u32,
    pub end_line: u32,
    pub start_byte: usize,
    pub end_byte: usize,
    pub signature: String,
    code: u64,
    code_renamed: u64,
    docs: u64,
    comments: u64,
    raw: u64,
}

/// A parsed version of a file.
#[derive(Debug)]
pub struct Version {
    pub defs: Vec<DefInfo>,
    /// Fingerprint of the code outside every definition (imports, module-level
    /// statements, decorators): what runs when the module loads.
    pub module_code: u64,
    pub parse_errors: u32,
    pub text: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Code,
    Doc,
    Comment,
}

struct Token {
    start: usize,
    end: usize,
    class: Class,
}

fn is_docstring(node: tree_sitter::Node<'_>) -> bool {
    let k = node.kind();
    if !(k == "string" || k == "string_literal" || k == "concatenated_string") {
        return false;
    }
    node.parent()
        .is_some_and(|p| p.kind() == "expression_statement" && p.named_child_count() == 1)
}

fn comment_class(text: &str) -> Class {
    let t = text.trim_start();
    if t.starts_with("///") || t.starts_with("//!") || t.starts_with("/**") || t.starts_with("/*!")
    {
        Class::Doc
    } else {
        Class::Comment
    }
}

/// Tokens of the whole file in source order: comments and docstrings whole,
/// every other leaf (and any text between children that is no node) as code.
fn tokens(lang: Language, src: &str) -> Result<(Vec<Token>, u32), ToolError> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&lang.grammar())
        .map_err(|_| ToolError::Language(lang.name().to_owned()))?;
    let tree = parser
        .parse(src, None)
        .ok_or_else(|| ToolError::Internal("parser returned no tree".into()))?;
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let push_gap = |from: usize, to: usize, out: &mut Vec<Token>| {
        if from >= to {
            return;
        }
        let text = &src[from..to];
        let mut pos = from;
        for piece in text.split_whitespace() {
            let off = src[pos..to].find(piece).map_or(pos, |o| pos + o);
            out.push(Token {
                start: off,
                end: off + piece.len(),
                class: Class::Code,
            });
            pos = off + piece.len();
        }
    };
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let (s, e) = (node.start_byte(), node.end_byte().min(bytes.len()));
        if node.kind().contains("comment") {
            out.push(Token {
                start: s,
                end: e,
                class: comment_class(&src[s..e]),
            });
            continue;
        }
        if is_docstring(node) {
            out.push(Token {
                start: s,
                end: e,
                class: Class::Doc,
            });
            continue;
        }
        let n = node.child_count() as usize;
        if n == 0 {
            push_gap(s, e, &mut out);
            continue;
        }
        let mut pos = s;
        let mut kids = Vec::with_capacity(n);
        for i in 0..n {
            if let Some(c) = node.child(i as _) {
                push_gap(pos, c.start_byte(), &mut out);
                pos = pos.max(c.end_byte());
                kids.push(c);
            }
        }
        push_gap(pos, e, &mut out);
        stack.extend(kids.into_iter().rev());
    }
    out.sort_by_key(|t| (t.start, t.end));
    let errors = u32::from(tree.root_node().has_error());
    Ok((out, errors))
}

fn finish(h: &DefaultHasher) -> u64 {
    h.clone().finish()
}

/// Parses `src` as `lang` and fingerprints every definition.
pub fn analyse(lang: Language, src: &str) -> Result<Version, ToolError> {
    let x = tsa_lang::extract(lang, src.as_bytes())
        .map_err(|e| ToolError::Internal(format!("extract: {e}")))?;
    let (toks, errs) = tokens(lang, src)?;
    let n = x.defs.len();
    // Innermost definition owning each token (defs come parents first).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (x.defs[i].start_byte, std::cmp::Reverse(x.defs[i].end_byte)));
    let mut code = vec![DefaultHasher::new(); n];
    let mut renamed = vec![DefaultHasher::new(); n];
    let mut docs = vec![DefaultHasher::new(); n];
    let mut comments = vec![DefaultHasher::new(); n];
    let mut layout = vec![DefaultHasher::new(); n];
    let mut prev_end = 0usize;
    let mut first_tok = vec![usize::MAX; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut module = DefaultHasher::new();
    let mut next = 0;
    for (ti, t) in toks.iter().enumerate() {
        while next < order.len() && x.defs[order[next]].start_byte <= t.start {
            let d = order[next];
            while stack
                .last()
                .is_some_and(|&top| x.defs[top].end_byte <= x.defs[d].start_byte)
            {
                stack.pop();
            }
            stack.push(d);
            next += 1;
        }
        while stack
            .last()
            .is_some_and(|&top| x.defs[top].end_byte < t.end)
        {
            stack.pop();
        }
        let gap = src.get(prev_end.min(t.start)..t.start).unwrap_or("");
        prev_end = t.end;
        let Some(&owner) = stack.last() else {
            if t.class == Class::Code {
                src[t.start..t.end].hash(&mut module);
            }
            continue;
        };
        if first_tok[owner] == usize::MAX {
            // The space before a definition belongs to its surroundings.
            first_tok[owner] = ti;
        } else {
            gap.hash(&mut layout[owner]);
        }
        let text = &src[t.start..t.end];
        match t.class {
            Class::Code => {
                text.hash(&mut code[owner]);
                let r = if text == x.defs[owner].name {
                    "\u{0}"
                } else {
                    text
                };
                r.hash(&mut renamed[owner]);
            }
            Class::Doc => text.trim().hash(&mut docs[owner]),
            Class::Comment => text.trim().hash(&mut comments[owner]),
        }
    }
    let mut defs = Vec::with_capacity(n);
    for (i, d) in x.defs.iter().enumerate() {
        // Comments directly above the definition (doc comments, attributes' notes) are its own.
        if first_tok[i] != usize::MAX {
            let mut j = first_tok[i];
            while j > 0 && toks[j - 1].class != Class::Code && toks[j - 1].end <= d.start_byte {
                j -= 1;
                let t = &toks[j];
                let text = src[t.start..t.end].trim();
                match t.class {
                    Class::Doc => text.hash(&mut docs[i]),
                    _ => text.hash(&mut comments[i]),
                }
            }
        }
        defs.push(DefInfo {
            name: d.name.clone(),
            qualname: d.qualname.clone(),
            kind: d.kind.as_str(),
            parent: d.parent,
            line: d.line,
            end_line: d.end_line,
            start_byte: d.start_byte,
            end_byte: d.end_byte,
            signature: d.signature.clone(),
            code: finish(&code[i]),
            code_renamed: finish(&renamed[i]),
            docs: finish(&docs[i]),
            comments: finish(&comments[i]),
            raw: finish(&layout[i]),
        });
    }
    Ok(Version {
        defs,
        module_code: finish(&module),
        parse_errors: errs.max(x.parse_errors.min(1)),
        text: src.to_owned(),
    })
}

impl Version {
    /// An empty version (the file does not exist on that side).
    pub fn empty() -> Version {
        Version {
            defs: Vec::new(),
            module_code: finish(&DefaultHasher::new()),
            parse_errors: 0,
            text: String::new(),
        }
    }

    /// The source text of definition `i`.
    pub fn body(&self, i: usize) -> &str {
        let d = &self.defs[i];
        self.text
            .get(d.start_byte..d.end_byte.min(self.text.len()))
            .unwrap_or("")
    }
}

/// How one definition changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    Added,
    Removed,
    Renamed,
    SignatureChanged,
    BodyChanged,
    DocsOnly,
    WhitespaceOrCommentOnly,
    Moved,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Renamed => "renamed",
            ChangeKind::SignatureChanged => "signature_changed",
            ChangeKind::BodyChanged => "body_changed",
            ChangeKind::DocsOnly => "docs_only",
            ChangeKind::WhitespaceOrCommentOnly => "whitespace_or_comment_only",
            ChangeKind::Moved => "moved",
        }
    }

    /// Whether the change can alter behaviour or API (callers must be looked at).
    pub fn is_semantic(self) -> bool {
        matches!(
            self,
            ChangeKind::Added
                | ChangeKind::Removed
                | ChangeKind::Renamed
                | ChangeKind::SignatureChanged
                | ChangeKind::BodyChanged
        )
    }
}

/// One changed definition: indices into the old and new versions.
#[derive(Clone, Debug)]
pub struct Change {
    pub kind: ChangeKind,
    pub old: Option<usize>,
    pub new: Option<usize>,
    /// Also reordered among its siblings (for body/signature/doc changes).
    pub moved: bool,
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

/// Positions (in `a`) of the longest common subsequence of `a` and `b`.
fn lcs_keep(a: &[&str], b: &[&str]) -> Vec<bool> {
    let (n, m) = (a.len(), b.len());
    if n * m > 4_000_000 {
        return vec![true; n];
    }
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * (m + 1) + j] = if a[i] == b[j] {
                t[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
            };
        }
    }
    let mut keep = vec![false; n];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            keep[i] = true;
            i += 1;
            j += 1;
        } else if t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    keep
}

/// The changes from `old` to `new`, in new-file order (removals last).
pub fn compare(old: &Version, new: &Version) -> Vec<Change> {
    let key = |d: &DefInfo| (d.qualname.clone(), d.kind);
    let mut olds: HashMap<(String, &'static str), VecDeque<usize>> = HashMap::new();
    for (i, d) in old.defs.iter().enumerate() {
        olds.entry(key(d)).or_default().push_back(i);
    }
    let mut pair_of_new: Vec<Option<usize>> = vec![None; new.defs.len()];
    let mut old_paired = vec![false; old.defs.len()];
    for (j, d) in new.defs.iter().enumerate() {
        if let Some(q) = olds.get_mut(&key(d))
            && let Some(i) = q.pop_front()
        {
            pair_of_new[j] = Some(i);
            old_paired[i] = true;
        }
    }
    // Reordering among siblings: per parent, the common siblings off the LCS moved.
    let parent_q = |v: &Version, d: &DefInfo| {
        d.parent
            .map(|p| v.defs[p].qualname.clone())
            .unwrap_or_default()
    };
    let mut moved_new = vec![false; new.defs.len()];
    let mut groups: HashMap<String, (Vec<usize>, Vec<usize>)> = HashMap::new();
    for (j, d) in new.defs.iter().enumerate() {
        if pair_of_new[j].is_some() {
            groups.entry(parent_q(new, d)).or_default().1.push(j);
        }
    }
    for (i, d) in old.defs.iter().enumerate() {
        if old_paired[i] {
            groups.entry(parent_q(old, d)).or_default().0.push(i);
        }
    }
    let mut old_to_new: HashMap<usize, usize> = HashMap::new();
    for (j, p) in pair_of_new.iter().enumerate() {
        if let Some(i) = p {
            old_to_new.insert(*i, j);
        }
    }
    for (o, n) in groups.values() {
        let new_seq: Vec<&str> = n.iter().map(|&j| new.defs[j].qualname.as_str()).collect();
        let old_seq: Vec<&str> = o
            .iter()
            .filter(|i| old_to_new.get(i).is_some_and(|j| n.contains(j)))
            .map(|&i| old.defs[i].qualname.as_str())
            .collect();
        let keep = lcs_keep(&new_seq, &old_seq);
        for (k, &j) in n.iter().enumerate() {
            if !keep[k] {
                moved_new[j] = true;
            }
        }
    }
    let mut out = Vec::new();
    let mut unmatched_new = Vec::new();
    for (j, d) in new.defs.iter().enumerate() {
        let Some(i) = pair_of_new[j] else {
            unmatched_new.push(j);
            continue;
        };
        let o = &old.defs[i];
        let kind = if squash(&o.signature) != squash(&d.signature) {
            Some(ChangeKind::SignatureChanged)
        } else if o.code != d.code {
            Some(ChangeKind::BodyChanged)
        } else if o.docs != d.docs {
            Some(ChangeKind::DocsOnly)
        } else if o.comments != d.comments || o.raw != d.raw {
            // Same code and docs: only comments or layout differ.
            Some(ChangeKind::WhitespaceOrCommentOnly)
        } else {
            None
        };
        match kind {
            Some(k) => out.push(Change {
                kind: k,
                old: Some(i),
                new: Some(j),
                moved: moved_new[j],
            }),
            None if moved_new[j] => out.push(Change {
                kind: ChangeKind::Moved,
                old: Some(i),
                new: Some(j),
                moved: true,
            }),
            None => {}
        }
    }
    // Renames: an unmatched old and new definition of the same kind, under the same
    // parent, whose code is the same once the own name is masked.
    let mut old_free: Vec<usize> = (0..old.defs.len()).filter(|&i| !old_paired[i]).collect();
    for j in unmatched_new {
        let d = &new.defs[j];
        let hit = old_free.iter().position(|&i| {
            let o = &old.defs[i];
            o.kind == d.kind
                && o.name != d.name
                && o.code_renamed == d.code_renamed
                && parent_q(old, o) == parent_q(new, d)
        });
        match hit {
            Some(p) => {
                let i = old_free.remove(p);
                out.push(Change {
                    kind: ChangeKind::Renamed,
                    old: Some(i),
                    new: Some(j),
                    moved: false,
                });
            }
            None => out.push(Change {
                kind: ChangeKind::Added,
                old: None,
                new: Some(j),
                moved: false,
            }),
        }
    }
    for i in old_free {
        out.push(Change {
            kind: ChangeKind::Removed,
            old: Some(i),
            new: None,
            moved: false,
        });
    }
    out
}

/// One change as JSON: symbol, kind, change, line ranges (`a-b`), signatures,
/// bodies. Every key is present (null where a change has none), so a list of
/// changes is one TOON table.
pub fn change_json(c: &Change, old: &Version, new: &Version, bodies: bool) -> Value {
    let d = c.new.map(|j| &new.defs[j]).or(c.old.map(|i| &old.defs[i]));
    let o = c.old.map(|i| (i, &old.defs[i]));
    let n = c.new.map(|j| (j, &new.defs[j]));
    let mut v = json!({
        "symbol": d.map(|d| d.qualname.as_str()).unwrap_or(""),
        "name": d.map(|d| d.name.as_str()).unwrap_or(""),
        "kind": d.map(|d| d.kind).unwrap_or(""),
        "change": c.kind.as_str(),
        "old_lines": o.map(|(_, o)| format!("{}-{}", o.line, o.end_line)),
        "old_name": o.filter(|_| c.kind == ChangeKind::Renamed).map(|(_, o)| o.qualname.as_str()),
        "old_signature": o
            .filter(|_| matches!(c.kind, ChangeKind::SignatureChanged | ChangeKind::Removed))
            .map(|(_, o)| o.signature.as_str()),
        "new_lines": n.map(|(_, n)| format!("{}-{}", n.line, n.end_line)),
        "signature": n.map(|(_, n)| n.signature.as_str()),
        "moved": c.moved && c.kind != ChangeKind::Moved,
    });
    if bodies {
        v["old_body"] = json!(o.map(|(i, _)| old.body(i)));
        v["new_body"] = json!(n.map(|(j, _)| new.body(j)));
    }
    v
}

/// Counts per change kind, every kind present (zeros included).
pub fn counts_json(changes: &[Change]) -> Value {
    let mut m = serde_json::Map::new();
    for k in [
        ChangeKind::Added,
        ChangeKind::Removed,
        ChangeKind::Renamed,
        ChangeKind::SignatureChanged,
        ChangeKind::BodyChanged,
        ChangeKind::Moved,
        ChangeKind::WhitespaceOrCommentOnly,
        ChangeKind::DocsOnly,
    ] {
        m.insert(
            k.as_str().to_owned(),
            json!(changes.iter().filter(|c| c.kind == k).count()),
        );
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(lang: &str, a: &str, b: &str) -> Vec<(String, &'static str)> {
        let l = Language::from_name(lang).unwrap();
        let (o, n) = (analyse(l, a).unwrap(), analyse(l, b).unwrap());
        let mut v: Vec<_> = compare(&o, &n)
            .iter()
            .map(|c| {
                let d = c.new.map(|j| &n.defs[j]).or(c.old.map(|i| &o.defs[i]));
                (d.unwrap().qualname.clone(), c.kind.as_str())
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn python_change_kinds() {
        let old = "def a(x):\n    return x + 1\n\n\ndef b(y):\n    \"\"\"Doc.\"\"\"\n    return y\n\n\ndef c():\n    return 3  # note\n\n\ndef d():\n    pass\n\n\ndef gone():\n    return 0\n\n\nclass K:\n    def m(self):\n        return 1\n";
        let new = "def a(x, z):\n    return x + 1\n\n\ndef b(y):\n    \"\"\"Better doc.\"\"\"\n    return y\n\n\ndef c():\n    return 3  # other note\n\n\ndef d2():\n    pass\n\n\ndef fresh():\n    return 9\n\n\nclass K:\n    def m(self):\n        return 2\n";
        assert_eq!(
            kinds("python", old, new),
            [
                ("K.m".to_owned(), "body_changed"),
                ("a".to_owned(), "signature_changed"),
                ("b".to_owned(), "docs_only"),
                ("c".to_owned(), "whitespace_or_comment_only"),
                ("d2".to_owned(), "renamed"),
                ("fresh".to_owned(), "added"),
                ("gone".to_owned(), "removed"),
            ]
        );
    }

    #[test]
    fn module_level_code_is_fingerprinted_apart_from_definitions() {
        let l = Language::from_name("python").unwrap();
        let base = "import os\n\n\ndef a():\n    return 1\n";
        let v = |t: &str| analyse(l, t).unwrap().module_code;
        // A new function, a changed body, a comment: the module's own code is the same.
        assert_eq!(
            v(base),
            v(&format!("{base}\n\ndef _probe(x):\n    return x\n"))
        );
        assert_eq!(v(base), v(&base.replace("return 1", "return 2")));
        assert_eq!(v(base), v(&format!("# note\n{base}")));
        // A new import or statement at module level changes it.
        assert_ne!(v(base), v(&format!("import sys\n{base}")));
        assert_ne!(v(base), v(&format!("{base}X = a()\n")));
        assert_eq!(Version::empty().module_code, v(""));
    }

    #[test]
    fn rust_moves_whitespace_and_strings() {
        let old =
            "fn a() -> u32 {\n    1\n}\n\nfn b() -> &'static str {\n    \"x\"\n}\n\nfn c() {}\n";
        let new = "fn c() {}\n\nfn a() -> u32 {\n        1\n}\n\n/// Docs now.\nfn b() -> &'static str {\n    \"y\"\n}\n";
        assert_eq!(
            kinds("rust", old, new),
            [
                ("a".to_owned(), "whitespace_or_comment_only"),
                ("b".to_owned(), "body_changed"),
                ("c".to_owned(), "moved"),
            ]
        );
        let same = kinds("rust", old, old);
        assert!(same.is_empty());
        let doc = kinds("rust", "fn a() {}\n", "/// Hi.\nfn a() {}\n");
        assert_eq!(doc, [("a".to_owned(), "docs_only")]);
    }
}
