//! The part of tree-sitter's query language the extraction queries use, matched in
//! one cursor walk of the tree.
//!
//! A tree-sitter query cursor costs about half a parse (it runs every pattern's
//! state machine over every node); here each node looks up only the patterns rooted
//! at its kind and checks their few children directly. The patterns come from the
//! same `.scm` text as the compiled [`Query`], so pattern and capture indices are the
//! query's own: a caller handles a match from either engine alike. A language whose
//! queries use more than this subset (quantifiers, sibling sequences at the top,
//! supertypes) gets no matcher and keeps the query cursor; a test checks
//! that both engines find the same matches for every language that has one.
//!
//! The subset: `(kind child...)`, `"anonymous"`, `(_)` and `_`, `field: pattern`,
//! `!field`, `[alternatives]`, anchors (`.`), captures, and the `#eq?`, `#not-eq?`, `#match?`,
//! `#not-match?`, `#any-of?` and `#not-any-of?` predicates. As in tree-sitter, the
//! children of a pattern match distinct children of the node in their order, each
//! way they can doing so giving one match.

use std::collections::HashMap;

use rustc_hash::FxHashSet;
use tree_sitter::{Language as Grammar, Node};
use tsa_tree::Kid;

/// What one node of a pattern accepts.
enum Kinds {
    /// `_`: any node.
    Any,
    /// `(_)`: any named node.
    Named,
    /// The kind ids carrying the pattern's kind name.
    Set(Box<[u16]>),
}

struct PNode {
    kinds: Kinds,
    /// `(... (x) .)`: the last child pattern matches the last named child.
    last: bool,
    /// `[a b]`: the node matches one of these (each way gives a match).
    alts: Vec<PNode>,
    captures: Vec<u32>,
    children: Vec<Child>,
    /// `!field`: the node has no child in these fields.
    absent: Vec<u16>,
}

impl PNode {
    /// A node accepting `kinds`, with nothing more asked yet.
    fn of(kinds: Kinds) -> Self {
        PNode {
            kinds,
            last: false,
            alts: Vec::new(),
            captures: Vec::new(),
            children: Vec::new(),
            absent: Vec::new(),
        }
    }

    /// `_`: any node, named or not, nothing more asked.
    fn is_bare_any(&self) -> bool {
        matches!(self.kinds, Kinds::Any) && self.alts.is_empty() && self.children.is_empty()
    }
}

struct Child {
    field: Option<u16>,
    /// `. (x)`: no named child is skipped before this one (anonymous ones may be).
    immediate: bool,
    node: PNode,
}

enum Arg {
    Capture(u32),
    Text(String),
}

enum Pred {
    Eq(u32, Arg, bool),
    Match(u32, regex::bytes::Regex, bool),
    AnyOf(u32, Vec<String>, bool),
}

struct Pattern {
    root: PNode,
    preds: Vec<Pred>,
    /// Where the pattern starts in the source.
    start: usize,
}

/// A language's extraction patterns, ready to match (see the module doc).
pub(crate) struct Matcher {
    patterns: Vec<Pattern>,
    /// Per kind id, the patterns that may match a node of that kind, in order.
    by_kind: Vec<Vec<u32>>,
    /// Patterns rooted at `(_)` or `_` (for kinds outside `by_kind`: errors).
    wild: Vec<u32>,
}

/// Why a query is left to tree-sitter's cursor.
#[derive(Debug)]
pub(crate) struct Unsupported(#[allow(dead_code)] pub String);

fn no<T>(why: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported(why.into()))
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    OpenAlt,
    CloseAlt,
    Anchor,
    Quant,
    Capture(String),
    Field(String),
    Negated(String),
    Pred(String),
    Str(String),
    Ident(String),
}

/// The tokens of `src`, and the byte offset where each starts.
fn tokens(src: &str) -> Result<(Vec<Tok>, Vec<usize>), Unsupported> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut starts = Vec::new();
    let mut i = 0;
    let word = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && (b[*i].is_ascii_alphanumeric() || b"_-.?!".contains(&b[*i])) {
            *i += 1;
        }
        src[start..*i].to_owned()
    };
    while i < b.len() {
        let c = b[i];
        let at = i;
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => (out.push(Tok::Open), i += 1).1,
            b')' => (out.push(Tok::Close), i += 1).1,
            b'[' => (out.push(Tok::OpenAlt), i += 1).1,
            b']' => (out.push(Tok::CloseAlt), i += 1).1,
            b'.' => (out.push(Tok::Anchor), i += 1).1,
            b'*' | b'+' | b'?' => (out.push(Tok::Quant), i += 1).1,
            b'@' => {
                i += 1;
                out.push(Tok::Capture(word(&mut i)));
            }
            b'#' => {
                i += 1;
                out.push(Tok::Pred(word(&mut i)));
            }
            b'!' => {
                i += 1;
                out.push(Tok::Negated(word(&mut i)));
            }
            b'"' => {
                i += 1;
                let mut s = Vec::new();
                loop {
                    match b.get(i) {
                        None => return no("an unterminated string"),
                        Some(b'"') => break,
                        Some(b'\\') => {
                            match b.get(i + 1) {
                                Some(b'n') => s.push(b'\n'),
                                Some(b't') => s.push(b'\t'),
                                Some(b'r') => s.push(b'\r'),
                                Some(b'0') => s.push(0),
                                Some(&e) => s.push(e),
                                None => return no("an unterminated string"),
                            }
                            i += 2;
                        }
                        Some(&ch) => {
                            s.push(ch);
                            i += 1;
                        }
                    }
                }
                i += 1;
                out.push(Tok::Str(String::from_utf8_lossy(&s).into_owned()));
            }
            _ if c.is_ascii_alphanumeric() || c == b'_' => {
                let w = word(&mut i);
                if b.get(i) == Some(&b':') {
                    i += 1;
                    out.push(Tok::Field(w));
                } else {
                    out.push(Tok::Ident(w));
                }
            }
            _ => return no(format!("the character {:?}", c as char)),
        }
        // A token pushed in this turn starts where the turn did.
        starts.resize(out.len(), at);
    }
    Ok((out, starts))
}

/// Names of a grammar: kinds (named, visible) and fields, to ids; capture names to
/// their index in the capture vocabulary.
struct Names<'q> {
    grammar: &'q Grammar,
    captures: &'q [&'q str],
    kinds: HashMap<&'q str, Vec<u16>>,
}

impl<'q> Names<'q> {
    fn new(grammar: &'q Grammar, captures: &'q [&'q str]) -> Self {
        let mut kinds: HashMap<&'q str, Vec<u16>> = HashMap::new();
        for id in 0..grammar.node_kind_count() as u16 {
            if grammar.node_kind_is_named(id)
                && grammar.node_kind_is_visible(id)
                && let Some(name) = grammar.node_kind_for_id(id)
            {
                kinds.entry(name).or_default().push(id);
            }
        }
        Names {
            grammar,
            captures,
            kinds,
        }
    }

    fn anonymous(&self, name: &str) -> Result<Kinds, Unsupported> {
        let ids: Vec<u16> = (0..self.grammar.node_kind_count() as u16)
            .filter(|&id| {
                !self.grammar.node_kind_is_named(id)
                    && self.grammar.node_kind_is_visible(id)
                    && self.grammar.node_kind_for_id(id) == Some(name)
            })
            .collect();
        if ids.is_empty() {
            return no(format!("the anonymous node {name:?}"));
        }
        Ok(Kinds::Set(ids.into_boxed_slice()))
    }

    fn kind(&self, name: &str) -> Result<Kinds, Unsupported> {
        let Some(ids) = self.kinds.get(name) else {
            return no(format!("the kind {name}"));
        };
        let supertypes = self.grammar.supertypes();
        if ids.iter().any(|id| supertypes.contains(id)) {
            return no(format!("the supertype {name}"));
        }
        Ok(Kinds::Set(ids.clone().into_boxed_slice()))
    }

    fn field(&self, name: &str) -> Result<u16, Unsupported> {
        match self.grammar.field_id_for_name(name) {
            Some(f) => Ok(f.get()),
            None => no(format!("the field {name}")),
        }
    }

    fn capture(&self, name: &str) -> Result<u32, Unsupported> {
        match self.captures.iter().position(|c| *c == name) {
            Some(i) => Ok(i as u32),
            None => no(format!("the capture {name}")),
        }
    }
}

struct Parser<'q, 'n> {
    toks: Vec<Tok>,
    at: usize,
    names: &'n Names<'q>,
}

/// A parsed item: a pattern, or a predicate standing among a pattern's children.
enum Item {
    Node(PNode),
    Pred(Pred),
}

impl Parser<'_, '_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    /// Captures after a pattern; a quantifier there is outside the subset.
    fn suffix(&mut self, node: &mut PNode) -> Result<(), Unsupported> {
        loop {
            match self.peek() {
                Some(Tok::Capture(c)) => {
                    let c = self.names.capture(&c.clone())?;
                    node.captures.push(c);
                    self.at += 1;
                }
                Some(Tok::Quant) => return no("a quantifier"),
                _ => return Ok(()),
            }
        }
    }

    /// Items up to `close` (consumed).
    fn items_until(
        &mut self,
        close: &Tok,
        preds: &mut Vec<Pred>,
    ) -> Result<Vec<Item>, Unsupported> {
        let mut out = Vec::new();
        loop {
            match self.peek() {
                Some(t) if t == close => {
                    self.at += 1;
                    return Ok(out);
                }
                None => return no("an unclosed group or alternation"),
                Some(_) => out.push(self.item(preds)?),
            }
        }
    }

    fn item(&mut self, preds: &mut Vec<Pred>) -> Result<Item, Unsupported> {
        let mut node = match self.next() {
            Some(Tok::Open) => match self.peek().cloned() {
                Some(Tok::Pred(name)) => {
                    self.at += 1;
                    return Ok(Item::Pred(self.predicate(&name)?));
                }
                Some(Tok::Open | Tok::OpenAlt) => {
                    // A group: one pattern and its predicates.
                    let mut inner = None;
                    for item in self.items_until(&Tok::Close, preds)? {
                        match item {
                            Item::Pred(p) => preds.push(p),
                            Item::Node(n) if inner.is_none() => inner = Some(n),
                            Item::Node(_) => return no("a sequence of sibling patterns"),
                        }
                    }
                    match inner {
                        Some(n) => n,
                        None => return no("an empty group"),
                    }
                }
                Some(Tok::Ident(kind)) => {
                    self.at += 1;
                    let kinds = if kind == "_" {
                        Kinds::Named
                    } else {
                        self.names.kind(&kind)?
                    };
                    let mut node = PNode::of(kinds);
                    let mut immediate = false;
                    loop {
                        match self.peek().cloned() {
                            Some(Tok::Close) => {
                                self.at += 1;
                                node.last = immediate;
                                break;
                            }
                            Some(Tok::Negated(f)) => {
                                self.at += 1;
                                node.absent.push(self.names.field(&f)?);
                            }
                            Some(Tok::Anchor) => {
                                self.at += 1;
                                // Next to a bare `_`, tree-sitter's anchor counts
                                // anonymous nodes too: outside the subset.
                                if node.children.last().is_some_and(|c| c.node.is_bare_any()) {
                                    return no("an anchor after _");
                                }
                                immediate = true;
                            }
                            Some(Tok::Field(f)) => {
                                self.at += 1;
                                let field = Some(self.names.field(&f)?);
                                match self.item(preds)? {
                                    Item::Node(n) => node.children.push(Child {
                                        field,
                                        immediate: std::mem::take(&mut immediate),
                                        node: n,
                                    }),
                                    Item::Pred(_) => return no("a predicate after a field"),
                                }
                            }
                            Some(_) => match self.item(preds)? {
                                Item::Pred(p) => preds.push(p),
                                Item::Node(n) if immediate && n.is_bare_any() => {
                                    return no("an anchor before _");
                                }
                                Item::Node(n) => node.children.push(Child {
                                    field: None,
                                    immediate: std::mem::take(&mut immediate),
                                    node: n,
                                }),
                            },
                            None => return no("an unclosed pattern"),
                        }
                    }
                    if node.last && node.children.is_empty() {
                        return no("an anchor without a child");
                    }
                    node
                }
                _ => return no("an anonymous node or an unknown form"),
            },
            Some(Tok::OpenAlt) => {
                let mut alts = Vec::new();
                for item in self.items_until(&Tok::CloseAlt, preds)? {
                    match item {
                        Item::Node(n) => alts.push(n),
                        Item::Pred(_) => return no("a predicate inside an alternation"),
                    }
                }
                if alts.is_empty() {
                    return no("an empty alternation");
                }
                PNode {
                    alts,
                    ..PNode::of(Kinds::Any)
                }
            }
            Some(Tok::Str(name)) => PNode::of(self.names.anonymous(&name)?),
            Some(Tok::Ident(w)) if w == "_" => PNode::of(Kinds::Any),
            other => return no(format!("{other:?}")),
        };
        self.suffix(&mut node)?;
        Ok(Item::Node(node))
    }

    fn predicate(&mut self, name: &str) -> Result<Pred, Unsupported> {
        let mut args = Vec::new();
        loop {
            match self.next() {
                Some(Tok::Close) => break,
                Some(Tok::Capture(c)) => args.push(Arg::Capture(self.names.capture(&c)?)),
                Some(Tok::Str(s)) => args.push(Arg::Text(s)),
                Some(Tok::Ident(s)) => args.push(Arg::Text(s)),
                other => return no(format!("a predicate argument {other:?}")),
            }
        }
        let mut args = args.into_iter();
        let Some(Arg::Capture(first)) = args.next() else {
            return no("a predicate without a capture first");
        };
        let positive = !name.starts_with("not-");
        match name.trim_start_matches("not-") {
            "eq?" => match (args.next(), args.next()) {
                (Some(a), None) => Ok(Pred::Eq(first, a, positive)),
                _ => no("#eq? with other than two arguments"),
            },
            "match?" => match (args.next(), args.next()) {
                (Some(Arg::Text(r)), None) => match regex::bytes::Regex::new(&r) {
                    Ok(r) => Ok(Pred::Match(first, r, positive)),
                    Err(_) => no("a regex the regex crate refuses"),
                },
                _ => no("#match? with other than a capture and a regex"),
            },
            "any-of?" => {
                let mut v = Vec::new();
                for a in args {
                    match a {
                        Arg::Text(s) => v.push(s),
                        Arg::Capture(_) => return no("#any-of? with a capture in the list"),
                    }
                }
                Ok(Pred::AnyOf(first, v, positive))
            }
            other => no(format!("the predicate #{other}")),
        }
    }
}

/// Kind ids a pattern node may be rooted at; `None` for a wildcard.
fn root_kinds(p: &PNode, out: &mut Vec<u16>) -> bool {
    if !p.alts.is_empty() {
        return p.alts.iter().all(|a| root_kinds(a, out));
    }
    match &p.kinds {
        Kinds::Set(ids) => {
            out.extend(ids.iter().copied());
            true
        }
        Kinds::Any | Kinds::Named => false,
    }
}

impl Matcher {
    /// The matcher for the patterns of `source` (capture indices are positions in
    /// `captures`), or why they are left to the query cursor.
    pub(crate) fn new(
        grammar: &Grammar,
        source: &str,
        captures: &[&str],
    ) -> Result<Self, Unsupported> {
        let names = Names::new(grammar, captures);
        let (toks, starts) = tokens(source)?;
        let mut parser = Parser {
            toks,
            at: 0,
            names: &names,
        };
        let mut patterns = Vec::new();
        while parser.peek().is_some() {
            let start = starts[parser.at];
            let mut preds = Vec::new();
            match parser.item(&mut preds)? {
                Item::Node(root) => patterns.push(Pattern { root, preds, start }),
                Item::Pred(_) => return no("a predicate outside a pattern"),
            }
        }
        let mut by_kind = vec![Vec::new(); grammar.node_kind_count()];
        let mut wild = Vec::new();
        for (i, p) in patterns.iter().enumerate() {
            let mut ids = Vec::new();
            if root_kinds(&p.root, &mut ids) {
                ids.sort_unstable();
                ids.dedup();
                for id in ids {
                    by_kind[id as usize].push(i as u32);
                }
            } else {
                wild.push(i as u32);
            }
        }
        if !wild.is_empty() {
            for list in &mut by_kind {
                list.extend(wild.iter().copied());
                list.sort_unstable();
                list.dedup();
            }
        }
        Ok(Matcher {
            patterns,
            by_kind,
            wild,
        })
    }

    /// How many patterns start before byte `at` of the source.
    pub(crate) fn patterns_before(&self, at: usize) -> usize {
        self.patterns.iter().filter(|p| p.start < at).count()
    }

    /// Calls `f(pattern, captures)` for every match in the tree under `root` (each
    /// node in document order, its patterns in order); `pass` enters and leaves
    /// each node on the same walk (but the anonymous leaves it does not ask for,
    /// [`crate::TreeVisitor::leaf_kinds`]).
    pub(crate) fn for_each<'t>(
        &self,
        root: Node<'t>,
        src: &[u8],
        mut f: impl FnMut(usize, Node<'t>, &[(u32, Node<'t>)]),
        mut pass: Option<&mut dyn crate::TreeVisitor>,
        branches: Option<&std::cell::RefCell<crate::branches::BranchWalk<'t>>>,
    ) {
        let mut run = Run {
            // Slot 0: the children of the node the walk is at (listed below).
            kids: vec![((usize::MAX, 0), Vec::new())],
            level: 0,
            caps: Vec::new(),
        };
        let mut seen = Seen::default();
        // The walk lists each node's children once (with their fields), before the
        // node's patterns: they find the list in their first child loop's slot, and
        // the walk then descends into each listed child. Each node is listed once
        // this way (the patterns' own listing and the steps back up to the parent
        // come free).
        // Per open node, its children, the next one to enter, and whether its
        // anonymous leaves may be passed over.
        let mut open: Vec<(Node<'t>, Kids<'t>, usize, bool)> = Vec::new();
        let mut spare: Vec<Kids<'t>> = Vec::new();
        // Anonymous leaves no pattern starts at, the pass does not ask for and no
        // branch rule of their parent reads are passed over (a third of a tree's
        // nodes): the pass is told, for its depth.
        let pass_leaves = match pass.as_deref() {
            None => Some(&[][..]),
            Some(p) => p.leaf_kinds(),
        };
        let passable = |k: &Kid<'t>| {
            k.leaf
                && !k.named
                && pass_leaves
                    .is_some_and(|set| !set.get(k.kind as usize).copied().unwrap_or(false))
                && self
                    .by_kind
                    .get(k.kind as usize)
                    .unwrap_or(&self.wild)
                    .is_empty()
        };
        let mut at = Kid::of(root, 0);
        loop {
            let (n, kind, field) = (at.node, at.kind, at.field);
            if let Some(p) = pass.as_deref_mut() {
                // The innermost open node is `n`'s parent (none at the root).
                p.enter_kind(n, kind, open.last().map(|o| o.0), src);
            }
            // Before the patterns at `n`: a match there asks for `n`'s branch.
            if let Some(b) = branches {
                b.borrow_mut().enter(n, kind, field);
            }
            let list = self.by_kind.get(kind as usize).unwrap_or(&self.wild);
            // The children's fields are read only where something asks for them.
            let ruled = branches.is_some_and(|b| b.borrow().asks(kind));
            if at.leaf {
                run.kids[0].0 = (n.id(), kind);
                run.kids[0].1.clear();
            } else {
                list_children(
                    (n.id(), kind),
                    n,
                    &mut run.kids[0],
                    !list.is_empty() || ruled,
                );
            }
            for &pi in list {
                let p = &self.patterns[pi as usize];
                seen.start();
                self.node(&p.root, at, &mut run, &mut |run| {
                    if !p.preds.iter().all(|pred| holds(pred, &run.caps, src)) {
                        return;
                    }
                    if !seen.first(run.caps.iter().map(|(c, n)| (*c, n.id()))) {
                        return;
                    }
                    f(pi as usize, n, &run.caps);
                });
            }
            if !run.kids[0].1.is_empty() {
                let fresh = spare.pop().unwrap_or_default();
                open.push((n, std::mem::replace(&mut run.kids[0], fresh), 0, !ruled));
            } else {
                leave(&mut pass, branches, n);
            }
            // The next node: the next child of the innermost open node with one left.
            loop {
                let Some((_, kids, next, skips)) = open.last_mut() else {
                    return;
                };
                if let Some(kid) = kids.1.get(*next) {
                    *next += 1;
                    if *skips && passable(kid) {
                        if let Some(p) = pass.as_deref_mut() {
                            p.skipped_leaf();
                        }
                        continue;
                    }
                    at = *kid;
                    break;
                }
                let (node, done, _, _) = open.pop().expect("an open node");
                leave(&mut pass, branches, node);
                spare.push(done);
            }
        }
    }

    /// Matches `p` at `n` (a node with its kind and named flag, as the walk and the
    /// child listing give them: no call into tree-sitter for either).
    fn node<'t>(&self, p: &PNode, n: Kid<'t>, run: &mut Run<'t>, k: &mut dyn FnMut(&mut Run<'t>)) {
        if !p.alts.is_empty() {
            for alt in &p.alts {
                let mark = run.caps.len();
                run.caps.extend(p.captures.iter().map(|&c| (c, n.node)));
                self.node(alt, n, run, k);
                run.caps.truncate(mark);
            }
            return;
        }
        // As in tree-sitter, a wildcard never matches an error node.
        let error = n.is_error();
        let accepted = match &p.kinds {
            Kinds::Any => !error,
            Kinds::Named => n.named && !error,
            Kinds::Set(ids) => ids.contains(&n.kind),
        };
        if !accepted
            || p.absent
                .iter()
                .any(|&f| n.node.child_by_field_id(f).is_some())
        {
            return;
        }
        let mark = run.caps.len();
        run.caps.extend(p.captures.iter().map(|&c| (c, n.node)));
        self.children(p, 0, n, 0, run, k);
        run.caps.truncate(mark);
    }

    /// Matches `p.children[i..]` against the children of `n` from position `from` on.
    fn children<'t>(
        &self,
        p: &PNode,
        i: usize,
        n: Kid<'t>,
        from: usize,
        run: &mut Run<'t>,
        k: &mut dyn FnMut(&mut Run<'t>),
    ) {
        let Some(want) = p.children.get(i) else {
            k(run);
            return;
        };
        // The children of `n`, listed once: an open loop over `n` (another pattern's,
        // or this one's earlier children) may hold them already.
        let level = run.level;
        let key = (n.node.id(), n.kind);
        let at = match (0..=level).find(|&l| run.kids.get(l).is_some_and(|k| k.0 == key)) {
            Some(l) => l,
            None => {
                if run.kids.len() <= level {
                    run.kids
                        .resize_with(level + 1, || ((usize::MAX, 0), Vec::new()));
                }
                list_children(key, n.node, &mut run.kids[level], true);
                level
            }
        };
        run.level += 1;
        // An anchored last child: no named child (comments included) after it.
        let last_named = (p.last && i + 1 == p.children.len())
            .then(|| run.kids[at].1.iter().rposition(|k| k.named))
            .flatten();
        let count = run.kids[at].1.len();
        for pos in from..count {
            let child = run.kids[at].1[pos];
            let fits =
                want.field.is_none_or(|f| child.field == f) && last_named.is_none_or(|l| pos >= l);
            if fits {
                self.node(&want.node, child, run, &mut |run| {
                    self.children(p, i + 1, n, pos + 1, run, k)
                });
            }
            // An anchored child may pass anonymous nodes, not named ones.
            if want.immediate && child.named {
                break;
            }
        }
        run.level -= 1;
    }
}

/// A node (id, kind) and its children with their field ids (0: none).
type Kids<'t> = ((usize, u16), Vec<Kid<'t>>);

/// The matches of one pattern at one node so far, as (capture, node id) lists: a
/// child step without a capture that several children fit gives the same match
/// more than once, which tree-sitter reports once. The first few are compared one
/// by one (their lists reused from node to node); past them a hash set takes over,
/// since a class of 40,000 methods is that many matches of one pattern at one node
/// (compared each with every earlier one: 42% of its build, 28.9 G instructions
/// against 8.1 G).
#[derive(Default)]
struct Seen {
    listed: Vec<Vec<(u32, usize)>>,
    many: FxHashSet<Vec<(u32, usize)>>,
    count: usize,
}

/// Matches compared one by one before [`Seen`]'s hash set takes over.
const SEEN_LISTED: usize = 32;

impl Seen {
    /// A pattern starts at a node.
    fn start(&mut self) {
        self.count = 0;
    }

    /// Whether the match `key` is new at this node (it is then kept).
    fn first(&mut self, key: impl Iterator<Item = (u32, usize)> + Clone) -> bool {
        let n = self.count;
        if n < SEEN_LISTED {
            if self.listed[..n]
                .iter()
                .any(|s| s.iter().copied().eq(key.clone()))
            {
                return false;
            }
            match self.listed.get_mut(n) {
                Some(slot) => {
                    slot.clear();
                    slot.extend(key);
                }
                None => self.listed.push(key.collect()),
            }
        } else {
            if n == SEEN_LISTED {
                self.many.clear();
                self.many.extend(self.listed[..n].iter().cloned());
            }
            if !self.many.insert(key.collect()) {
                return false;
            }
        }
        self.count += 1;
        true
    }
}

/// Lists the children of `n` into `out` under `key` (`n`'s id and kind), in one
/// pass ([`tsa_tree::children`]); their fields are 0 unless `fields`.
fn list_children<'t>(key: (usize, u16), n: Node<'t>, out: &mut Kids<'t>, fields: bool) {
    out.0 = key;
    tsa_tree::children(n, &mut out.1, fields);
}

/// The walk leaves `n` (its subtree done).
fn leave<'t>(
    pass: &mut Option<&mut dyn crate::TreeVisitor>,
    branches: Option<&std::cell::RefCell<crate::branches::BranchWalk<'t>>>,
    n: Node<'t>,
) {
    if let Some(p) = pass.as_deref_mut() {
        p.leave();
    }
    if let Some(b) = branches {
        b.borrow_mut().leave(n);
    }
}

struct Run<'t> {
    /// Per open child loop (they nest): whose children, and they with their fields.
    kids: Vec<Kids<'t>>,
    level: usize,
    caps: Vec<(u32, Node<'t>)>,
}

fn holds(pred: &Pred, caps: &[(u32, Node<'_>)], src: &[u8]) -> bool {
    let text = |n: Node<'_>| src.get(n.byte_range()).unwrap_or_default();
    let nodes = |c: u32| caps.iter().filter(move |(i, _)| *i == c).map(|(_, n)| *n);
    match pred {
        Pred::Eq(c, Arg::Capture(d), positive) => {
            // As tree-sitter: pairwise, and both captures present in equal number.
            let (a, b): (Vec<_>, Vec<_>) = (nodes(*c).collect(), nodes(*d).collect());
            a.len() == b.len()
                && a.iter()
                    .zip(&b)
                    .all(|(x, y)| (text(*x) == text(*y)) == *positive)
        }
        Pred::Eq(c, Arg::Text(s), positive) => {
            nodes(*c).all(|n| (text(n) == s.as_bytes()) == *positive)
        }
        Pred::Match(c, r, positive) => nodes(*c).all(|n| r.is_match(text(n)) == *positive),
        Pred::AnyOf(c, v, positive) => nodes(*c).all(|n| {
            let t = text(n);
            v.iter().any(|s| t == s.as_bytes()) == *positive
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use tree_sitter::{Parser, QueryCursor, StreamingIterator};

    use crate::Language;
    use crate::extract::{CAPTURES, engines, extract, file_starts, joined, use_query_cursor};

    /// Source files of the fixture projects, by language.
    fn fixture_files(lang: Language) -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if Language::from_path(&p.to_string_lossy()) == Some(lang) {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    }

    /// The one-pass child listing of `tsa_tree` gives, at every node of every
    /// fixture file of every language, the children and fields tree-sitter's API
    /// gives (never falling back to that API).
    #[test]
    fn children_listed_in_one_pass_are_tree_sitters() {
        let mut checked = 0usize;
        for &lang in Language::ALL {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&lang.grammar()).unwrap();
            for path in fixture_files(lang) {
                let src = std::fs::read(&path).unwrap();
                let tree = parser.parse(&src, None).unwrap();
                checked += tsa_tree::agrees_under(tree.root_node())
                    .unwrap_or_else(|e| panic!("{path:?}: {e}"));
            }
        }
        assert!(checked > 10_000, "{checked} children checked");
    }

    type Found = Vec<(usize, Vec<(&'static str, usize, usize, u16)>)>;

    /// Every enter and leave of a pass, as (entering, node start, end, kind).
    #[derive(Default)]
    struct Recorder {
        events: Vec<(bool, usize, usize, u16)>,
        open: Vec<(usize, usize, u16)>,
    }

    impl crate::TreeVisitor for Recorder {
        fn enter(
            &mut self,
            n: tree_sitter::Node<'_>,
            parent: Option<tree_sitter::Node<'_>>,
            _: &[u8],
        ) {
            // The walk's parent is the tree's.
            assert_eq!(parent.map(|p| p.id()), n.parent().map(|p| p.id()));
            let k = (n.start_byte(), n.end_byte(), n.kind_id());
            self.events.push((true, k.0, k.1, k.2));
            self.open.push(k);
        }
        fn leave(&mut self) {
            let k = self.open.pop().expect("a leave after its enter");
            self.events.push((false, k.0, k.1, k.2));
        }
        fn finish(self: Box<Self>, _: tree_sitter::Node<'_>, _: &[u8]) -> Option<String> {
            None
        }
    }

    /// A [`Recorder`] that asks for no anonymous leaf: counts those passed over.
    #[derive(Default)]
    struct Skipping {
        seen: Recorder,
        skipped: usize,
    }

    impl crate::TreeVisitor for Skipping {
        fn enter(
            &mut self,
            n: tree_sitter::Node<'_>,
            parent: Option<tree_sitter::Node<'_>>,
            src: &[u8],
        ) {
            self.seen.enter(n, parent, src);
        }
        fn leave(&mut self) {
            self.seen.leave();
        }
        fn finish(self: Box<Self>, _: tree_sitter::Node<'_>, _: &[u8]) -> Option<String> {
            None
        }
        fn leaf_kinds(&self) -> Option<&'static [bool]> {
            Some(&[])
        }
        fn skipped_leaf(&mut self) {
            self.skipped += 1;
        }
    }

    fn sorted(mut v: Found) -> Found {
        for m in &mut v {
            m.1.sort_unstable();
        }
        v.sort();
        v
    }

    fn both(lang: Language, src: &[u8]) -> Option<(Found, Found)> {
        let (query, matcher, _) = engines(lang);
        let matcher = matcher?;
        let mut parser = Parser::new();
        parser.set_language(&lang.grammar()).unwrap();
        let tree = parser.parse(src, None).unwrap();
        let key = |name: &'static str, n: tree_sitter::Node<'_>| {
            (name, n.start_byte(), n.end_byte(), n.kind_id())
        };
        // The matches of the matcher's walk, with `pass` riding it.
        let run = |pass: &mut dyn crate::TreeVisitor| {
            let mut found: Found = Vec::new();
            matcher.for_each(
                tree.root_node(),
                src,
                |p, _, caps| {
                    let caps = caps.iter().map(|(c, n)| key(CAPTURES[*c as usize], *n));
                    found.push((p, caps.collect()));
                },
                Some(pass),
                None,
            );
            found
        };
        let mut riding = Recorder::default();
        let ours = run(&mut riding);
        // A pass riding the matcher's walk sees what a walk of its own sees.
        let mut alone = Recorder::default();
        crate::visit(tree.root_node(), src, &mut alone);
        assert_eq!(riding.events, alone.events);
        assert!(riding.open.is_empty() && !riding.events.is_empty());
        // A pass that asks for no anonymous leaf: the same matches; it is entered
        // at every other node, and told of each anonymous leaf no pattern starts at.
        let mut skipping = Skipping::default();
        assert_eq!(run(&mut skipping), ours);
        // Anonymous leaves no pattern starts at, by (start, end, kind): a leaf is
        // left right after it is entered (a walk of its own enters every node).
        let grammar = lang.grammar();
        let leaves: std::collections::HashSet<_> = alone
            .events
            .windows(2)
            .filter(|w| w[0].0 && !w[1].0)
            .map(|w| (w[0].1, w[0].2, w[0].3))
            .filter(|&(_, _, kind)| {
                !grammar.node_kind_is_named(kind)
                    && matcher
                        .by_kind
                        .get(kind as usize)
                        .unwrap_or(&matcher.wild)
                        .is_empty()
            })
            .collect();
        let kept: Vec<_> = alone
            .events
            .iter()
            .copied()
            .filter(|&(_, start, end, kind)| !leaves.contains(&(start, end, kind)))
            .collect();
        assert_eq!(skipping.seen.events, kept);
        let entered = alone.events.iter().filter(|e| e.0).count();
        assert_eq!(skipping.skipped, entered - kept.len() / 2);
        assert!(skipping.seen.open.is_empty());
        let names = query.capture_names();
        let mut theirs = Vec::new();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(query, tree.root_node(), src);
        while let Some(m) = matches.next() {
            let caps = m.captures().iter().map(|c| {
                let name = CAPTURES.iter().find(|n| **n == names[c.index as usize]);
                key(name.expect("a capture of the vocabulary"), c.node)
            });
            theirs.push((m.pattern_index, caps.collect()));
        }
        Some((sorted(ours), sorted(theirs)))
    }

    /// Every language's patterns stay within the subset (a query cursor costs a
    /// third of an extraction more, and its compile tens of milliseconds), and
    /// the matcher counts the patterns of each file as tree-sitter does.
    #[test]
    fn every_language_has_a_matcher_that_counts_patterns_alike() {
        for &lang in Language::ALL {
            let (query, matcher, (defs_end, calls_end)) = engines(lang);
            let spec = lang.spec();
            let matcher = matcher.unwrap_or_else(|| {
                let why = super::Matcher::new(&lang.grammar(), &joined(spec), &CAPTURES).err();
                panic!("{lang:?} has no matcher: {why:?}")
            });
            let (calls_at, imports_at) = file_starts(spec);
            let count = |limit: usize| {
                (0..query.pattern_count())
                    .filter(|&p| query.start_byte_for_pattern(p) < limit)
                    .count()
            };
            assert_eq!(matcher.patterns.len(), query.pattern_count(), "{lang:?}");
            assert_eq!(
                (defs_end, calls_end),
                (count(calls_at), count(imports_at)),
                "{lang:?}"
            );
        }
    }

    /// For every language with a matcher, on every fixture file (and broken
    /// variants of each), the matcher finds the query cursor's matches, and the
    /// extraction from either engine is the same (call sites' branches too: the
    /// matcher's walk works them out, the query cursor's path walks the tree again).
    #[test]
    fn the_matcher_finds_what_the_query_cursor_finds() {
        let mut checked = 0;
        for &lang in Language::ALL {
            if engines(lang).1.is_none() {
                continue;
            }
            for path in fixture_files(lang) {
                let src = std::fs::read(&path).unwrap();
                // The file, and the file cut in the middle (parse errors).
                let cut = src[..src.len() / 2].to_vec();
                for src in [src, cut] {
                    let (ours, theirs) = both(lang, &src).unwrap();
                    assert_eq!(ours, theirs, "{lang:?} {}", path.display());
                    let fast = extract(lang, &src).unwrap();
                    use_query_cursor(true);
                    let slow = extract(lang, &src).unwrap();
                    use_query_cursor(false);
                    assert_eq!(
                        format!("{fast:?}"),
                        format!("{slow:?}"),
                        "{}",
                        path.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 50, "{checked} files checked");
    }

    /// Shapes the fixtures lack: an uncaptured child several children fit (one
    /// match, as tree-sitter reports), wildcards next to errors, anchors over
    /// comments and long chains.
    #[test]
    fn the_matcher_agrees_on_shapes_the_fixtures_lack() {
        let cases: [(Language, &str); 8] = [
            (
                Language::Bash,
                "source lib.sh \"$@\"\n. x.sh a b c\nsource\n",
            ),
            (
                Language::Python,
                "def f(x: ) -> :\n    y: = g(\n    z = (\nclass A(B, ):\n    pass\n",
            ),
            (
                Language::Python,
                "x: List[int = 1\ndef g(a: Dict[str, ) : pass\n",
            ),
            (
                Language::Kotlin,
                "fun f() { a.b.c.d.e.f.g.h().i(1).j /* c */ .k() }\n",
            ),
            (
                Language::Rust,
                "fn f() { m!(a . . . b(x)); m!(x :: y(1)); m!(a . /* c */ b(2)) }\n",
            ),
            (
                Language::Css,
                "@media screen /* c */ and (x) { a { b: c } }\n@media { }\n",
            ),
            (
                Language::TypeScript,
                "let x: = 1; function f(a: , b: Foo<) { g(a) }\n",
            ),
            (
                Language::C,
                "int f(void) { return g(1,); }\nstruct { int a; } ;\ntypedef int (*h)(;\n",
            ),
        ];
        // Many matches of one pattern at one node (past the ones compared one by one).
        let many = |item: &dyn Fn(usize) -> String| (0..120).map(item).collect::<String>();
        let large = [
            (
                Language::TypeScript,
                format!(
                    "class C {{\n{}}}\n",
                    many(&|i| format!("  @d() m{i}(x: T) {{ return this.f({i}, x); }}\n"))
                ),
            ),
            (
                Language::Python,
                format!(
                    "class C(B):\n{}",
                    many(&|i| format!(
                        "    @d\n    def m{i}(self, x: T) -> U:\n        return self.f({i})\n"
                    ))
                ),
            ),
            (
                Language::Java,
                format!(
                    "class C {{\n{}}}\n",
                    many(&|i| format!("  @D int m{i}(T x) {{ return f({i}); }}\n"))
                ),
            ),
            (
                Language::C,
                format!(
                    "int a[] = {{ {} }};\nvoid g(int x) {{ switch (x) {{ {} }} }}\n",
                    many(&|i| format!("f({i}), ")),
                    many(&|i| format!("case {i}: f({i}); break; "))
                ),
            ),
        ];
        let cases = cases
            .iter()
            .map(|(l, s)| (*l, (*s).to_owned()))
            .chain(large);
        for (lang, src) in cases {
            let (ours, theirs) = both(lang, src.as_bytes()).unwrap();
            assert_eq!(ours, theirs, "{lang:?} {src}");
            let fast = extract(lang, src.as_bytes()).unwrap();
            use_query_cursor(true);
            let slow = extract(lang, src.as_bytes()).unwrap();
            use_query_cursor(false);
            assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{lang:?} {src}");
        }
    }
}
