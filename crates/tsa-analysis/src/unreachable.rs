//! `health unreachable`: statements that can never run inside functions. In every
//! statement sequence of a function (bodies, every branch, loop bodies, `try`
//! parts, `case` arms), the statements after one that always leaves it: `return`,
//! `raise`/`throw`, `break`, `continue`, `goto`, a call that ends the process by
//! its exact name (`sys.exit`, `process.exit`, `os.Exit`, `panic!`, ...), or an
//! infinite loop with no `break` inside. Plus the branch a constant condition
//! never takes (`if False:`, `if (0)`). Nested functions are their own.

use serde::Serialize;
use tree_sitter::Node;
use tsa_lang::Language;

/// One unreachable run of statements.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Block {
    pub file: String,
    pub function: String,
    pub start_line: u32,
    pub end_line: u32,
    pub reason: String,
    /// `warning` (after a terminator) or `info` (a constant condition).
    pub severity: &'static str,
}

/// The findings of one file.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    pub file: String,
    pub language: String,
    pub functions_analyzed: usize,
    pub unreachable_count: usize,
    pub unreachable_blocks: Vec<Block>,
    /// 1 when the file could not be read or parsed.
    pub errors: usize,
}

/// The files of a project scan.
pub struct ProjectScan {
    /// Source files of the analysed languages (tests left out unless asked).
    pub eligible: usize,
    /// The first `max_files` of them, analysed.
    pub reports: Vec<FileReport>,
}

/// Analyses the project's source files (walk order, at most `max_files`) on all cores.
pub fn scan_project(root: &std::path::Path, include_tests: bool, max_files: usize) -> ProjectScan {
    use rayon::prelude::*;
    let walked = tsa_index::walk(root, &tsa_index::WalkOptions::default());
    let files: Vec<(&str, Language)> = walked
        .files
        .iter()
        .filter(|f| supported(f.language))
        .filter(|f| include_tests || !tsa_lang::is_test_path(&f.rel))
        .map(|f| (f.rel.as_str(), f.language))
        .collect();
    let eligible = files.len();
    let reports = files[..eligible.min(max_files)]
        .par_iter()
        .map(|(rel, l)| match tsa_index::read_confined(root, rel) {
            Ok(b) => analyse(rel, *l, &b),
            Err(_) => FileReport {
                file: (*rel).to_owned(),
                language: l.name().to_owned(),
                functions_analyzed: 0,
                unreachable_count: 0,
                unreachable_blocks: Vec::new(),
                errors: 1,
            },
        })
        .collect();
    ProjectScan { eligible, reports }
}

/// The languages analysed.
pub fn supported(l: Language) -> bool {
    rules(l).is_some()
}

struct Rules {
    functions: &'static [&'static str],
    /// Nodes whose statement children run in order.
    sequences: &'static [&'static str],
    /// Statements that always leave the sequence.
    jumps: &'static [&'static str],
    /// Calls (callee text) or macros that end the process or the thread.
    exits: &'static [&'static str],
    loops: &'static [&'static str],
    breaks: &'static [&'static str],
    /// Statements that are never reported (comments, labels, no-ops, hoisted
    /// declarations).
    quiet: &'static [&'static str],
    ifs: &'static [&'static str],
}

const COMMENTS: [&str; 3] = ["comment", "line_comment", "block_comment"];

fn rules(l: Language) -> Option<&'static Rules> {
    static PY: Rules = Rules {
        functions: &["function_definition", "lambda"],
        sequences: &["block"],
        jumps: &[
            "return_statement",
            "raise_statement",
            "break_statement",
            "continue_statement",
        ],
        exits: &["sys.exit", "os._exit", "os.abort", "exit", "quit"],
        loops: &["while_statement"],
        breaks: &["break_statement"],
        quiet: &["pass_statement"],
        ifs: &["if_statement"],
    };
    static JS: Rules = Rules {
        functions: &[
            "function_declaration",
            "function_expression",
            "arrow_function",
            "method_definition",
            "generator_function_declaration",
            "generator_function",
        ],
        sequences: &["statement_block", "switch_case", "switch_default"],
        jumps: &[
            "return_statement",
            "throw_statement",
            "break_statement",
            "continue_statement",
        ],
        exits: &["process.exit"],
        loops: &["while_statement", "for_statement"],
        breaks: &["break_statement"],
        quiet: &[
            "empty_statement",
            "function_declaration",
            "generator_function_declaration",
            "type_alias_declaration",
            "interface_declaration",
        ],
        ifs: &["if_statement"],
    };
    static JAVA: Rules = Rules {
        functions: &[
            "method_declaration",
            "constructor_declaration",
            "lambda_expression",
        ],
        sequences: &["block", "switch_block_statement_group"],
        jumps: &[
            "return_statement",
            "throw_statement",
            "break_statement",
            "continue_statement",
        ],
        exits: &["System.exit"],
        loops: &["while_statement", "for_statement"],
        breaks: &["break_statement"],
        quiet: &["switch_label", "empty_statement"],
        ifs: &["if_statement"],
    };
    static GO: Rules = Rules {
        functions: &["function_declaration", "method_declaration", "func_literal"],
        sequences: &["statement_list"],
        jumps: &[
            "return_statement",
            "break_statement",
            "continue_statement",
            "goto_statement",
        ],
        exits: &["panic", "os.Exit", "log.Fatal", "log.Fatalf", "log.Fatalln"],
        loops: &["for_statement"],
        breaks: &["break_statement", "goto_statement"],
        quiet: &["labeled_statement", "empty_statement"],
        ifs: &["if_statement"],
    };
    static C: Rules = Rules {
        functions: &["function_definition", "lambda_expression"],
        sequences: &["compound_statement", "case_statement"],
        jumps: &[
            "return_statement",
            "break_statement",
            "continue_statement",
            "goto_statement",
            "throw_statement",
        ],
        exits: &["exit", "abort", "_Exit", "std::exit", "std::abort"],
        loops: &["while_statement", "for_statement"],
        breaks: &["break_statement", "goto_statement"],
        quiet: &[
            "labeled_statement",
            "expression_statement_empty",
            "case_statement",
        ],
        ifs: &["if_statement"],
    };
    static RUST: Rules = Rules {
        functions: &["function_item", "closure_expression"],
        sequences: &["block"],
        jumps: &[
            "return_expression",
            "break_expression",
            "continue_expression",
        ],
        exits: &[
            "panic",
            "unreachable",
            "todo",
            "unimplemented",
            "std::process::exit",
            "process::exit",
        ],
        loops: &["loop_expression", "while_expression"],
        breaks: &["break_expression"],
        quiet: &[
            "empty_statement",
            "function_item",
            "struct_item",
            "enum_item",
            "use_declaration",
            "impl_item",
            "const_item",
            "static_item",
            "mod_item",
            "trait_item",
            "type_item",
            "macro_definition",
            "attribute_item",
        ],
        ifs: &[],
    };
    Some(match l {
        Language::Python => &PY,
        Language::JavaScript | Language::TypeScript | Language::Tsx => &JS,
        Language::Java => &JAVA,
        Language::Go => &GO,
        Language::C | Language::Cpp => &C,
        Language::Rust => &RUST,
        _ => return None,
    })
}

fn text<'a>(n: Node<'_>, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[n.start_byte()..n.end_byte()]).unwrap_or("")
}

fn line(n: Node<'_>) -> u32 {
    n.start_position().row as u32 + 1
}

fn end_line(n: Node<'_>) -> u32 {
    n.end_position().row as u32 + 1
}

/// Analyses one file's text.
pub fn analyse(file: &str, l: Language, src: &[u8]) -> FileReport {
    let mut report = FileReport {
        file: file.to_owned(),
        language: l.name().to_owned(),
        functions_analyzed: 0,
        unreachable_count: 0,
        unreachable_blocks: Vec::new(),
        errors: 0,
    };
    let (Some(r), Some(tree)) = (rules(l), crate::complexity::parse(l, src)) else {
        report.errors = 1;
        return report;
    };
    let mut pass = Pass {
        rules: r,
        open: Vec::new(),
        blocks: Vec::new(),
        functions: 0,
    };
    tsa_lang::visit(tree.root_node(), src, &mut pass);
    let mut blocks = pass.blocks;
    blocks
        .iter_mut()
        .for_each(|b: &mut Block| b.file = file.to_owned());
    blocks.sort_by_key(|b| (b.start_line, b.end_line));
    report.functions_analyzed = pass.functions;
    report.unreachable_count = blocks.len();
    report.unreachable_blocks = blocks;
    report
}

/// The analysis as a pass over the tree (the walk hands each node its parent).
struct Pass<'r> {
    rules: &'r Rules,
    /// The functions around the walk: where each ends, and its name.
    open: Vec<(usize, String)>,
    blocks: Vec<Block>,
    functions: usize,
}

impl tsa_lang::TreeVisitor for Pass<'_> {
    fn enter(&mut self, n: Node<'_>, parent: Option<Node<'_>>, src: &[u8]) {
        while self
            .open
            .last()
            .is_some_and(|(end, _)| n.start_byte() >= *end)
        {
            self.open.pop();
        }
        let r = self.rules;
        if r.functions.contains(&n.kind()) {
            self.functions += 1;
            self.open
                .push((n.end_byte(), function_name(n, parent, src)));
        }
        if let Some((_, name)) = self.open.last() {
            if r.sequences.contains(&n.kind()) {
                sequence(r, n, src, name, &mut self.blocks);
            }
            if r.ifs.contains(&n.kind()) {
                constant_if(n, src, name, &mut self.blocks);
            }
        }
    }

    fn leave(&mut self) {}

    fn finish(self: Box<Self>, _: Node<'_>, _: &[u8]) -> Option<String> {
        None
    }
}

fn function_name(n: Node<'_>, parent: Option<Node<'_>>, src: &[u8]) -> String {
    if let Some(name) = n.child_by_field_name("name") {
        return text(name, src).to_owned();
    }
    // C and C++: the identifier inside the declarator.
    let mut d = n.child_by_field_name("declarator");
    while let Some(x) = d {
        if matches!(
            x.kind(),
            "identifier"
                | "field_identifier"
                | "qualified_identifier"
                | "destructor_name"
                | "operator_name"
        ) {
            return text(x, src).to_owned();
        }
        d = x.child_by_field_name("declarator");
    }
    // An anonymous function bound to a name: `const f = () => ...`.
    parent
        .filter(|p| matches!(p.kind(), "variable_declarator" | "assignment" | "pair"))
        .and_then(|p| {
            p.child_by_field_name("name")
                .or_else(|| p.child_by_field_name("left"))
                .or_else(|| p.child_by_field_name("key"))
        })
        .map_or_else(|| "<anonymous>".to_owned(), |x| text(x, src).to_owned())
}

/// The node a statement wraps (`expression_statement`, Rust's trailing `;`).
fn unwrap(n: Node<'_>) -> Node<'_> {
    if n.kind() == "expression_statement"
        && let Some(c) = n.named_child(0)
    {
        return c;
    }
    n
}

/// Why `stmt` always leaves its sequence, if it does.
fn leaves(r: &Rules, stmt: Node<'_>, src: &[u8]) -> Option<String> {
    let n = unwrap(stmt);
    let k = n.kind();
    if r.jumps.contains(&k) {
        return Some(k.replace("_statement", "").replace("_expression", ""));
    }
    match k {
        "call" | "call_expression" | "method_invocation" => {
            let callee = n
                .child_by_field_name("function")
                .map(|f| text(f, src).to_owned())
                .or_else(|| {
                    // Java: object.name(...)
                    let name = n.child_by_field_name("name")?;
                    let obj = n.child_by_field_name("object").map(|o| text(o, src));
                    Some(match obj {
                        Some(o) => format!("{o}.{}", text(name, src)),
                        None => text(name, src).to_owned(),
                    })
                })?;
            let callee: String = callee.split_whitespace().collect();
            r.exits
                .contains(&callee.as_str())
                .then(|| format!("{callee}()"))
        }
        "macro_invocation" => {
            let m = n.child_by_field_name("macro").map(|m| text(m, src))?;
            r.exits.contains(&m).then(|| format!("{m}!"))
        }
        _ if r.loops.contains(&k) && infinite(n, src) && !has_break(r, n, src) => {
            Some(format!("an infinite loop (line {})", line(n)))
        }
        _ => None,
    }
}

/// `while True`, `while (1)`, `for (;;)`, Go's bare `for {}`, Rust's `loop`.
fn infinite(n: Node<'_>, src: &[u8]) -> bool {
    if n.kind() == "loop_expression" {
        return true;
    }
    if n.kind() == "for_statement" {
        let mut c = n.walk();
        let clauses = n
            .named_children(&mut c)
            .filter(|x| {
                !matches!(
                    x.kind(),
                    "block"
                        | "comment"
                        | "statement_block"
                        | "compound_statement"
                        | "expression_statement"
                )
            })
            .count();
        let cond = n
            .child_by_field_name("condition")
            .map(|c| text(c, src).trim().to_owned());
        let initializer = n
            .child_by_field_name("initializer")
            .or_else(|| n.child_by_field_name("init"));
        // Go: nothing but the body; C-like: `for (;;)`.
        return (clauses == 0
            && n.child_by_field_name("body")
                .is_some_and(|b| b.kind() == "block"))
            || (matches!(cond.as_deref(), Some(";") | Some(""))
                || (cond.is_none() && text(n, src).replace(' ', "").starts_with("for(;;)")))
                && initializer.is_none_or(|i| text(i, src).trim() == ";");
    }
    let Some(c) = n.child_by_field_name("condition") else {
        return false;
    };
    always(text(c, src)) == Some(true)
}

/// Any break (or goto) inside the loop, nested functions aside: it may leave.
fn has_break(r: &Rules, n: Node<'_>, src: &[u8]) -> bool {
    let mut c = n.walk();
    let kids: Vec<Node<'_>> = n.children(&mut c).collect();
    kids.into_iter().any(|k| {
        if r.functions.contains(&k.kind()) {
            return false;
        }
        // A macro's tokens are not parsed (`tokio::select! { .. => break }`).
        let in_tokens = k.kind() == "token_tree"
            && text(k, src)
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == "break");
        in_tokens || r.breaks.contains(&k.kind()) || has_break(r, k, src)
    })
}

/// The constant value of a condition's text, if it is one.
fn always(cond: &str) -> Option<bool> {
    let t: String = cond
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '(' && *c != ')')
        .collect();
    match t.as_str() {
        "True" | "true" | "1" => Some(true),
        "False" | "false" | "0" | "None" | "null" | "nil" | "undefined" => Some(false),
        _ => None,
    }
}

fn sequence(r: &Rules, seq: Node<'_>, src: &[u8], function: &str, out: &mut Vec<Block>) {
    let mut c = seq.walk();
    let stmts: Vec<Node<'_>> = seq
        .named_children(&mut c)
        .filter(|s| !COMMENTS.contains(&s.kind()))
        .filter(|s| {
            seq.kind() != "switch_case"
                || s.id()
                    != seq
                        .child_by_field_name("value")
                        .map_or(usize::MAX, |v| v.id())
        })
        .filter(|s| {
            !(seq.kind() == "case_statement"
                && Some(s.id()) == seq.child_by_field_name("value").map(|v| v.id()))
        })
        .collect();
    let mut after: Option<(String, u32)> = None;
    let mut dead: Vec<Node<'_>> = Vec::new();
    let mut attributed = false;
    for s in stmts {
        // Preprocessor lines (`#undef`) are no code.
        if s.kind().starts_with("preproc_") && !s.kind().starts_with("preproc_if") {
            continue;
        }
        let conditional = std::mem::replace(&mut attributed, s.kind() == "attribute_item");
        if let Some((why, at)) = &after {
            if matches!(s.kind(), "labeled_statement" | "case_statement") {
                // A label is a way in: what follows may run.
                flush(&mut dead, why, *at, function, out);
                after = None;
            } else if !r.quiet.contains(&s.kind()) {
                dead.push(s);
                continue;
            } else {
                continue;
            }
        }
        // `#[cfg(..)] return x;` may be compiled out: not a terminator.
        if let Some(why) = leaves(r, s, src).filter(|_| !conditional) {
            after = Some((why, line(s)));
        }
    }
    if let Some((why, at)) = after {
        flush(&mut dead, &why, at, function, out);
    }
}

fn flush(dead: &mut Vec<Node<'_>>, why: &str, at: u32, function: &str, out: &mut Vec<Block>) {
    if let (Some(first), Some(last)) = (dead.first(), dead.last()) {
        out.push(Block {
            file: String::new(),
            function: function.to_owned(),
            start_line: line(*first),
            end_line: end_line(*last),
            reason: format!("code after {why} on line {at}"),
            severity: "warning",
        });
    }
    dead.clear();
}

/// `if <constant>:` — the branch it never takes.
fn constant_if(n: Node<'_>, src: &[u8], function: &str, out: &mut Vec<Block>) {
    let Some(value) = n
        .child_by_field_name("condition")
        .and_then(|c| always(text(c, src)))
    else {
        return;
    };
    let never = if value {
        n.child_by_field_name("alternative")
    } else {
        n.child_by_field_name("consequence")
    };
    if let Some(b) = never {
        out.push(Block {
            file: String::new(),
            function: function.to_owned(),
            start_line: line(b),
            end_line: end_line(b),
            reason: format!("the condition on line {} is always {value}", line(n)),
            severity: "info",
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(l: Language, src: &str) -> Vec<(u32, u32, String)> {
        analyse("x", l, src.as_bytes())
            .unreachable_blocks
            .into_iter()
            .map(|b| (b.start_line, b.end_line, b.reason))
            .collect()
    }

    #[test]
    fn python_after_return_break_continue_raise_and_exit() {
        let src = "import sys\ndef f(xs):\n    for x in xs:\n        if x:\n            break\n            print(1)\n        elif x > 2:\n            continue\n            print(2)\n        else:\n            raise ValueError()\n            print(3)\n    sys.exit(1)\n    print(4)\n    return 5\n\ndef g():\n    return 1\n    # a comment\n    pass\n";
        let b = blocks(Language::Python, src);
        assert_eq!(b.len(), 4, "{b:?}");
        assert_eq!((b[0].0, b[0].1), (6, 6));
        assert!(b[0].2.contains("break"));
        assert_eq!(b[1].0, 9);
        assert_eq!(b[2].0, 12);
        assert!(b[3].2.contains("sys.exit()"), "{b:?}");
        assert_eq!((b[3].0, b[3].1), (14, 15));
    }

    #[test]
    fn a_method_named_like_an_exit_does_not_terminate() {
        let src = "def f(self):\n    self.exit()\n    logger.fatal('x')\n    return 1\n";
        assert!(blocks(Language::Python, src).is_empty());
    }

    #[test]
    fn infinite_loops_without_break_and_constant_conditions() {
        let src = "def f():\n    while True:\n        work()\n    done()\n\ndef g():\n    while True:\n        if x:\n            break\n    done()\n\ndef h():\n    if False:\n        never()\n";
        let b = blocks(Language::Python, src);
        assert_eq!(b.len(), 2, "{b:?}");
        assert_eq!(b[0].0, 4);
        assert!(b[0].2.contains("infinite loop"));
        assert_eq!(b[1].0, 14);
        assert!(b[1].2.contains("always false"));
    }

    #[test]
    fn an_anonymous_function_is_named_by_what_binds_it() {
        let js =
            "const f = () => {\n  return 1;\n  x();\n};\np.then(() => {\n  throw e;\n  y();\n});\n";
        let fns: Vec<String> = analyse("x", Language::JavaScript, js.as_bytes())
            .unreachable_blocks
            .into_iter()
            .map(|b| b.function)
            .collect();
        assert_eq!(fns, ["f", "<anonymous>"]);
    }

    #[test]
    fn rust_go_c_and_js() {
        let rs = "fn f() -> u32 {\n    panic!(\"x\");\n    let y = 1;\n    y\n}\nfn g() {\n    loop {\n        if a() { break; }\n    }\n    b();\n}\n";
        let b = blocks(Language::Rust, rs);
        assert_eq!(b.len(), 1, "{b:?}");
        assert_eq!((b[0].0, b[0].1), (3, 4));
        let cfg = "fn f() -> bool {\n    #[cfg(debug_assertions)]\n    return true;\n    #[cfg(not(debug_assertions))]\n    {\n        false\n    }\n}\nfn g() {\n    loop {\n        tokio::select! { _ = a() => break, }\n    }\n    done();\n}\n";
        assert!(
            blocks(Language::Rust, cfg).is_empty(),
            "{:?}",
            blocks(Language::Rust, cfg)
        );
        let go = "package m\nfunc f() int {\n    for {\n        work()\n    }\n    return 1\n}\nfunc g() {\n    os.Exit(1)\n    h()\n}\n";
        let b = blocks(Language::Go, go);
        assert_eq!(b.len(), 2, "{b:?}");
        let pre = "int g(void) {\n  goto out;\nout:\n  return 1;\n#undef X\n}\n";
        assert!(
            blocks(Language::C, pre).is_empty(),
            "{:?}",
            blocks(Language::C, pre)
        );
        let c = "int f(int x) {\n  switch (x) {\n  case 1:\n    return 1;\n    x++;\n  case 2:\n    break;\n  }\n  exit(0);\n  return 2;\n}\n";
        let b = blocks(Language::C, c);
        assert_eq!(b.len(), 2, "{b:?}");
        assert_eq!(b[0].0, 5);
        assert_eq!(b[1].0, 10);
        let js = "function f() {\n  return g();\n  function g() { return 1; }\n}\nfunction h() {\n  throw new Error();\n  x();\n}\n";
        let b = blocks(Language::JavaScript, js);
        assert_eq!(
            b.len(),
            1,
            "hoisted function declarations are reachable: {b:?}"
        );
        assert_eq!(b[0].0, 7);
    }
}
