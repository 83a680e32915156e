//! `edit mutation_probe`: does a test constrain a line? One mutation at the line,
//! made as a byte edit on the parse tree (formatting kept), served in memory to a
//! pytest run by an import hook (the working tree is never written), run twice
//! (baseline, mutated) under one budget, each run a process tree killed on time.
//! The hook writes a marker when it serves the mutated module: without it the
//! answer is `unknown`, never a silent `does_not_constrain`.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use tree_sitter::Node;

use crate::run_tree::{self, Status};

/// One applied mutation.
#[derive(Clone, Debug, Serialize)]
pub struct Mutation {
    /// `invert_condition`, `flip_comparison`, `flip_return_bool`,
    /// `drop_keyword_argument`, `hoist_first_statement`.
    pub kind: &'static str,
    pub description: String,
    /// The mutated source.
    #[serde(skip)]
    pub text: Vec<u8>,
    /// Lines the edit touched.
    pub lines: Vec<u32>,
}

fn text<'a>(n: Node<'_>, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[n.start_byte()..n.end_byte()]).unwrap_or("")
}

fn splice(src: &[u8], start: usize, end: usize, with: &str) -> Vec<u8> {
    let mut out = src[..start].to_vec();
    out.extend_from_slice(with.as_bytes());
    out.extend_from_slice(&src[end..]);
    out
}

fn nodes_on_line<'t>(root: Node<'t>, line: u32) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut c = root.walk();
    loop {
        let n = c.node();
        let (a, b) = (
            n.start_position().row as u32 + 1,
            n.end_position().row as u32 + 1,
        );
        if a == line {
            out.push(n);
        }
        if a <= line && line <= b && c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return out;
            }
        }
    }
}

fn parses(src: &[u8]) -> bool {
    crate::complexity::parse(tsa_lang::Language::Python, src)
        .is_some_and(|t| !t.root_node().has_error())
}

/// One mutator: the nodes starting on the line, the source, the line.
type Mutator = fn(&[Node<'_>], &[u8], u32) -> Option<Mutation>;

/// The first applicable mutation at `line` (1-based) of Python `src`.
pub fn mutate(src: &[u8], line: u32) -> Option<Mutation> {
    let tree = crate::complexity::parse(tsa_lang::Language::Python, src)?;
    let on = nodes_on_line(tree.root_node(), line);
    let tries: [Mutator; 5] = [
        invert_condition,
        flip_comparison,
        flip_return_bool,
        drop_keyword,
        hoist,
    ];
    tries
        .iter()
        .filter_map(|t| t(&on, src, line))
        .find(|m| parses(&m.text))
}

fn invert_condition(on: &[Node<'_>], src: &[u8], line: u32) -> Option<Mutation> {
    let stmt = on
        .iter()
        .find(|n| matches!(n.kind(), "if_statement" | "while_statement" | "elif_clause"))?;
    let cond = stmt.child_by_field_name("condition")?;
    let t = text(cond, src);
    let new = match cond.kind() {
        "not_operator" => cond
            .child_by_field_name("argument")
            .map(|a| text(a, src).to_owned())?,
        _ => format!("not ({t})"),
    };
    Some(Mutation {
        kind: "invert_condition",
        description: format!("line {line}: `{t}` -> `{new}`"),
        text: splice(src, cond.start_byte(), cond.end_byte(), &new),
        lines: vec![line],
    })
}

fn flip_comparison(on: &[Node<'_>], src: &[u8], line: u32) -> Option<Mutation> {
    let cmp = on.iter().find(|n| n.kind() == "comparison_operator")?;
    let mut c = cmp.walk();
    let op = cmp.children(&mut c).find(|k| !k.is_named())?;
    let flipped = match text(op, src) {
        "==" => "!=",
        "!=" => "==",
        "<" => ">=",
        ">=" => "<",
        ">" => "<=",
        "<=" => ">",
        _ => return None,
    };
    Some(Mutation {
        kind: "flip_comparison",
        description: format!("line {line}: `{}` -> `{flipped}`", text(op, src)),
        text: splice(src, op.start_byte(), op.end_byte(), flipped),
        lines: vec![line],
    })
}

fn flip_return_bool(on: &[Node<'_>], src: &[u8], line: u32) -> Option<Mutation> {
    let ret = on.iter().find(|n| n.kind() == "return_statement")?;
    let v = ret.named_child(0)?;
    let new = match v.kind() {
        "true" => "False",
        "false" => "True",
        _ => return None,
    };
    Some(Mutation {
        kind: "flip_return_bool",
        description: format!("line {line}: `return {}` -> `return {new}`", text(v, src)),
        text: splice(src, v.start_byte(), v.end_byte(), new),
        lines: vec![line],
    })
}

fn drop_keyword(on: &[Node<'_>], src: &[u8], line: u32) -> Option<Mutation> {
    let call = on.iter().find(|n| n.kind() == "call")?;
    let args = call.child_by_field_name("arguments")?;
    let mut c = args.walk();
    let kids: Vec<Node<'_>> = args.children(&mut c).collect();
    let (i, kw) = kids.iter().enumerate().find(|(_, k)| {
        k.kind() == "keyword_argument"
            && k.child_by_field_name("value")
                .is_some_and(|v| matches!(v.kind(), "true" | "false" | "none" | "string"))
    })?;
    // The argument and one comma next to it.
    let (start, end) = match (kids.get(i + 1), i.checked_sub(1).and_then(|p| kids.get(p))) {
        (Some(next), _) if next.kind() == "," => (
            kw.start_byte(),
            kids.get(i + 2).map_or(next.end_byte(), |n| n.start_byte()),
        ),
        (_, Some(prev)) if prev.kind() == "," => (prev.start_byte(), kw.end_byte()),
        _ => (kw.start_byte(), kw.end_byte()),
    };
    Some(Mutation {
        kind: "drop_keyword_argument",
        description: format!("line {line}: drop `{}`", text(*kw, src)),
        text: splice(src, start, end, ""),
        lines: vec![line],
    })
}

/// Moves the first statement of a `with`/`try` body (of two or more) in front of
/// the block, when the line is the header or that statement.
fn hoist(on: &[Node<'_>], src: &[u8], _line: u32) -> Option<Mutation> {
    let header = on
        .iter()
        .find(|n| matches!(n.kind(), "with_statement" | "try_statement"))
        .copied()
        .or_else(|| {
            // The line is the first statement of such a body.
            let stmt = on.first()?;
            let block = stmt.parent().filter(|b| b.kind() == "block")?;
            let owner = block
                .parent()
                .filter(|o| matches!(o.kind(), "with_statement" | "try_statement"))?;
            (block.named_child(0).map(|f| f.id()) == Some(stmt.id())).then_some(owner)
        })?;
    let body = header.child_by_field_name("body")?;
    if body.named_child_count() < 2 {
        return None;
    }
    let first = body.named_child(0)?;
    let indent = header.start_position().column;
    let stmt_text = text(first, src);
    let moved: String = stmt_text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("{}{l}", " ".repeat(indent))
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    // Remove the statement's whole line(s), then insert before the header's line.
    let line_start = |b: usize| {
        src[..b]
            .iter()
            .rposition(|c| *c == b'\n')
            .map_or(0, |p| p + 1)
    };
    let line_end = |b: usize| {
        src[b..]
            .iter()
            .position(|c| *c == b'\n')
            .map_or(src.len(), |p| b + p + 1)
    };
    let (cut_a, cut_b) = (line_start(first.start_byte()), line_end(first.end_byte()));
    let at = line_start(header.start_byte());
    let mut out = src[..at].to_vec();
    out.extend_from_slice(moved.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(&src[at..cut_a]);
    out.extend_from_slice(&src[cut_b..]);
    Some(Mutation {
        kind: "hoist_first_statement",
        description: format!(
            "line {}: first statement of the {} on line {} moved before it",
            first.start_position().row + 1,
            header.kind().trim_end_matches("_statement"),
            header.start_position().row + 1
        ),
        text: out,
        lines: vec![
            header.start_position().row as u32 + 1,
            first.start_position().row as u32 + 1,
        ],
    })
}

/// How a pytest run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Failure {
    None,
    Assertion,
    NonAssertion,
    NotRun,
    Timeout,
    /// The caller cancelled the call (MCP): the run was stopped.
    Cancelled,
}

fn classify(r: &run_tree::Run) -> Failure {
    if r.status == Status::Timeout {
        return Failure::Timeout;
    }
    if r.status == Status::Cancelled {
        return Failure::Cancelled;
    }
    if r.status == Status::Error {
        // Could not start, or left processes that could not be cleaned up.
        return Failure::NotRun;
    }
    let out = &r.output;
    match r.exit_code {
        Some(0) => Failure::None,
        Some(4 | 5) => Failure::NotRun,
        _ if out.contains("no tests ran") || out.contains("collected 0 items") => Failure::NotRun,
        Some(1) => {
            let e = out.lines().find(|l| l.starts_with("E "));
            match e.map(|l| l[2..].trim_start()) {
                Some(l)
                    if l.starts_with("AssertionError")
                        || l.starts_with("Failed")
                        || l.starts_with("assert ") =>
                {
                    Failure::Assertion
                }
                _ => Failure::NonAssertion,
            }
        }
        None if r.status == Status::Error => Failure::NotRun,
        _ => Failure::NonAssertion,
    }
}

/// The answer of a probe.
#[derive(Clone, Debug, Serialize)]
pub struct Probe {
    /// `constrains`, `does_not_constrain` or `unknown`.
    pub probe_verdict: &'static str,
    pub reason: Option<&'static str>,
    pub mutation: Option<String>,
    pub mutation_kind: Option<&'static str>,
    pub mutated_lines: Vec<u32>,
    pub module: String,
    pub runner: Vec<String>,
    pub baseline_failure: Failure,
    pub mutated_failure: Option<Failure>,
    pub baseline_ms: u64,
    pub mutated_ms: Option<u64>,
    /// The end of each run's output (what pytest printed last).
    pub baseline_output_tail: String,
    pub mutated_output_tail: Option<String>,
}

/// The bootstrap: serve `mutated` for `module` (writing `marker` when it does),
/// put the project first on the path as `python -m` would, then run pytest.
const BOOTSTRAP: &str = r#"import importlib.abc, importlib.util, os, sys
root, module, mutated, marker = sys.argv[1:5]
sys.argv = ["pytest"] + sys.argv[5:]
sys.path.insert(0, root)
if mutated:
    class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path=None, target=None):
            if name != module:
                return None
            for other in sys.meta_path:
                if other is self:
                    continue
                spec = other.find_spec(name, path, target) if hasattr(other, "find_spec") else None
                if spec is not None:
                    spec.loader = self
                    return spec
            return None
        def create_module(self, spec):
            return None
        def exec_module(self, mod):
            with open(mutated, "rb") as f:
                code = compile(f.read(), mod.__spec__.origin or module, "exec")
            with open(marker, "w") as f:
                f.write(module)
            exec(code, mod.__dict__)
    sys.meta_path.insert(0, _Finder())
try:
    import pytest
except ImportError:
    print("tsa: pytest is not installed for " + sys.executable + ": no tests ran")
    sys.exit(4)
sys.exit(pytest.main(sys.argv[1:]))
"#;

fn tail(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    chars[chars.len().saturating_sub(1500)..].iter().collect()
}

/// The interpreter of a Python project: its virtualenv's, else `python3`.
pub fn python(root: &Path) -> String {
    for v in [".venv/bin/python", "venv/bin/python"] {
        if root.join(v).is_file() {
            return root.join(v).to_string_lossy().into_owned();
        }
    }
    if let Ok(env) = std::env::var("VIRTUAL_ENV") {
        let p = Path::new(&env).join("bin/python");
        if p.is_file() {
            return p.to_string_lossy().into_owned();
        }
    }
    "python3".to_owned()
}

/// The dotted module of a project file: packages walked up while `__init__.py`
/// exists, a `src/` or `lib/` source root left out.
pub fn module_of(root: &Path, rel: &str) -> String {
    let stem = rel.strip_suffix(".py").unwrap_or(rel);
    let mut parts: Vec<&str> = stem.split('/').collect();
    if parts.last() == Some(&"__init__") {
        parts.pop();
    }
    let mut k = parts.len().saturating_sub(1);
    while k > 0
        && root
            .join(parts[..k].join("/"))
            .join("__init__.py")
            .is_file()
    {
        k -= 1;
    }
    parts[k..].join(".")
}

/// Runs the probe: `node` (a pytest node id) against a mutation at `line` of `rel`.
pub fn probe(
    root: &Path,
    rel: &str,
    line: u32,
    node: &str,
    budget: Duration,
    cancelled: &dyn Fn() -> bool,
) -> Result<Probe, &'static str> {
    let src = std::fs::read(root.join(rel)).map_err(|_| "FILE_NOT_FOUND")?;
    let m = mutate(&src, line).ok_or("NO_INVERTIBLE_BRANCH")?;
    let module = module_of(root, rel);
    let scratch = tempfile::tempdir().map_err(|_| "SCRATCH_UNAVAILABLE")?;
    let boot = scratch.path().join("tsa_probe_boot.py");
    let mutated = scratch.path().join("mutated.py");
    let marker = scratch.path().join("served");
    std::fs::write(&boot, BOOTSTRAP).map_err(|_| "SCRATCH_UNAVAILABLE")?;
    std::fs::write(&mutated, &m.text).map_err(|_| "SCRATCH_UNAVAILABLE")?;
    let before = blake3::hash(&src);
    let deadline = Instant::now() + budget;
    let py = python(root);
    let argv = |mutated_path: &str| -> Vec<String> {
        [
            py.as_str(),
            &boot.to_string_lossy(),
            &root.to_string_lossy(),
            &module,
            mutated_path,
            &marker.to_string_lossy(),
            "-p",
            "no:cacheprovider",
            "--override-ini=addopts=",
            "--tb=short",
            "-q",
            "--",
            node,
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    };
    let base_deadline = Instant::now() + budget / 2;
    let base = run_tree::run_until(&argv(""), root, base_deadline.min(deadline), cancelled);
    let baseline_failure = classify(&base);
    let mut p = Probe {
        probe_verdict: "unknown",
        reason: None,
        mutation: Some(m.description.clone()),
        mutation_kind: Some(m.kind),
        mutated_lines: m.lines.clone(),
        module: module.clone(),
        runner: argv("<mutated>"),
        baseline_failure,
        mutated_failure: None,
        baseline_ms: base.elapsed_ms,
        mutated_ms: None,
        baseline_output_tail: tail(&base.output),
        mutated_output_tail: None,
    };
    let unchanged = || std::fs::read(root.join(rel)).is_ok_and(|b| blake3::hash(&b) == before);
    match baseline_failure {
        Failure::None => {}
        Failure::Timeout => {
            p.reason = Some("TIMEOUT");
            return Ok(p);
        }
        Failure::Cancelled => {
            p.reason = Some("CANCELLED");
            return Ok(p);
        }
        Failure::NotRun => {
            p.reason = Some("NOT_ISOLABLE");
            return Ok(p);
        }
        _ => {
            p.reason = Some("BASELINE_NOT_GREEN");
            return Ok(p);
        }
    }
    let run = run_tree::run_until(&argv(&mutated.to_string_lossy()), root, deadline, cancelled);
    let f = classify(&run);
    p.mutated_failure = Some(f);
    p.mutated_ms = Some(run.elapsed_ms);
    p.mutated_output_tail = Some(tail(&run.output));
    if !unchanged() {
        p.reason = Some("WORKING_TREE_MODIFIED");
        return Ok(p);
    }
    if f == Failure::Cancelled {
        p.reason = Some("CANCELLED");
        return Ok(p);
    }
    if f != Failure::Timeout && !marker.exists() {
        p.reason = Some("MUTATION_NOT_LOADED");
        return Ok(p);
    }
    (p.probe_verdict, p.reason) = match f {
        Failure::Assertion => ("constrains", None),
        Failure::None => ("does_not_constrain", Some("MUTATED_RUN_PASSED")),
        Failure::Timeout => ("unknown", Some("TIMEOUT")),
        Failure::Cancelled => ("unknown", Some("CANCELLED")),
        Failure::NotRun => ("unknown", Some("NOT_ISOLABLE")),
        Failure::NonAssertion => ("unknown", Some("MUTATED_RUN_CRASHED")),
    };
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(src: &str, line: u32) -> (String, &'static str) {
        let m = mutate(src.as_bytes(), line).unwrap();
        (String::from_utf8(m.text).unwrap(), m.kind)
    }

    #[test]
    fn each_mutator_edits_only_its_bytes() {
        let (t, k) = at("def f(x):\n    if x > 1:  # keep\n        return 1\n", 2);
        assert_eq!(k, "invert_condition");
        assert_eq!(
            t,
            "def f(x):\n    if not (x > 1):  # keep\n        return 1\n"
        );
        let (t, _) = at("def f(x):\n    if not x:\n        return 1\n", 2);
        assert!(t.contains("if x:"), "{t}");
        let (t, k) = at("def f(x):\n    y = x >= 2\n    return y\n", 2);
        assert_eq!(k, "flip_comparison");
        assert!(t.contains("y = x < 2"), "{t}");
        let (t, k) = at("def f():\n    return True\n", 2);
        assert_eq!(k, "flip_return_bool");
        assert!(t.contains("return False"));
        let (t, k) = at("def f():\n    g(1, strict=True, n=2)\n", 2);
        assert_eq!(k, "drop_keyword_argument");
        assert!(t.contains("g(1, n=2)"), "{t}");
        let (t, k) = at(
            "def f():\n    with a() as b:\n        x = 1\n        y = 2\n",
            2,
        );
        assert_eq!(k, "hoist_first_statement");
        assert_eq!(
            t,
            "def f():\n    x = 1\n    with a() as b:\n        y = 2\n"
        );
        assert!(mutate(b"x = 1\n", 1).is_none());
    }
}
