//! The branch each call site sits in (`if_true`, `loop`, `except`, ...), from the
//! language folder's `branches.txt` rules: going down from a node of a rule's
//! parent kind into a child in the rule's field (or of the rule's node kind), that
//! child's subtree is in a branch of the rule's kind. A definition starts afresh
//! (`unconditional`); the innermost rule wins. One walk per file, pruned to the
//! subtrees that hold a call.

use std::collections::HashMap;
use std::sync::OnceLock;

use rustc_hash::{FxHashMap, FxHashSet};
use tree_sitter::Node;

use crate::languages::Language;
use crate::model::BranchKind;

/// Which children of a parent a rule takes.
#[derive(Clone, Copy, Debug)]
enum Sel {
    /// Children in this field, or of this node kind.
    Name(&'static str),
    /// Named children outside any field (other than `token` itself) after the
    /// parent's first `token` child (`@after:else`: Kotlin's and Swift's else arm).
    After(&'static str),
    /// ... before it (`@before:else`: their then arm; `@before:if`: the value of
    /// Python's `a if c else b`).
    Before(&'static str),
}

/// One language's rules: parent node kind -> (which children, kind).
pub(crate) struct Rules {
    by_parent: FxHashMap<&'static str, Vec<(Sel, BranchKind)>>,
    /// Parents with a positional rule (their passed children are tracked).
    positional: FxHashSet<&'static str>,
    /// The same rules by node kind id (every id of a parent kind's name): an index
    /// into `lists` ([`NO_RULES`]: none), which [`BranchWalk`] looks each node up in.
    by_id: Vec<u16>,
    /// A parent kind's rules, and whether one of them is positional.
    lists: Vec<(Vec<(Sel, BranchKind)>, bool)>,
}

/// No rules for this kind id.
const NO_RULES: u16 = u16::MAX;

/// A rule line that does not parse or names what the grammar does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError(pub String);

fn parse(lang: Language, text: &'static str) -> Result<Rules, RuleError> {
    let grammar = (lang.spec().grammar)();
    let mut by_parent: FxHashMap<&'static str, Vec<(Sel, BranchKind)>> = FxHashMap::default();
    let mut positional: FxHashSet<&'static str> = FxHashSet::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{}/branches.txt:{}", lang.name(), i + 1);
        let parts: Vec<&'static str> = line.split_whitespace().collect();
        let [parent, sel, kind] = parts[..] else {
            return Err(RuleError(format!(
                "{}: expected `<parent kind> <field or child kind> <branch kind>`",
                at()
            )));
        };
        let kind = BranchKind::parse(kind)
            .filter(|k| *k != BranchKind::Unconditional)
            .ok_or_else(|| RuleError(format!("{}: unknown branch kind '{kind}'", at())))?;
        if grammar.id_for_node_kind(parent, true) == 0 {
            return Err(RuleError(format!(
                "{}: the grammar has no node kind '{parent}'",
                at()
            )));
        }
        let by_place = sel
            .strip_prefix("@after:")
            .map(Sel::After)
            .or_else(|| sel.strip_prefix("@before:").map(Sel::Before));
        let sel = match by_place {
            Some(Sel::After(t) | Sel::Before(t))
                if grammar.id_for_node_kind(t, false) == 0
                    && grammar.id_for_node_kind(t, true) == 0 =>
            {
                return Err(RuleError(format!(
                    "{}: the grammar has no token or node kind '{t}'",
                    at()
                )));
            }
            Some(p) => p,
            None if grammar.field_id_for_name(sel).is_none()
                && grammar.id_for_node_kind(sel, true) == 0 =>
            {
                return Err(RuleError(format!(
                    "{}: the grammar has no field or node kind '{sel}'",
                    at()
                )));
            }
            None => Sel::Name(sel),
        };
        if !matches!(sel, Sel::Name(_)) {
            positional.insert(parent);
        }
        by_parent.entry(parent).or_default().push((sel, kind));
    }
    let mut lists = Vec::new();
    let mut at: FxHashMap<&'static str, u16> = FxHashMap::default();
    let by_id = (0..grammar.node_kind_count())
        .map(|id| {
            let Some((&key, rules)) = grammar
                .node_kind_for_id(id as u16)
                .and_then(|name| by_parent.get_key_value(name))
            else {
                return NO_RULES;
            };
            *at.entry(key).or_insert_with(|| {
                lists.push((rules.clone(), positional.contains(key)));
                (lists.len() - 1) as u16
            })
        })
        .collect();
    Ok(Rules {
        by_parent,
        positional,
        by_id,
        lists,
    })
}

/// The language's rules, parsed once; `None` where it states none.
pub(crate) fn rules(lang: Language) -> Result<Option<&'static Rules>, RuleError> {
    type Slot = OnceLock<Result<Option<Rules>, RuleError>>;
    static SLOTS: OnceLock<HashMap<Language, Slot>> = OnceLock::new();
    let slots = SLOTS.get_or_init(|| {
        Language::ALL
            .iter()
            .map(|l| (*l, OnceLock::new()))
            .collect()
    });
    slots[&lang]
        .get_or_init(|| match lang.conventions().branches.get() {
            Some(text) => parse(lang, text).map(Some),
            None => Ok(None),
        })
        .as_ref()
        .map(Option::as_ref)
        .map_err(Clone::clone)
}

/// The branch of each call node (by node id) of one file, where the language
/// states branch rules (`None` where it does not), by a walk of its own; `defs`
/// are the byte ranges of the file's definitions.
pub(crate) fn of_calls<'t>(
    lang: Language,
    root: Node<'t>,
    calls: impl Iterator<Item = Node<'t>>,
    defs: impl Iterator<Item = (usize, usize)>,
) -> Option<FxHashMap<usize, BranchKind>> {
    let rules = rules(lang).ok().flatten()?;
    let calls: Vec<Node<'t>> = calls.collect();
    if calls.is_empty() {
        return None;
    }
    let mut starts: Vec<usize> = calls.iter().map(Node::start_byte).collect();
    starts.sort_unstable();
    let ids = calls.iter().map(Node::id).collect();
    Some(rules.classify(root, &starts, &ids, &defs.collect()))
}

/// Parses every language's rules (a test calls this so a bad rule fails CI).
pub fn validate() -> Result<(), RuleError> {
    for lang in Language::ALL {
        rules(*lang)?;
    }
    Ok(())
}

/// The branch of each call site, worked out on the extraction's own walk (no walk
/// of its own, unlike [`Rules::classify`], whose results it gives): each node the
/// walk enters gets the kind its parent's rules give it (or the parent's), a
/// definition starts afresh, and a call takes the kind of its node.
pub(crate) struct BranchWalk<'t> {
    rules: &'static Rules,
    /// One per node the walk is inside, the root first.
    frames: Vec<Frame<'t>>,
    /// Byte ranges of the definitions matched ahead of the walk (a node of the
    /// same range starts afresh, as [`Rules::classify`] reads them); dropped once
    /// the walk is past their start (it enters nodes by non-decreasing start).
    ahead: Vec<(usize, usize)>,
    /// Call nodes matched before the walk reached them (a pattern rooted above).
    wanted: FxHashSet<usize>,
    out: FxHashMap<usize, BranchKind>,
}

struct Frame<'t> {
    node: Node<'t>,
    /// This node's kind (what its parent's rules give it).
    here: BranchKind,
    /// What its children inherit: `here`, or unconditional for a definition.
    inherited: BranchKind,
    /// Its rules as a parent ([`NO_RULES`]: none).
    rules: u16,
    /// The kinds of its children passed so far (for positional rules only).
    seen: Vec<&'t str>,
}

impl<'t> BranchWalk<'t> {
    /// A walk for `lang`, `None` where it states no branch rules.
    pub(crate) fn new(lang: Language) -> Option<Self> {
        Some(BranchWalk {
            rules: rules(lang).ok().flatten()?,
            frames: Vec::new(),
            ahead: Vec::new(),
            wanted: FxHashSet::default(),
            out: FxHashMap::default(),
        })
    }

    /// The walk enters `node` of kind id `kind`, in field id `field` of its
    /// parent (0: none; its name is looked up only where the parent has rules).
    pub(crate) fn enter(&mut self, node: Node<'t>, kind: u16, field: u16) {
        let here = match self.frames.last() {
            None => BranchKind::Unconditional,
            Some(parent) if parent.rules == NO_RULES => parent.inherited,
            Some(parent) => {
                let (rules, _) = &self.rules.lists[parent.rules as usize];
                let grammar = node.language();
                let field = (field != 0)
                    .then(|| grammar.field_name_for_id(field))
                    .flatten();
                Rules::kind(rules, field, node, &parent.seen).unwrap_or(parent.inherited)
            }
        };
        // (A node's range is read only while definitions lie ahead: most nodes
        // never need it.)
        let inherited = if self.ahead.is_empty() {
            here
        } else {
            let range = (node.start_byte(), node.end_byte());
            self.ahead.retain(|r| r.0 >= range.0);
            if self.ahead.contains(&range) {
                BranchKind::Unconditional
            } else {
                here
            }
        };
        let id = node.id();
        if !self.wanted.is_empty() && self.wanted.remove(&id) {
            self.out.insert(id, here);
        }
        let rules = self
            .rules
            .by_id
            .get(kind as usize)
            .copied()
            .unwrap_or(NO_RULES);
        self.frames.push(Frame {
            node,
            here,
            inherited,
            rules,
            seen: Vec::new(),
        });
    }

    /// Whether a node of kind id `kind` has rules for its children (which read
    /// their fields).
    pub(crate) fn asks(&self, kind: u16) -> bool {
        self.rules
            .by_id
            .get(kind as usize)
            .is_some_and(|&r| r != NO_RULES)
    }

    /// The walk leaves `node`, the node it last entered and did not leave.
    pub(crate) fn leave(&mut self, node: Node<'t>) {
        self.frames.pop();
        if let Some(parent) = self.frames.last_mut()
            && parent.rules != NO_RULES
            && self.rules.lists[parent.rules as usize].1
        {
            parent.seen.push(node.kind());
        }
    }

    /// A definition matched at `node` (the node the walk is at, or one under it).
    pub(crate) fn def(&mut self, node: Node<'_>) {
        let range = (node.start_byte(), node.end_byte());
        if !self.ahead.contains(&range) {
            self.ahead.push(range);
        }
        if let Some(top) = self.frames.last_mut()
            && (top.node.start_byte(), top.node.end_byte()) == range
        {
            top.inherited = BranchKind::Unconditional;
        }
    }

    /// A call matched at `node` (the node the walk is at, or one under it).
    pub(crate) fn call(&mut self, node: Node<'_>) {
        let id = node.id();
        match self.frames.last() {
            Some(top) if top.node.id() == id => {
                self.out.insert(id, top.here);
            }
            _ => {
                self.wanted.insert(id);
            }
        }
    }

    /// The branch of each call node (by node id).
    pub(crate) fn finish(self) -> FxHashMap<usize, BranchKind> {
        self.out
    }
}

impl Rules {
    /// The kind a rule of `rules` (a parent's) gives `child` in `field`; `seen`
    /// are the anonymous tokens among the parent's children before `child`.
    fn kind(
        rules: &[(Sel, BranchKind)],
        field: Option<&str>,
        child: Node<'_>,
        seen: &[&str],
    ) -> Option<BranchKind> {
        let free = child.is_named() && field.is_none();
        rules
            .iter()
            .find(|(sel, _)| match sel {
                Sel::Name(n) => Some(*n) == field || *n == child.kind(),
                Sel::After(t) => free && child.kind() != *t && seen.iter().any(|s| s == t),
                Sel::Before(t) => free && !seen.iter().any(|s| s == t),
            })
            .map(|(_, k)| *k)
    }

    /// The branch of every call node (by node id). `calls` are the call nodes'
    /// start bytes, sorted; `defs` the byte ranges of the file's definitions.
    pub(crate) fn classify(
        &self,
        root: Node<'_>,
        calls: &[usize],
        call_ids: &FxHashSet<usize>,
        defs: &FxHashSet<(usize, usize)>,
    ) -> FxHashMap<usize, BranchKind> {
        let mut out = FxHashMap::default();
        let holds_call = |n: Node<'_>| {
            let i = calls.partition_point(|b| *b < n.start_byte());
            calls.get(i).is_some_and(|b| *b < n.end_byte())
        };
        // Of every ancestor of the cursor: the kind its children inherit, its rules
        // (looked up once), whether they are positional, and the anonymous tokens
        // among its children passed so far (for those).
        struct Frame<'r, 't> {
            inherited: BranchKind,
            rules: Option<&'r [(Sel, BranchKind)]>,
            positional: bool,
            seen: Vec<&'t str>,
        }
        let mut frames: Vec<Frame<'_, '_>> = Vec::new();
        let mut cursor = root.walk();
        // The kind of the cursor's node: the root's, or what its parent's rules give
        // it among the children passed so far. Worked out only for a call and a node
        // the walk enters (most children are neither).
        let effect =
            |frames: &[Frame<'_, '_>], cursor: &tree_sitter::TreeCursor<'_>| match frames.last() {
                None => BranchKind::Unconditional,
                Some(f) => match f.rules {
                    Some(rules) => Self::kind(rules, cursor.field_name(), cursor.node(), &f.seen)
                        .unwrap_or(f.inherited),
                    None => f.inherited,
                },
            };
        loop {
            let node = cursor.node();
            let is_call = call_ids.contains(&node.id());
            let holds = holds_call(node);
            if is_call || holds {
                let here = effect(&frames, &cursor);
                if is_call {
                    out.insert(node.id(), here);
                }
                let inherited = if defs.contains(&(node.start_byte(), node.end_byte())) {
                    BranchKind::Unconditional
                } else {
                    here
                };
                if holds && cursor.goto_first_child() {
                    let kind = node.kind();
                    frames.push(Frame {
                        inherited,
                        rules: self.by_parent.get(kind).map(Vec::as_slice),
                        positional: self.positional.contains(kind),
                        seen: Vec::new(),
                    });
                    continue;
                }
            }
            loop {
                if let Some(top) = frames.last_mut()
                    && top.positional
                {
                    top.seen.push(cursor.node().kind());
                }
                if cursor.goto_next_sibling() {
                    if frames.is_empty() {
                        return out;
                    }
                    break;
                }
                if !cursor.goto_parent() {
                    return out;
                }
                frames.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract;

    #[test]
    fn every_language_rule_names_what_its_grammar_has() {
        validate().unwrap();
        for lang in Language::ALL {
            if lang.tier() == crate::Tier::Full {
                assert!(
                    rules(*lang).unwrap().is_some(),
                    "{} has a call graph but states no branch rules",
                    lang.name()
                );
            }
        }
    }

    fn kinds(lang: Language, src: &str) -> Vec<(String, &'static str)> {
        let x = extract(lang, src.as_bytes()).unwrap();
        x.calls
            .iter()
            .map(|c| {
                (
                    c.callee.to_string(),
                    c.branch.map_or("none", BranchKind::name),
                )
            })
            .collect()
    }

    #[test]
    fn python_call_sites_carry_their_branch() {
        let src = "def f(x):\n    a()\n    if x:\n        b()\n    elif y():\n        c()\n    else:\n        d()\n    for i in e():\n        g()\n    else:\n        h()\n    try:\n        i()\n    except E:\n        j()\n    finally:\n        k()\n    with m() as n:\n        o()\n    match x:\n        case 1:\n            p()\n    if x:\n        def inner():\n            q()\n    r = [s(v) for v in t()]\n";
        let got = kinds(Language::Python, src);
        let want = [
            ("a", "unconditional"),
            ("b", "if_true"),
            ("y", "if_false"),
            ("c", "if_true"),
            ("d", "if_false"),
            ("e", "unconditional"),
            ("g", "loop"),
            ("h", "else"),
            ("i", "try"),
            ("j", "except"),
            ("k", "finally"),
            ("m", "unconditional"),
            ("o", "with"),
            ("p", "match"),
            ("q", "unconditional"),
            ("s", "loop"),
            ("t", "unconditional"),
        ];
        for (name, kind) in want {
            assert!(
                got.iter().any(|(n, k)| n == name && *k == kind),
                "{name} should be {kind}: {got:?}"
            );
        }
    }

    fn expect(lang: Language, src: &str, want: &[(&str, &str)]) {
        let got = kinds(lang, src);
        for (name, kind) in want {
            assert!(
                got.iter().any(|(n, k)| n == name && k == kind),
                "{}: {name} should be {kind}: {got:?}",
                lang.name()
            );
        }
    }

    #[test]
    fn other_languages_call_sites_carry_their_branch() {
        expect(
            Language::JavaScript,
            "function f(x) {\n  a();\n  if (x) { b(); } else { c(); }\n  for (const i of d()) { e(); }\n  while (g()) {}\n  try { h(); } catch (err) { i(); } finally { j(); }\n  switch (x) { case 1: k(); }\n  const y = x ? l() : m();\n}\n",
            &[
                ("a", "unconditional"),
                ("b", "if_true"),
                ("c", "if_false"),
                ("d", "unconditional"),
                ("e", "loop"),
                ("g", "loop"),
                ("h", "try"),
                ("i", "except"),
                ("j", "finally"),
                ("k", "match"),
                ("l", "if_true"),
                ("m", "if_false"),
            ],
        );
        expect(
            Language::Rust,
            "fn f(x: u8) {\n    a();\n    if x > 0 { b(); } else { c(); }\n    for i in d() { e(); }\n    loop { g(); }\n    match x { 1 => h(), _ => {} }\n    let Some(v) = i() else { j(); return; };\n}\n",
            &[
                ("a", "unconditional"),
                ("b", "if_true"),
                ("c", "if_false"),
                ("d", "unconditional"),
                ("e", "loop"),
                ("g", "loop"),
                ("h", "match"),
                ("i", "unconditional"),
                ("j", "if_false"),
            ],
        );
        expect(
            Language::Go,
            "package p\nfunc f(x int) {\n\ta()\n\tif x > 0 {\n\t\tb()\n\t} else {\n\t\tc()\n\t}\n\tfor i := 0; i < d(); i++ {\n\t\te()\n\t}\n\tswitch x {\n\tcase 1:\n\t\tg()\n\t}\n}\n",
            &[
                ("a", "unconditional"),
                ("b", "if_true"),
                ("c", "if_false"),
                ("d", "loop"),
                ("e", "loop"),
                ("g", "match"),
            ],
        );
        expect(
            Language::Java,
            "class A {\n  void f(int x) {\n    a();\n    if (x > 0) { b(); } else { c(); }\n    for (int i : d()) { e(); }\n    try { g(); } catch (Exception ex) { h(); } finally { i(); }\n    switch (x) { case 1: j(); break; }\n  }\n}\n",
            &[
                ("a", "unconditional"),
                ("b", "if_true"),
                ("c", "if_false"),
                ("d", "unconditional"),
                ("e", "loop"),
                ("g", "try"),
                ("h", "except"),
                ("i", "finally"),
                ("j", "match"),
            ],
        );
        expect(
            Language::Python,
            "def f(x):\n    a() if x else b()\n    return [c(v) for v in x if d(v)]\n",
            &[
                ("a", "if_true"),
                ("b", "if_false"),
                ("c", "loop"),
                ("d", "loop"),
            ],
        );
        expect(
            Language::Kotlin,
            "fun f(x: Boolean, xs: List<Int>) {\n    if (g()) a() else b()\n    if (x) { c() }\n    for (i in xs) d(i)\n}\n",
            &[
                ("g", "unconditional"),
                ("a", "if_true"),
                ("b", "if_false"),
                ("c", "if_true"),
                ("d", "loop"),
            ],
        );
        expect(
            Language::Swift,
            "func f(x: Bool) {\n    if g() { a() } else if x { b() } else { c() }\n    guard x else { d(); return }\n}\n",
            &[
                ("g", "unconditional"),
                ("a", "if_true"),
                // An else-if's own body is its if_true (as Python's elif).
                ("b", "if_true"),
                ("c", "if_false"),
                ("d", "if_false"),
            ],
        );
        expect(
            Language::C,
            "void f(int x) {\n  a();\n  if (x) b(); else c();\n  while (d()) e();\n  switch (x) { case 1: g(); }\n}\n",
            &[
                ("a", "unconditional"),
                ("b", "if_true"),
                ("c", "if_false"),
                ("d", "loop"),
                ("e", "loop"),
                ("g", "match"),
            ],
        );
    }
}
