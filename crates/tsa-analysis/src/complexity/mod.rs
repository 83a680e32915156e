//! The one canonical McCabe cyclomatic complexity (analyses.md §2).
//!
//! complexity(function) = 1 + the decision nodes inside its body. Which tree-sitter
//! node kinds open a function, count as a decision, short-circuit or nest is DATA:
//! each language's `complexity` convention (`complexity.yml` in its folder of
//! `tsa-lang`; `NotApplicable` for languages without functions). A function nested in
//! another is scored on its own and does not add to its parent. Every consumer
//! (`health`, `edit`, the chain DSL's `complexity`, heatmaps) uses this module.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;
use tree_sitter::Node;
use tsa_lang::Language;

/// One language's complexity rules (its `complexity` convention).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub functions: Vec<String>,
    pub decisions: Vec<String>,
    #[serde(default)]
    pub short_circuit: Vec<String>,
    #[serde(default)]
    pub operators: Vec<String>,
    #[serde(default)]
    pub nesting: Vec<String>,
    #[serde(default)]
    pub classes: Vec<String>,
    /// The kinds above as grammar symbol ids (filled when the table is built).
    #[serde(skip)]
    ids: KindSets,
}

/// Membership by grammar symbol id: named symbols only for node kinds (a keyword
/// token spelled like a node kind never counts), anonymous ones for operators.
#[derive(Debug, Default)]
struct KindSets {
    function: Vec<bool>,
    decision: Vec<bool>,
    short_circuit: Vec<bool>,
    operator: Vec<bool>,
    nesting: Vec<bool>,
    class: Vec<bool>,
    /// The grammar's `operator` field (looked up once: a lookup by name scans
    /// every field name, and C has a binary expression every few nodes).
    operator_field: Option<std::num::NonZeroU16>,
    /// The language the sets are of: its fields are looked up by id
    /// ([`Language::field`]); none before `compile`.
    lang: Option<Language>,
    /// Per kind id, the roles above as bits ([`FUNCTION`], ...): the measurer's
    /// one lookup per node.
    roles: Vec<u8>,
}

const FUNCTION: u8 = 1;
const DECISION: u8 = 2;
const SHORT_CIRCUIT: u8 = 4;
const NESTING: u8 = 8;
const CLASS: u8 = 16;

fn set_of(grammar: &tree_sitter::Language, kinds: &[String], named: bool) -> Vec<bool> {
    let n = grammar.node_kind_count();
    (0..n)
        .map(|id| {
            let id = id as u16;
            grammar.node_kind_is_named(id) == named
                && grammar
                    .node_kind_for_id(id)
                    .is_some_and(|k| kinds.iter().any(|x| x == k))
        })
        .collect()
}

fn has(set: &[bool], node: Node<'_>) -> bool {
    has_kind(set, node.kind_id())
}

fn has_kind(set: &[bool], kind: u16) -> bool {
    set.get(kind as usize).copied().unwrap_or(false)
}

impl Rules {
    /// Whether `node` opens a function (named nodes only: `function` is also a keyword).
    pub fn is_function(&self, node: Node<'_>) -> bool {
        has(&self.ids.function, node)
    }

    fn compile(&mut self, lang: Language) {
        let grammar = &lang.grammar();
        self.ids = KindSets {
            function: set_of(grammar, &self.functions, true),
            decision: set_of(grammar, &self.decisions, true),
            short_circuit: set_of(grammar, &self.short_circuit, true),
            operator: set_of(grammar, &self.operators, false),
            nesting: set_of(grammar, &self.nesting, true),
            class: set_of(grammar, &self.classes, true),
            operator_field: grammar.field_id_for_name("operator"),
            lang: Some(lang),
            roles: Vec::new(),
        };
        let ids = &self.ids;
        let roles = (0..ids.function.len())
            .map(|k| {
                [
                    (&ids.function, FUNCTION),
                    (&ids.decision, DECISION),
                    (&ids.short_circuit, SHORT_CIRCUIT),
                    (&ids.nesting, NESTING),
                    (&ids.class, CLASS),
                ]
                .iter()
                .filter(|(set, _)| set[k])
                .fold(0, |bits, (_, bit)| bits | bit)
            })
            .collect();
        self.ids.roles = roles;
    }

    /// `node`'s child in the field `name` (none before `compile`).
    fn field<'t>(&self, node: Node<'t>, name: &str) -> Option<Node<'t>> {
        self.ids.lang?.field(node, name)
    }

    fn is_class(&self, node: Node<'_>) -> bool {
        has(&self.ids.class, node)
    }

    /// Whether `node` adds one path.
    pub fn is_decision(&self, node: Node<'_>) -> bool {
        self.is_decision_of(node, node.kind_id())
    }

    /// [`Rules::is_decision`] of `node`, whose kind id is `kind`.
    fn is_decision_of(&self, node: Node<'_>, kind: u16) -> bool {
        if has_kind(&self.ids.decision, kind) {
            return true;
        }
        has_kind(&self.ids.short_circuit, kind)
            && self
                .ids
                .operator_field
                .and_then(|f| node.child_by_field_id(f.get()))
                .is_some_and(|op| has(&self.ids.operator, op))
    }

    fn is_nesting(&self, node: Node<'_>) -> bool {
        has(&self.ids.nesting, node)
    }
}

fn table() -> &'static HashMap<Language, Rules> {
    static TABLE: OnceLock<HashMap<Language, Rules>> = OnceLock::new();
    TABLE.get_or_init(|| {
        // The data is compiled in and checked by a unit test; a broken edit fails there.
        Language::ALL
            .iter()
            .filter_map(|&lang| {
                let yaml = lang.conventions().complexity.get()?;
                let mut rules: Rules = serde_norway::from_str(yaml).ok()?;
                rules.compile(lang);
                Some((lang, rules))
            })
            .collect()
    })
}

/// The complexity rules of `lang`; `None` for languages without functions
/// (CSS, JSON, Markdown, ...).
pub fn rules(lang: Language) -> Option<&'static Rules> {
    table().get(&lang)
}

/// The risk band of a complexity (analyses.md §2): 1–5 low, 6–10 medium,
/// 11–20 high, ≥ 21 critical.
pub fn band(cc: u32) -> &'static str {
    match cc {
        0..=5 => "low",
        6..=10 => "medium",
        11..=20 => "high",
        _ => "critical",
    }
}

/// Complexity of one function node: 1 + its decision nodes, nested functions excluded.
pub fn of_function(rules: &Rules, function: Node<'_>) -> u32 {
    1 + decisions_below(rules, function, None)
}

/// Decision nodes in `node` itself and below it (nested functions excluded): the
/// paths a block adds to its function.
pub fn decisions_within(rules: &Rules, node: Node<'_>) -> u32 {
    u32::from(rules.is_decision(node)) + decisions_below(rules, node, None)
}

/// Decision nodes below `node` (not descending into nested functions); with
/// `rows`, only nodes lying entirely within those rows count.
fn decisions_below(rules: &Rules, node: Node<'_>, rows: Option<(usize, usize)>) -> u32 {
    let mut n = 0;
    let mut cursor = node.walk();
    let mut stack: Vec<Node<'_>> = node.children(&mut cursor).collect();
    while let Some(cur) = stack.pop() {
        if rules.is_function(cur) {
            continue;
        }
        let inside = rows.is_none_or(|(first, last)| {
            cur.start_position().row >= first && cur.end_position().row <= last
        });
        if inside && rules.is_decision(cur) {
            n += 1;
        }
        if let Some((first, last)) = rows
            && (cur.end_position().row < first || cur.start_position().row > last)
        {
            continue;
        }
        let mut c = cur.walk();
        stack.extend(cur.children(&mut c));
    }
    n
}

/// Complexity of the definition spanning 1-based lines `line..=end_line`: the
/// function node starting on `line` when there is one, else 1 + the decisions
/// lying within the lines (classes, modules).
pub fn of_span(rules: &Rules, root: Node<'_>, line: u32, end_line: u32) -> u32 {
    let first = line.saturating_sub(1) as usize;
    let last = end_line.max(line).saturating_sub(1) as usize;
    if let Some(f) = function_at_row(rules, root, first) {
        return of_function(rules, f);
    }
    1 + decisions_below(rules, root, Some((first, last)))
}

fn function_at_row<'t>(rules: &Rules, root: Node<'t>, row: usize) -> Option<Node<'t>> {
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(cur) = stack.pop() {
        if cur.end_position().row < row || cur.start_position().row > row {
            continue;
        }
        if rules.is_function(cur) && cur.start_position().row == row {
            return Some(cur);
        }
        let mut kids: Vec<Node<'t>> = cur.children(&mut cursor).collect();
        kids.reverse();
        stack.extend(kids);
    }
    None
}

/// One function found in a parse tree, with its metrics.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FunctionCc {
    pub name: String,
    /// 1-based first and last line.
    pub line: u32,
    pub end_line: u32,
    pub complexity: u32,
    /// Deepest nesting of control blocks inside the function.
    pub nesting: u32,
    pub parameters: u32,
}

/// Every function of a parsed file, in source order.
pub fn functions(rules: &Rules, root: Node<'_>, src: &[u8]) -> Vec<FunctionCc> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let mut stack = vec![(root, None)];
    while let Some((cur, parent)) = stack.pop() {
        if rules.is_function(cur) {
            out.push(FunctionCc {
                name: function_name(rules, cur, parent, src),
                line: cur.start_position().row as u32 + 1,
                end_line: cur.end_position().row as u32 + 1,
                complexity: of_function(rules, cur),
                nesting: nesting_of(rules, cur),
                parameters: rules
                    .field(cur, "parameters")
                    .map_or(0, |p| p.named_child_count() as u32),
            });
        }
        stack.extend(cur.children(&mut cursor).map(|c| (c, Some(cur))));
    }
    out.sort_by_key(|f| (f.line, f.end_line));
    out
}

fn text<'s>(node: Node<'_>, src: &'s [u8]) -> &'s str {
    node.utf8_text(src).unwrap_or("")
}

/// The function's name: its `name` field, else the variable/key it is assigned to,
/// else `<anonymous>`. `parent` is the node's (callers know it from their walk).
fn function_name(rules: &Rules, node: Node<'_>, parent: Option<Node<'_>>, src: &[u8]) -> String {
    if let Some(n) = rules.field(node, "name") {
        return text(n, src).to_owned();
    }
    if let Some(d) = rules.field(node, "declarator") {
        // C/C++: the declarator's innermost identifier.
        let mut cur = d;
        while let Some(inner) = rules.field(cur, "declarator") {
            cur = inner;
        }
        return text(cur, src).to_owned();
    }
    if let Some(p) = parent {
        for field in ["name", "left", "key"] {
            if let Some(n) = rules.field(p, field)
                && n.id() != node.id()
            {
                return text(n, src).to_owned();
            }
        }
    }
    "<anonymous>".to_owned()
}

/// Deepest chain of nesting blocks below `function` (nested functions excluded).
fn nesting_of(rules: &Rules, function: Node<'_>) -> u32 {
    let mut best = 0;
    let mut cursor = function.walk();
    let mut stack: Vec<(Node<'_>, u32)> = function.children(&mut cursor).map(|c| (c, 0)).collect();
    while let Some((cur, depth)) = stack.pop() {
        if rules.is_function(cur) {
            continue;
        }
        let depth = if rules.is_nesting(cur) {
            depth + 1
        } else {
            depth
        };
        best = best.max(depth);
        let mut c = cur.walk();
        stack.extend(cur.children(&mut c).map(|k| (k, depth)));
    }
    best
}

/// A class-like definition and how many functions it holds directly.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClassMethods {
    pub name: String,
    pub line: u32,
    pub methods: u32,
}

/// Every class-like node of a parsed file with its direct method count (functions
/// below it that are not nested in another function or class).
pub fn classes(rules: &Rules, root: Node<'_>, src: &[u8]) -> Vec<ClassMethods> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(cur) = stack.pop() {
        if rules.is_class(cur) {
            let mut methods = 0;
            let mut c = cur.walk();
            let mut inner: Vec<Node<'_>> = cur.children(&mut c).collect();
            while let Some(n) = inner.pop() {
                if rules.is_function(n) {
                    methods += 1;
                    continue;
                }
                if rules.is_class(n) {
                    continue;
                }
                let mut c2 = n.walk();
                inner.extend(n.children(&mut c2));
            }
            let name = rules
                .field(cur, "name")
                .or_else(|| rules.field(cur, "type"))
                .map_or_else(|| "<anonymous>".to_owned(), |n| text(n, src).to_owned());
            out.push(ClassMethods {
                name,
                line: cur.start_position().row as u32 + 1,
                methods,
            });
        }
        stack.extend(cur.children(&mut cursor));
    }
    out.sort_by_key(|c| c.line);
    out
}

/// Everything a file's health needs from its tree, in one traversal.
#[derive(Debug, PartialEq)]
pub struct Measured {
    pub functions: Vec<FunctionCc>,
    pub classes: Vec<ClassMethods>,
    pub max_depth: u32,
}

#[derive(Clone, Copy)]
enum Container {
    /// Module level or inside a function: functions here are not methods.
    Other,
    Class(usize),
}

#[derive(Clone, Copy)]
struct Frame {
    function: Option<usize>,
    nest: u32,
    container: Container,
}

/// One depth-first pass: the same results as [`functions`], [`classes`] and
/// [`max_depth`] together, on a walk of its own. Tests hold [`Measurer`] (the pass
/// health runs, on the extraction's walk or its own) to those separate walks.
#[cfg(test)]
pub fn measure(rules: &Rules, root: Node<'_>, src: &[u8]) -> Measured {
    let mut m = Measurer::new(Some(rules));
    tsa_lang::visit(root, src, &mut m);
    m.done()
}

/// Functions, classes and tree depth of a file, as a pass that rides another walk
/// (the index build's extraction) or its own: `enter` and `leave` each node in
/// document order. Without rules (a language without a complexity table) it
/// measures the depth alone.
pub struct Measurer<'r> {
    rules: Option<&'r Rules>,
    functions: Vec<FunctionCc>,
    classes: Vec<ClassMethods>,
    max_depth: u32,
    /// One per open node, under a module-level one.
    frames: Vec<Frame>,
}

impl<'r> Measurer<'r> {
    pub fn new(rules: Option<&'r Rules>) -> Self {
        Self {
            rules,
            functions: Vec::new(),
            classes: Vec::new(),
            max_depth: 1,
            frames: vec![Frame {
                function: None,
                nest: 0,
                container: Container::Other,
            }],
        }
    }

    /// Whether the language has a complexity table (else only depth is measured).
    pub fn has_rules(&self) -> bool {
        self.rules.is_some()
    }

    /// What the pass measured (functions by line, classes by line).
    pub fn done(mut self) -> Measured {
        self.functions.sort_by_key(|f| (f.line, f.end_line));
        self.classes.sort_by_key(|c| c.line);
        Measured {
            functions: self.functions,
            classes: self.classes,
            max_depth: self.max_depth,
        }
    }

    /// The frame `node` opens under `parent`.
    fn frame(
        &mut self,
        rules: &Rules,
        (node, kind): (Node<'_>, u16),
        parent_node: Option<Node<'_>>,
        src: &[u8],
        parent: Frame,
    ) -> Frame {
        // Every tree node passes here: one lookup of its kind's roles.
        let roles = rules.ids.roles.get(kind as usize).copied().unwrap_or(0);
        if roles & FUNCTION != 0 {
            if let Container::Class(ci) = parent.container {
                self.classes[ci].methods += 1;
            }
            self.functions.push(FunctionCc {
                name: function_name(rules, node, parent_node, src),
                line: node.start_position().row as u32 + 1,
                end_line: node.end_position().row as u32 + 1,
                complexity: 1,
                nesting: 0,
                parameters: rules
                    .field(node, "parameters")
                    .map_or(0, |p| p.named_child_count() as u32),
            });
            return Frame {
                function: Some(self.functions.len() - 1),
                nest: 0,
                container: Container::Other,
            };
        }
        let mut f = parent;
        if let Some(fi) = parent.function {
            if roles & DECISION != 0
                || (roles & SHORT_CIRCUIT != 0 && rules.is_decision_of(node, kind))
            {
                self.functions[fi].complexity += 1;
            }
            if roles & NESTING != 0 {
                f.nest += 1;
                self.functions[fi].nesting = self.functions[fi].nesting.max(f.nest);
            }
        }
        if roles & CLASS != 0 {
            let name = rules
                .field(node, "name")
                .or_else(|| rules.field(node, "type"))
                .map_or_else(|| "<anonymous>".to_owned(), |n| text(n, src).to_owned());
            self.classes.push(ClassMethods {
                name,
                line: node.start_position().row as u32 + 1,
                methods: 0,
            });
            f.container = Container::Class(self.classes.len() - 1);
        }
        f
    }
}

impl tsa_lang::TreeVisitor for Measurer<'_> {
    fn enter(&mut self, node: Node<'_>, parent_node: Option<Node<'_>>, src: &[u8]) {
        self.enter_kind(node, node.kind_id(), parent_node, src);
    }

    fn enter_kind(&mut self, node: Node<'_>, kind: u16, parent_node: Option<Node<'_>>, src: &[u8]) {
        self.max_depth = self.max_depth.max(self.frames.len() as u32);
        let parent = *self.frames.last().unwrap_or(&Frame {
            function: None,
            nest: 0,
            container: Container::Other,
        });
        let frame = match self.rules {
            Some(rules) => self.frame(rules, (node, kind), parent_node, src, parent),
            None => parent,
        };
        self.frames.push(frame);
    }

    fn leave(&mut self) {
        self.frames.pop();
    }

    /// No anonymous leaf kind: the kinds it counts are named ones (a keyword never
    /// counts, see [`KindSets`]); an anonymous leaf adds only to the depth.
    fn leaf_kinds(&self) -> Option<&'static [bool]> {
        Some(&[])
    }

    fn skipped_leaf(&mut self) {
        // The depth `enter` would have taken at a child of the innermost node.
        self.max_depth = self.max_depth.max(self.frames.len() as u32);
    }

    /// A measurer's results are typed ([`Measurer::done`]): it writes no text, so
    /// a [`tsa_lang::FactsHook`] wraps it (health's `FactsPass`) rather than being it.
    fn finish(self: Box<Self>, _root: Node<'_>, _src: &[u8]) -> Option<String> {
        None
    }
}

/// Depth of the deepest node of a parse tree (the root has depth 1): the tests'
/// independent measure of [`Measurer`]'s depth.
#[cfg(test)]
pub fn max_depth(root: Node<'_>) -> u32 {
    let mut cursor = root.walk();
    let mut depth = 1u32;
    let mut best = 1u32;
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            best = best.max(depth);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return best;
            }
            depth -= 1;
        }
    }
}

/// Parses `src` as `lang`; `None` when the grammar cannot be loaded.
pub fn parse(lang: Language, src: &[u8]) -> Option<tree_sitter::Tree> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    parser.parse(src, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ccs(lang: &str, src: &str) -> Vec<(String, u32)> {
        let lang = Language::from_name(lang).unwrap();
        let tree = parse(lang, src.as_bytes()).unwrap();
        functions(rules(lang).unwrap(), tree.root_node(), src.as_bytes())
            .into_iter()
            .map(|f| (f.name, f.complexity))
            .collect()
    }

    #[test]
    fn each_kinds_roles_are_its_sets() {
        let mut langs = 0;
        for &lang in Language::ALL {
            let Some(r) = rules(lang) else { continue };
            langs += 1;
            let ids = &r.ids;
            assert_eq!(ids.roles.len(), ids.function.len(), "{lang:?}");
            for (k, &roles) in ids.roles.iter().enumerate() {
                for (set, bit) in [
                    (&ids.function, FUNCTION),
                    (&ids.decision, DECISION),
                    (&ids.short_circuit, SHORT_CIRCUIT),
                    (&ids.nesting, NESTING),
                    (&ids.class, CLASS),
                ] {
                    assert_eq!(roles & bit != 0, set[k], "{lang:?} kind {k} role {bit}");
                }
            }
        }
        assert!(langs > 10);
    }

    #[test]
    fn data_parses_and_covers_every_full_language() {
        for lang in Language::ALL {
            if let Some(yaml) = lang.conventions().complexity.get() {
                let parsed: Result<Rules, _> = serde_norway::from_str(yaml);
                assert!(parsed.is_ok(), "{}: {parsed:?}", lang.name());
            }
        }
        for name in [
            "python",
            "javascript",
            "typescript",
            "tsx",
            "go",
            "rust",
            "java",
            "c",
            "cpp",
            "csharp",
            "kotlin",
            "php",
            "ruby",
            "scala",
            "swift",
            "bash",
        ] {
            let lang = Language::from_name(name);
            assert!(lang.is_some(), "{name} unknown");
            assert!(lang.and_then(rules).is_some(), "{name} missing");
        }
    }

    #[test]
    fn python() {
        let src = "def f(x):\n    if x and x > 1:\n        return 1\n    elif x:\n        pass\n    for i in x:\n        pass\n    return [a for a in x] if x else 3\n\ndef g():\n    return 1\n";
        // if, and, elif, for, conditional, list comprehension.
        assert_eq!(ccs("python", src), vec![("f".into(), 7), ("g".into(), 1)]);
    }

    #[test]
    fn python_nested_function_is_scored_apart() {
        let src = "def outer(x):\n    def inner(y):\n        if y:\n            return 1\n    while x:\n        x -= 1\n";
        assert_eq!(
            ccs("python", src),
            vec![("outer".into(), 2), ("inner".into(), 2)]
        );
    }

    #[test]
    fn javascript() {
        let src = "function f(a, b) {\n  if (a && b) { return 1; } else { return 2; }\n  for (const x of a) {}\n  return a ? 1 : (b ?? 2);\n}\nconst g = (x) => x || 1;\n";
        // if, &&, else, for-of, ternary, ?? ; g: ||
        assert_eq!(
            ccs("javascript", src),
            vec![("f".into(), 7), ("g".into(), 2)]
        );
    }

    #[test]
    fn go() {
        let src = "package m\nfunc F(a int) int {\n\tif a > 1 && a < 5 {\n\t\treturn 1\n\t}\n\tfor i := 0; i < a; i++ {}\n\tswitch a {\n\tcase 1:\n\t\treturn 2\n\tcase 2:\n\t\treturn 3\n\tdefault:\n\t\treturn 4\n\t}\n}\n";
        // if, &&, for, case, case
        assert_eq!(ccs("go", src), vec![("F".into(), 6)]);
    }

    #[test]
    fn rust() {
        let src = "fn f(x: Option<u32>) -> u32 {\n    if let Some(v) = x { if v > 1 || v < 0 { return 1; } }\n    match x { Some(1) => 2, Some(_) => 3, None => 4 }\n}\n";
        // if, if, ||, 3 arms
        assert_eq!(ccs("rust", src), vec![("f".into(), 7)]);
    }

    #[test]
    fn java() {
        let src = "class A {\n  int f(int a) {\n    if (a > 1 && a < 3) return 1;\n    for (int x : new int[]{1}) {}\n    try { a++; } catch (Exception e) {}\n    return a > 0 ? 1 : 2;\n  }\n}\n";
        // if, &&, enhanced for, catch, ternary
        assert_eq!(ccs("java", src), vec![("f".into(), 6)]);
    }

    #[test]
    fn spans_delegate_to_the_function_at_the_line() {
        let lang = Language::from_name("python").unwrap();
        let src = "x = 1\n\ndef f(a):\n    if a:\n        return 1\n    return 2\n";
        let tree = parse(lang, src.as_bytes()).unwrap();
        let r = rules(lang).unwrap();
        assert_eq!(of_span(r, tree.root_node(), 3, 6), 2);
        assert_eq!(of_span(r, tree.root_node(), 1, 1), 1);
    }

    #[test]
    fn one_pass_agrees_with_the_separate_walks() {
        for (lang, src) in [
            (
                "python",
                "class A:\n    def m(self, x):\n        if x and x > 1:\n            for i in x:\n                while i:\n                    i -= 1\n        def inner():\n            return [a for a in x]\n        return 1\n\ndef g():\n    return 1 if g else 2\n",
            ),
            (
                "javascript",
                "class K { m(a) { if (a || b) { for (;;) {} } } }\nfunction f(x) { return x ? 1 : 2; }\nconst h = () => { try {} catch (e) {} };\n",
            ),
            (
                "rust",
                "impl S { fn a(&self) { if x { loop {} } } }\nfn b() { let c = |y| if y { 1 } else { 2 }; }\n",
            ),
            (
                "ruby",
                "class C\n  def m(x)\n    if x\n      1\n    elsif x > 2\n      2\n    end\n  end\nend\n",
            ),
        ] {
            let l = Language::from_name(lang).unwrap();
            let tree = parse(l, src.as_bytes()).unwrap();
            let r = rules(l).unwrap();
            let one = measure(r, tree.root_node(), src.as_bytes());
            assert_eq!(
                one.functions,
                functions(r, tree.root_node(), src.as_bytes()),
                "{lang}"
            );
            assert_eq!(
                one.classes,
                classes(r, tree.root_node(), src.as_bytes()),
                "{lang}"
            );
            assert_eq!(one.max_depth, max_depth(tree.root_node()), "{lang}");
        }
    }

    #[test]
    fn an_anonymous_function_takes_the_name_its_parent_binds_from_the_walk() {
        // The walk hands each node its parent: the names come from it, not from a
        // walk down from the root per function (quadratic in a chain of callbacks).
        let src = "const h = () => 1;\nconst o = { k: function () {} };\np.then(x => f(x)).then(y => y);\n";
        let l = Language::from_name("javascript").unwrap();
        let tree = parse(l, src.as_bytes()).unwrap();
        let r = rules(l).unwrap();
        let names: Vec<String> = measure(r, tree.root_node(), src.as_bytes())
            .functions
            .into_iter()
            .map(|f| f.name)
            .collect();
        assert_eq!(names, ["h", "k", "<anonymous>", "<anonymous>"]);
    }

    #[test]
    fn ruby_keywords_spelled_like_node_kinds_do_not_count() {
        // `if` node + `elsif` node; the `if` keyword token is not a decision.
        let src = "def m(x)\n  if x\n    1\n  elsif x > 2\n    2\n  end\nend\n";
        assert_eq!(ccs("ruby", src), vec![("m".into(), 3)]);
    }

    #[test]
    fn bands_and_depth() {
        assert_eq!(band(1), "low");
        assert_eq!(band(5), "low");
        assert_eq!(band(6), "medium");
        assert_eq!(band(10), "medium");
        assert_eq!(band(11), "high");
        assert_eq!(band(20), "high");
        assert_eq!(band(21), "critical");
        let lang = Language::from_name("python").unwrap();
        let tree = parse(lang, b"x = 1\n").unwrap();
        // module > expression_statement > assignment > identifier
        assert_eq!(max_depth(tree.root_node()), 4);
    }
}
