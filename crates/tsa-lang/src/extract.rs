//! One parse per file, then the language's queries over that one tree.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator};

use crate::languages::{Language, LanguageSpec, text};
use crate::matcher::Matcher;
use crate::model::{Base, BaseKind, CallSite, Def, DefKind, FileExtract};
use crate::returns::{is_identifier, receiver_type_name};

/// The closed vocabulary of capture names a query may use.
pub(crate) const CAPTURES: [&str; 22] = [
    "name",
    "local.var",
    "binding.var",
    "binding.type",
    "receiver",
    "path",
    "reference.call",
    "import",
    "extends",
    "implements",
    "definition.function",
    "definition.method",
    "definition.class",
    "definition.struct",
    "definition.enum",
    "definition.trait",
    "definition.impl",
    "definition.module",
    "definition.interface",
    "definition.type",
    "definition.variable",
    "definition.section",
];

/// A query file that does not compile, or uses a capture outside the vocabulary.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ExtractError {
    #[error("{file}:{row}: {message}")]
    Query {
        file: &'static str,
        row: usize,
        message: String,
    },
    #[error("{file}: capture @{capture} is not in the capture vocabulary")]
    Capture { file: &'static str, capture: String },
    #[error("grammar of {0} could not be loaded")]
    Grammar(&'static str),
    #[error("{0}")]
    Branches(String),
}

/// The three query files of a language as one set of patterns, so each file's
/// tree is walked once; pattern indices tell which file a match came from.
struct Compiled {
    /// The patterns matched in one cursor walk, when they stay within
    /// [`Matcher`]'s subset (every language today): its captures index [`CAPTURES`].
    matcher: Option<Matcher>,
    /// Tree-sitter's compiled query of the same text: compiled only when needed
    /// (no matcher, or a comparison of the two engines), as compiling costs tens
    /// of milliseconds per language, which a one-file sync would pay.
    query: OnceLock<Result<Query, ExtractError>>,
    /// Patterns `0..defs_end` are definitions, `defs_end..calls_end` calls, the rest imports.
    defs_end: usize,
    calls_end: usize,
}

impl Compiled {
    fn query(&self, lang: Language) -> Result<&Query, ExtractError> {
        self.query
            .get_or_init(|| compile_joined(lang))
            .as_ref()
            .map_err(Clone::clone)
    }
}

fn compile(spec: &LanguageSpec, file: &'static str, source: &str) -> Result<Query, ExtractError> {
    let q = Query::new(&(spec.grammar)(), source).map_err(|e| ExtractError::Query {
        file,
        row: e.row + 1,
        message: e.message,
    })?;
    if let Some(bad) = q.capture_names().iter().find(|c| !CAPTURES.contains(c)) {
        return Err(ExtractError::Capture {
            file,
            capture: (*bad).to_owned(),
        });
    }
    Ok(q)
}

/// The three query files of `lang` joined (definitions, calls, imports).
pub(crate) fn joined(spec: &LanguageSpec) -> String {
    format!(
        "{}\n{}\n{}",
        spec.definitions.1, spec.calls.1, spec.imports.1
    )
}

/// The byte offsets in [`joined`] where the calls and the imports begin.
pub(crate) fn file_starts(spec: &LanguageSpec) -> (usize, usize) {
    let calls = spec.definitions.1.len() + 1;
    (calls, calls + spec.calls.1.len() + 1)
}

/// Tree-sitter's query of the joined files. On an error, each file is compiled
/// alone so the message names the right file and row.
fn compile_joined(lang: Language) -> Result<Query, ExtractError> {
    let spec = lang.spec();
    compile(spec, spec.name, &joined(spec)).map_err(|e| {
        compile(spec, spec.definitions.0, spec.definitions.1)
            .and_then(|_| compile(spec, spec.calls.0, spec.calls.1))
            .and_then(|_| compile(spec, spec.imports.0, spec.imports.1))
            .err()
            .unwrap_or(e)
    })
}

fn compiled(lang: Language) -> Result<&'static Compiled, ExtractError> {
    type Slot = OnceLock<Result<Compiled, ExtractError>>;
    static SLOTS: OnceLock<HashMap<Language, Slot>> = OnceLock::new();
    let slots = SLOTS.get_or_init(|| {
        Language::ALL
            .iter()
            .map(|l| (*l, OnceLock::new()))
            .collect()
    });
    let slot = &slots[&lang];
    slot.get_or_init(|| {
        let spec = lang.spec();
        let (calls_at, imports_at) = file_starts(spec);
        if let Ok(matcher) = Matcher::new(&(spec.grammar)(), &joined(spec), &CAPTURES) {
            let defs_end = matcher.patterns_before(calls_at);
            let calls_end = matcher.patterns_before(imports_at);
            return Ok(Compiled {
                matcher: Some(matcher),
                query: OnceLock::new(),
                defs_end,
                calls_end,
            });
        }
        let query = compile_joined(lang)?;
        let count = |limit: usize| {
            (0..query.pattern_count())
                .filter(|&p| query.start_byte_for_pattern(p) < limit)
                .count()
        };
        let (defs_end, calls_end) = (count(calls_at), count(imports_at));
        Ok(Compiled {
            matcher: None,
            query: OnceLock::from(Ok(query)),
            defs_end,
            calls_end,
        })
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Compiles every language's queries with tree-sitter as well as the matcher (a
/// test calls this so a broken `.scm` fails CI).
pub fn validate_queries() -> Result<(), ExtractError> {
    for lang in Language::ALL {
        compiled(*lang)?.query(*lang)?;
    }
    crate::branches::validate().map_err(|e| ExtractError::Branches(e.0))
}

thread_local! {
    /// Set, this thread's extractions run the query cursor even where a matcher
    /// exists (to compare the two engines).
    static QUERY_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Makes this thread's extractions run tree-sitter's query cursor (`true`) or the
/// matcher where the language has one (`false`, the default): tests and the
/// extraction benchmark compare the two.
#[doc(hidden)]
pub fn use_query_cursor(on: bool) {
    QUERY_ONLY.with(|q| q.set(on));
}

fn query_only() -> bool {
    QUERY_ONLY.with(std::cell::Cell::get)
}

/// The query of `lang`, its matcher (see [`Matcher`]) and where its call and
/// import patterns begin, for tests.
#[cfg(test)]
pub(crate) fn engines(
    lang: Language,
) -> (&'static Query, Option<&'static Matcher>, (usize, usize)) {
    let c = compiled(lang).expect("queries compile");
    let q = c.query(lang).expect("the query compiles");
    (q, c.matcher.as_ref(), (c.defs_end, c.calls_end))
}

thread_local! {
    static PARSERS: RefCell<HashMap<Language, Parser>> = RefCell::new(HashMap::new());
}

/// Enclosing definitions spelled out in a qualified name (see `extract`).
const MAX_QUALIFIED_DEPTH: usize = 32;

fn line_of(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

fn count_errors(root: Node<'_>) -> u32 {
    if !root.has_error() {
        return 0;
    }
    let mut n = 0;
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            n += 1;
        }
        // Only descend into subtrees that contain errors.
        if node.has_error() && !node.is_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    n
}

fn signature(node: Node<'_>, src: &[u8], lang: Language) -> String {
    use crate::languages::Family;
    let family = lang.family();
    // Up to the body, without the comments between the header and the body
    // (`def f():  # note`): the end of the last child before the body that is not
    // a comment.
    let end = lang
        .field(node, "body")
        .map(|b| {
            let mut kids = Vec::new();
            tsa_tree::children(node, &mut kids, false);
            kids.iter()
                .map(|k| k.node)
                .take_while(|c| c.start_byte() < b.start_byte())
                .filter(|c| !c.is_extra())
                .map(|c| c.end_byte())
                .max()
                .unwrap_or(b.start_byte())
                .min(b.start_byte())
        })
        .unwrap_or(node.end_byte())
        // A signature is cut at 200 characters: 4 KiB of source is plenty, and a
        // body-less definition nesting thousands of others is not copied whole.
        .min(node.start_byte() + 4096);
    let header = header_without_comments(node, src, end);
    let raw = String::from_utf8_lossy(&header);
    let mut sig: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    // JS/TS: an exported declaration says so (`export default class Cart`), which is
    // what makes it a module's API (public API, default-export lookups).
    // (`parent()` walks from the root in tree-sitter: asked only when an `export`
    // can precede the node, or deep nesting makes it quadratic.)
    if family == Family::Js
        && before(node, src, 4096).windows(6).any(|w| w == b"export")
        && let Some(prefix) = export_prefix(node)
    {
        sig = format!("{prefix}{sig}");
    }
    // Rust attributes and Go directives that export it through a language binding
    // (`#[napi]`, `#[pyfunction]`, `#[pymethods]`, `#[wasm_bindgen]`, `#[no_mangle]`,
    // `//export Name`): it has callers in another language.
    let head = before(node, src, 2048);
    let bindings = if (family == Family::Rust && head.windows(2).any(|w| w == b"#["))
        || (family == Family::Go && head.windows(8).any(|w| w == b"//export"))
    {
        binding_markers(node, src)
    } else {
        String::new()
    };
    if !bindings.is_empty() {
        sig = format!("{bindings} {sig}");
    }
    while sig.ends_with(':') || sig.ends_with('{') {
        sig.pop();
        sig = sig.trim_end().to_owned();
    }
    if sig.chars().count() > 200 {
        sig = sig.chars().take(200).collect::<String>() + "…";
    }
    sig
}

/// The bytes of `node` up to `end`, without the comments inside them
/// (`@Override // note`, `def f():  # note`): a signature is code.
fn header_without_comments(node: Node<'_>, src: &[u8], end: usize) -> Vec<u8> {
    let start = node.start_byte();
    // A comment starts with its opener in every language here (`#`, `//`, `/*`,
    // `--`, `<!--`, `=begin`): a header without one has none to cut, and its nodes
    // need no walk (an opener just past `end` counts, a comment may start at `end - 1`).
    let around = &src[start..(end + 5).min(src.len()).max(start)];
    if !around.contains(&b'#')
        && !around
            .windows(2)
            .any(|w| w == b"//" || w == b"/*" || w == b"--")
        && !around.windows(6).any(|w| w == b"=begin")
    {
        return src[start..end].to_vec();
    }
    let mut cut: Vec<(usize, usize)> = Vec::new();
    let mut cursor = node.walk();
    let mut more = cursor.goto_first_child();
    while more {
        let n = cursor.node();
        let inside = n.start_byte() < end;
        if inside && n.kind().contains("comment") {
            cut.push((n.start_byte(), n.end_byte().min(end)));
        } else if inside && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node() == node {
                more = false;
                break;
            }
        }
    }
    if cut.is_empty() {
        return src[start..end].to_vec();
    }
    let mut out = Vec::with_capacity(end - start);
    let mut at = start;
    for (a, b) in cut {
        if a > at {
            out.extend_from_slice(&src[at..a]);
        }
        out.push(b' ');
        at = at.max(b);
    }
    if at < end {
        out.extend_from_slice(&src[at..end]);
    }
    out
}

/// Up to `n` bytes of source right before `node`.
fn before<'s>(node: Node<'_>, src: &'s [u8], n: usize) -> &'s [u8] {
    &src[node.start_byte().saturating_sub(n)..node.start_byte()]
}

/// The language-binding attributes and directives just above a definition.
fn binding_markers(node: Node<'_>, src: &[u8]) -> String {
    const MARKERS: [&str; 9] = [
        "napi",
        "pyfunction",
        "pymethods",
        "pyclass",
        "pymodule",
        "wasm_bindgen",
        "no_mangle",
        "uniffi::export",
        "jni",
    ];
    let mut found: Vec<String> = Vec::new();
    let mut prev = node.prev_named_sibling();
    let mut steps = 0;
    while let Some(p) = prev {
        steps += 1;
        if steps > 16 {
            break;
        }
        match p.kind() {
            "attribute_item" => {
                let t: String = text(p, src).split_whitespace().collect();
                let head = t.trim_start_matches("#[");
                if MARKERS.iter().any(|m| {
                    head.starts_with(m)
                        || head.starts_with(&format!("pyo3::{m}"))
                        || head.starts_with(&format!("napi_derive::{m}"))
                        || head.starts_with(&format!("unsafe({m}"))
                }) {
                    found.push(t.chars().take(60).collect());
                }
            }
            "comment" | "line_comment" => {
                let t = text(p, src).trim();
                if let Some(name) = t.strip_prefix("//export ") {
                    found.push(format!("//export {}", name.trim()));
                }
            }
            "block_comment" => {}
            _ => break,
        }
        prev = p.prev_named_sibling();
    }
    found.reverse();
    found.join(" ")
}

/// `export ` or `export default ` when `node` is the declaration of a JS/TS
/// `export` statement (through `const x = ...` declarators).
fn export_prefix(node: Node<'_>) -> Option<&'static str> {
    let mut cur = node.parent()?;
    for _ in 0..3 {
        match cur.kind() {
            "export_statement" => {
                let mut c = cur.walk();
                let default = cur.children(&mut c).any(|k| k.kind() == "default");
                return Some(if default {
                    "export default "
                } else {
                    "export "
                });
            }
            "lexical_declaration" | "variable_declaration" | "variable_declarator" => {
                cur = cur.parent()?;
            }
            _ => return None,
        }
    }
    None
}

fn kind_of(capture: &str) -> Option<DefKind> {
    Some(match capture {
        "definition.function" => DefKind::Function,
        "definition.method" => DefKind::Method,
        "definition.class" => DefKind::Class,
        "definition.struct" => DefKind::Struct,
        "definition.enum" => DefKind::Enum,
        "definition.trait" => DefKind::Trait,
        "definition.impl" => DefKind::Impl,
        "definition.module" => DefKind::Module,
        "definition.interface" => DefKind::Interface,
        "definition.type" => DefKind::Type,
        "definition.variable" => DefKind::Variable,
        "definition.section" => DefKind::Section,
        _ => return None,
    })
}

/// Parses `src` and nothing else (the physical lower bound of indexing, for
/// benchmarks); returns the number of nodes with errors, or `None` if no tree.
pub fn parse_only(lang: Language, src: &[u8]) -> Result<Option<u32>, ExtractError> {
    Ok(parse_blanked(lang, src)?.map(|t| u32::from(t.root_node().has_error())))
}

/// The tree of `src` with the language's noise blanked first, as the
/// extraction parses it.
fn parse_blanked(lang: Language, src: &[u8]) -> Result<Option<tree_sitter::Tree>, ExtractError> {
    let blanked = crate::noise::blank(lang, src);
    parse_tree(lang, blanked.as_deref().unwrap_or(src), None)
}

/// [`parse_only`], then a bare visit of every node of the tree (its children
/// listed as the extraction lists them, nothing asked of them): the least any
/// walk over the tree costs. The benchmark's floor of an extraction; returns the
/// nodes visited.
pub fn parse_and_visit(lang: Language, src: &[u8]) -> Result<Option<usize>, ExtractError> {
    let Some(tree) = parse_blanked(lang, src)? else {
        return Ok(None);
    };
    let (mut stack, mut kids, mut seen) = (vec![tree.root_node()], Vec::new(), 0);
    while let Some(n) = stack.pop() {
        seen += 1;
        tsa_tree::children(n, &mut kids, false);
        stack.extend(kids.iter().filter(|k| !k.leaf).map(|k| k.node));
        seen += kids.iter().filter(|k| k.leaf).count();
    }
    Ok(Some(seen))
}

/// Parses `src` with this thread's parser of `lang`, from `old` (an earlier tree,
/// edited to match `src`) when given.
fn parse_tree(
    lang: Language,
    src: &[u8],
    old: Option<&tree_sitter::Tree>,
) -> Result<Option<tree_sitter::Tree>, ExtractError> {
    let spec = lang.spec();
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let parser = match parsers.entry(lang) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let mut p = Parser::new();
                p.set_language(&(spec.grammar)())
                    .map_err(|_| ExtractError::Grammar(spec.name))?;
                v.insert(p)
            }
        };
        Ok(parser.parse(src, old))
    })
}

/// Measurements a caller takes from the parse tree of a file while it is extracted
/// (one parse and one walk serve both): a pass per file of the language, which the
/// extraction's walk carries (its text lands in `facts`).
pub type FactsHook = std::sync::Arc<dyn Fn(Language) -> Box<dyn crate::TreeVisitor> + Send + Sync>;

/// Parses `src` once and extracts definitions, call sites and imports.
/// Broken source is data: a tree with errors still yields what it holds.
pub fn extract(lang: Language, src: &[u8]) -> Result<FileExtract, ExtractError> {
    extract_with(lang, src, None)
}

/// [`extract`], also running `hook` over the same tree (its text lands in `facts`).
pub fn extract_with(
    lang: Language,
    src: &[u8],
    hook: Option<&FactsHook>,
) -> Result<FileExtract, ExtractError> {
    let (mut x, _) = extract_tree(lang, src, hook, (None, false))?;
    crate::macro_calls::add(lang, src, &mut x);
    Ok(x)
}

/// A file's last parse, which a caller keeps to parse the file's next version
/// incrementally: tree-sitter re-reads only around what the edit changed (the
/// edit is found by comparing the two versions), the result being the tree a
/// fresh parse gives.
pub struct Prior {
    lang: Language,
    /// The bytes parsed (after blanking).
    src: Vec<u8>,
    tree: tree_sitter::Tree,
}

impl Prior {
    fn of(lang: Language, src: &[u8], tree: tree_sitter::Tree) -> Prior {
        Prior {
            lang,
            src: src.to_vec(),
            tree,
        }
    }

    /// Bytes of source it was parsed from.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }
}

/// [`extract_with`] from the file's last parse (`prior`, taken from an earlier
/// call; any earlier version of the file, or of another file of the language, is
/// correct, a close one is fast), also returning this parse to keep for the next.
pub fn extract_again(
    lang: Language,
    src: &[u8],
    hook: Option<&FactsHook>,
    prior: Option<Prior>,
) -> Result<(FileExtract, Option<Prior>), ExtractError> {
    let (mut x, next) = extract_tree(lang, src, hook, (prior, true))?;
    crate::macro_calls::add(lang, src, &mut x);
    Ok((x, next))
}

/// The edit turning `old` into `new`: the bytes between their common prefix and
/// their common suffix.
fn edit_between(old: &[u8], new: &[u8]) -> tree_sitter::InputEdit {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point_at(old, prefix),
        old_end_position: point_at(old, old_end),
        new_end_position: point_at(new, new_end),
    }
}

/// Parses `src`, from `prior` (edited to match) when it is a parse of `lang`.
fn parse_from(
    lang: Language,
    src: &[u8],
    prior: Option<Prior>,
) -> Result<Option<tree_sitter::Tree>, ExtractError> {
    let old = prior.filter(|p| p.lang == lang).map(|mut p| {
        p.tree.edit(&edit_between(&p.src, src));
        p.tree
    });
    parse_tree(lang, src, old.as_ref())
}

/// Row and byte column of offset `at` in `src`.
fn point_at(src: &[u8], at: usize) -> tree_sitter::Point {
    let head = &src[..at];
    let row = head.iter().filter(|&&b| b == b'\n').count();
    let column = head.iter().rev().take_while(|&&b| b != b'\n').count();
    tree_sitter::Point { row, column }
}

/// The one walk over the parse tree behind [`extract_with`] and [`extract_again`]:
/// parses from `prior` when given one of the language, and returns this parse when
/// asked to keep it.
fn extract_tree(
    lang: Language,
    src: &[u8],
    hook: Option<&FactsHook>,
    (prior, keep): (Option<Prior>, bool),
) -> Result<(FileExtract, Option<Prior>), ExtractError> {
    let queries = compiled(lang)?;
    let spec = lang.spec();
    // Attribute-like macros blanked (C, C++): the same offsets, a parsable header.
    let blanked = crate::noise::blank(lang, src);
    let src = blanked.as_deref().unwrap_or(src);
    let Some(tree) = parse_from(lang, src, prior)? else {
        return Ok((FileExtract::unparsed(), None));
    };
    let root = tree.root_node();
    let (
        Found {
            defs: raw,
            calls: raw_calls,
            imports: raw_imports,
            bindings: raw_bindings,
            locals: raw_locals,
            branches: branch_of,
        },
        facts,
    ) = find_with(lang, queries, root, src, hook)?;
    let mut out = FileExtract {
        parse_errors: count_errors(root),
        facts,
        ..FileExtract::default()
    };

    place_defs(&mut out.defs, merged_defs(raw), lang, src);

    // Static types of variables per scope, and of fields per owning type name
    // (`self.repo = Repo()`, `private Repo repo;`, `store: Store` in a struct). A
    // name given two types in one scope has none (`None`).
    let mut types: FxHashMap<(Option<usize>, &str), Option<String>> = FxHashMap::default();
    let mut fields: FxHashMap<(String, String), Option<String>> = FxHashMap::default();
    fn note<K: std::hash::Hash + Eq>(map: &mut FxHashMap<K, Option<String>>, key: K, t: String) {
        match map.get(&key) {
            Some(Some(old)) if *old != t => {
                map.insert(key, None);
            }
            Some(_) => {}
            None => {
                map.insert(key, Some(t));
            }
        }
    }
    let type_around = innermost_around(&out.defs, |d| d.kind.is_type());
    let named_around = innermost_around(&out.defs, |d| d.self_name.is_some());
    let type_scope =
        |cur: Option<usize>| -> Option<&str> { Some(out.defs[type_around[cur?]?].name.as_str()) };
    // Java, C#: `Connection con = new HttpConnection()` states `Connection`; the
    // initializer's class (the rule for `var x = new Foo()`) gives way to it.
    let declared_first = matches!(
        lang.family(),
        crate::languages::Family::Jvm | crate::languages::Family::CSharp
    );
    let declared: rustc_hash::FxHashSet<usize> = if declared_first {
        raw_bindings
            .iter()
            .filter(|(var, ty, _)| {
                ty.end_byte() <= var.start_byte() && receiver_type_name(text(*ty, src)).is_some()
            })
            .map(|(var, _, _)| var.id())
            .collect()
    } else {
        Default::default()
    };
    for (var, ty, at) in raw_bindings {
        if declared.contains(&var.id()) && ty.start_byte() > var.start_byte() {
            continue;
        }
        let scope = enclosing(&out.defs, var.start_byte());
        // `let x = &y;` / `let x = y.clone();`: `x` has the type `y` has (when known).
        let is_alias = ty.kind() == "identifier"
            && parent_of(ty, at).is_some_and(|p| {
                matches!(
                    p.kind(),
                    "reference_expression" | "let_declaration" | "field_expression" | "assignment"
                )
            });
        let t = if is_alias {
            let name = text(ty, src);
            let mut cur = scope;
            let found = loop {
                if let Some(t) = types.get(&(cur, name)) {
                    break t.clone();
                }
                match cur {
                    Some(c) if out.defs[c].kind.is_callable() => cur = out.defs[c].parent,
                    _ => break None,
                }
            };
            match found {
                Some(t) => t,
                None => continue,
            }
        } else {
            match receiver_type_name(crate::returns::unwrap_generic(text(ty, src))) {
                Some(t) => t,
                None => continue,
            }
        };
        let v = text(var, src);
        if parameter_property(lang, var)
            && let Some(owner) = type_scope(scope)
        {
            note(&mut fields, (owner.to_owned(), v.to_owned()), t.clone());
        }
        if let Some(field) = self_field(spec.self_receivers, v) {
            if let Some(owner) = type_scope(scope) {
                note(&mut fields, (owner.to_owned(), field.to_owned()), t);
            }
        } else if let Some(d) = scope.map(|s| &out.defs[s]).filter(|d| d.kind.is_type()) {
            note(&mut fields, (d.name.clone(), v.to_owned()), t);
        } else if is_identifier(v) {
            note(&mut types, (scope, v), t);
        }
    }
    let implicit_self = spec.implicit_self;
    let typed_names: rustc_hash::FxHashSet<&str> = types.keys().map(|(_, n)| *n).collect();
    let typed_walks: std::cell::RefCell<Walks<'_, Option<Option<usize>>>> = Default::default();
    let type_of = |scope: Option<usize>, recv: &str| -> Option<String> {
        if let Some(field) = self_field(spec.self_receivers, recv) {
            return fields
                .get(&(type_scope(scope)?.to_owned(), field.to_owned()))
                .cloned()
                .flatten();
        }
        if !is_identifier(recv) {
            return None;
        }
        // The innermost scope (types' own excepted) stating the name's type.
        if let Some(&name) = typed_names.get(recv) {
            let found = typed_walks.borrow_mut().out(&out.defs, scope, name, |c| {
                (!out.defs[c].kind.is_type() && types.contains_key(&(Some(c), name)))
                    .then_some(Some(Some(c)))
            });
            let found = found.unwrap_or_else(|| types.contains_key(&(None, name)).then_some(None));
            if let Some(at) = found {
                return types.get(&(at, name)).cloned().flatten();
            }
        }
        if implicit_self {
            // A field of the enclosing type, or of a type around it (an inner
            // class reads its outer class's fields), innermost first.
            let mut cur = scope.and_then(|c| type_around[c]);
            while let Some(t) = cur {
                if let Some(found) = fields.get(&(out.defs[t].name.clone(), recv.to_owned())) {
                    return found.clone();
                }
                cur = out.defs[t].parent.and_then(|p| type_around[p]);
            }
        }
        None
    };

    // `self.a.b` / `c.writer` (Go receiver) / `x.a` (typed local): the owner's type,
    // then each field through the fields this file states; where the file does not
    // know a field, the rest is left to the resolver as `Type#field#field`.
    let field_path = |scope: Option<usize>, recv: &str| -> Option<String> {
        let mut parts = recv.split('.');
        let head = parts.next()?;
        let rest: Vec<&str> = parts.collect();
        if rest.is_empty() || !rest.iter().all(|p| is_identifier(p)) || !is_identifier(head) {
            return None;
        }
        let mut cur = if spec.self_receivers.contains(&head) {
            type_scope(scope)?.to_owned()
        } else if let Some(owner) = receiver_owner(&out.defs, &named_around, scope, head) {
            owner
        } else {
            type_of(scope, head)?
        };
        for (i, field) in rest.iter().enumerate() {
            let owner = cur.rsplit(['.', ':']).next().unwrap_or(&cur).to_owned();
            match fields.get(&(owner, (*field).to_owned())) {
                Some(Some(t)) => cur = t.clone(),
                Some(None) => return None,
                None => return Some(format!("{cur}#{}", rest[i..].join("#"))),
            }
        }
        Some(cur)
    };
    // `new B().a().b()`, `T.FIELD.m()`, `x.find().owner()`: the head's type, then
    // each step for the resolver to type in turn (`B@a@b`, `T#FIELD@m`), where
    // the language states its types (Python's and JS's chains are left as they were).
    let typed_chains = !matches!(
        lang.family(),
        crate::languages::Family::Python | crate::languages::Family::Js
    );
    let chain = |scope: Option<usize>, recv: &str| -> Option<String> {
        if !typed_chains {
            return None;
        }
        crate::chain::marked(
            recv,
            spec.self_receivers,
            || type_scope(scope),
            |n| receiver_owner(&out.defs, &named_around, scope, n).or_else(|| type_of(scope, n)),
        )
    };
    let locals: rustc_hash::FxHashSet<(Option<usize>, &str)> = raw_locals
        .iter()
        .map(|n| (enclosing(&out.defs, n.start_byte()), text(*n, src)))
        .collect();
    // A bare name bound as a variable in the call's scope, or in an enclosing
    // function's (closures), or at module level. Outward through functions
    // (closures) to the module; a class body's names are not visible from its
    // methods. A long walk's answer is kept for every scope it passed: calls deep
    // in nested closures would otherwise each walk every scope around them.
    let mut walks: Walks<'_, bool> = Walks::default();
    let mut shadowed = |scope: Option<usize>, name| -> bool {
        let at = walks.out(&out.defs, scope, name, |c| {
            if locals.contains(&(Some(c), name)) {
                Some(true)
            } else {
                let d = &out.defs[c];
                (!(d.kind.is_callable() || d.kind == DefKind::Module)).then_some(false)
            }
        });
        at.unwrap_or_else(|| locals.contains(&(None, name)))
    };

    // JS/TS callbacks: an untyped parameter of a function passed as argument i of
    // a call (`operate((source, subscriber) => ...)`) has the type the callee
    // declares for it, which the resolver reads (`callee!i!j`); innermost wins.
    let callbacks = Callbacks::new(if lang.family() == crate::languages::Family::Js {
        callback_params(&raw_calls, src)
    } else {
        Vec::new()
    });

    // Call sites, attributed to their innermost enclosing definition.
    let mut seen = rustc_hash::FxHashSet::default();
    for (call, name, receiver, path) in raw_calls {
        if !seen.insert(call.id()) {
            continue;
        }
        // Macro-token "calls" inside an attribute (`#[pyo3(signature = (a, b))]`)
        // are arguments, not calls.
        if call.kind() == "token_tree" && inside_attribute(call) {
            continue;
        }
        let callee = text(name, src);
        if callee.is_empty() {
            continue;
        }
        let receiver_node = receiver;
        let receiver = receiver.map(|r| receiver_text(r, src));
        let scope = enclosing(&out.defs, call.start_byte());
        let receiver_type = match &receiver {
            Some(r) if !path => callbacks
                .type_at(call.start_byte(), r)
                .or_else(|| type_of(scope, r))
                .or_else(|| field_path(scope, r))
                .or_else(|| {
                    // The whole receiver (its stored text may be cut), within the window.
                    let node = receiver_node?;
                    let text = src
                        .get(node.byte_range())
                        .filter(|b| b.len() <= RECEIVER_WINDOW)?;
                    chain(scope, std::str::from_utf8(text).ok()?)
                })
                .or_else(|| called_head(r)),
            _ => None,
        };
        let shadowed = receiver.is_none() && shadowed(scope, callee);
        out.calls.push(CallSite {
            shadowed,
            callee: callee.into(),
            receiver: receiver.map(String::into_boxed_str),
            path,
            receiver_type: receiver_type.map(String::into_boxed_str),
            enclosing: scope,
            line: line_of(call),
            branch: branch_of.as_ref().and_then(|m| m.get(&call.id()).copied()),
            arity: if spec.fixed_arity {
                arguments(call)
            } else {
                None
            },
        });
    }
    out.calls.sort_by_key(|c| c.line);
    // Module-level variables with a stated type (`app = Flask(__name__)`) are the
    // module's fields (owner ""): other files import them.
    for ((scope, name), t) in &types {
        if scope.is_none()
            && let Some(t) = t
        {
            fields.insert((String::new(), (*name).to_owned()), Some(t.clone()));
        }
    }
    out.fields = fields
        .iter()
        .filter_map(|((owner, name), t)| {
            Some(crate::model::Field {
                owner: owner.clone(),
                name: name.clone(),
                ty: t.clone()?,
            })
        })
        .collect();
    out.fields.sort();

    // Imports.
    for node in raw_imports {
        (spec.imports_of)(node, src, &mut out.imports);
    }
    commonjs_default(root, src, &mut out.defs);
    Ok((out, keep.then(|| Prior::of(lang, src, tree))))
}

/// A definition match: its node, kind, name and bases.
type RawDef<'t> = (Node<'t>, DefKind, String, Vec<Base>);

/// A typed binding: the variable, its type, and the node its pattern matched at
/// (an ancestor of both; `None` from the query engine).
type Binding<'t> = (Node<'t>, Node<'t>, Option<Node<'t>>);

/// The parent of `node`, found down from `at` (an ancestor or `node` itself) when
/// given: tree-sitter finds a parent by descending from the root, every child of
/// each level before the one holding `node` (a module's thousand statements).
fn parent_of<'t>(node: Node<'t>, at: Option<Node<'t>>) -> Option<Node<'t>> {
    let Some(mut p) = at.filter(|a| a.id() != node.id()) else {
        return node.parent();
    };
    loop {
        // Not under `at` after all: the root's way.
        let Some(c) = p.child_with_descendant(node) else {
            return node.parent();
        };
        if c.id() == node.id() {
            return Some(p);
        }
        p = c;
    }
}

/// What one walk of the patterns over a tree found: definitions (node, kind, name,
/// bases), calls (call, name, receiver, receiver is a path), import statements,
/// typed bindings (variable, type) and locals, each in document order.
struct Found<'t> {
    defs: Vec<RawDef<'t>>,
    calls: Vec<(Node<'t>, Node<'t>, Option<Node<'t>>, bool)>,
    imports: Vec<Node<'t>>,
    bindings: Vec<Binding<'t>>,
    locals: Vec<Node<'t>>,
    /// The branch of each call node (by id); `None` where the language states no
    /// rules.
    branches: Option<rustc_hash::FxHashMap<usize, crate::model::BranchKind>>,
}

/// The definitions found, in source order, each given its innermost enclosing
/// definition (a stack of open ones), its kind in context (a function inside a
/// type is a method), its owner and qualified name.
fn place_defs(defs: &mut Vec<Def>, raw: Vec<RawDef<'_>>, lang: Language, src: &[u8]) {
    let spec = lang.spec();
    // Nesting: a stack of open definitions gives each its innermost parent.
    let mut stack: Vec<usize> = Vec::new();
    for (node, kind, name, bases) in raw {
        while let Some(&top) = stack.last() {
            if defs[top].end_byte >= node.end_byte() && defs[top].start_byte <= node.start_byte() {
                break;
            }
            stack.pop();
        }
        let parent = stack.last().copied();
        let mut kind = kind;
        let mut owner = None;
        if let Some(p) = parent {
            let pd = &defs[p];
            if kind == DefKind::Function && pd.kind.is_type() {
                kind = DefKind::Method;
                owner = Some(pd.name.clone());
            }
        }
        let mut self_name = None;
        let mut owner_prefix = String::new();
        if owner.is_none()
            && matches!(kind, DefKind::Function | DefKind::Method)
            && let Some((o, receiver)) = (spec.owner_of)(node, src)
        {
            let o = (spec.clean_type_name)(&o);
            if !o.is_empty() {
                kind = DefKind::Method;
                owner_prefix = format!("{o}{}", spec.qual_sep);
                owner = Some(o);
                self_name = receiver.filter(|r| !r.is_empty() && r != "_");
            }
        }
        let qualname = match parent {
            // Past MAX_QUALIFIED_DEPTH enclosing definitions the qualified name keeps
            // the outermost and the enclosing one only: a file nesting thousands of
            // functions must not store names of quadratic total length.
            Some(p) if stack.len() >= MAX_QUALIFIED_DEPTH => format!(
                "{outer}{sep}\u{2026}{sep}{parent}{sep}{owner_prefix}{name}",
                outer = defs[stack[0]].qualname,
                parent = defs[p].name,
                sep = spec.qual_sep,
            ),
            Some(p) => format!(
                "{}{}{owner_prefix}{}",
                defs[p].qualname, spec.qual_sep, name
            ),
            None => format!("{owner_prefix}{name}"),
        };
        let is_test = parent.is_some_and(|p| defs[p].is_test) || (spec.is_test_def)(node, src);
        defs.push(Def {
            signature: signature(node, src, lang),
            name,
            kind,
            qualname,
            parent,
            owner,
            line: line_of(node),
            end_line: node.end_position().row as u32 + 1,
            start_byte: node.start_byte(),
            end_byte: node.end_byte(),
            is_test,
            bases,
            self_name,
            doc: crate::docs::doc_of(lang, node, src, crate::docs::DOC_CHARS),
        });
        stack.push(defs.len() - 1);
    }
}

/// Definition matches in document order (an outer one before those it holds), one
/// per node and kind: several patterns may match one node (with and without bases),
/// their bases merged.
fn merged_defs(mut raw: Vec<RawDef<'_>>) -> Vec<RawDef<'_>> {
    raw.sort_by_cached_key(|(n, _, _, _)| (n.start_byte(), std::cmp::Reverse(n.end_byte())));
    let mut merged: Vec<RawDef<'_>> = Vec::with_capacity(raw.len());
    for item in raw {
        match merged.last_mut() {
            Some(last) if last.0.id() == item.0.id() && last.1 == item.1 => {
                for b in item.3 {
                    if !last.3.contains(&b) {
                        last.3.push(b);
                    }
                }
            }
            _ => merged.push(item),
        }
    }
    merged
}

/// [`find`], with the pass of `hook` riding its walk: the matches and the pass's text.
fn find_with<'t>(
    lang: Language,
    queries: &Compiled,
    root: Node<'t>,
    src: &[u8],
    hook: Option<&FactsHook>,
) -> Result<(Found<'t>, Option<String>), ExtractError> {
    let mut pass = hook.map(|h| h(lang));
    let rides = pass
        .as_deref_mut()
        .map(|p| p as &mut dyn crate::TreeVisitor);
    let found = find(lang, queries, root, src, rides)?;
    Ok((found, pass.and_then(|p| p.finish(root, src))))
}

/// One walk over the tree (the matcher's, else the query cursor's): sorts the
/// matches into definitions, calls and imports. `pass` rides the matcher's walk
/// (the query cursor's is not ours: there it walks on its own).
fn find<'t>(
    lang: Language,
    queries: &Compiled,
    root: Node<'t>,
    src: &[u8],
    pass: Option<&mut dyn crate::TreeVisitor>,
) -> Result<Found<'t>, ExtractError> {
    let matcher = queries.matcher.as_ref().filter(|_| !query_only());
    let names = match matcher {
        Some(_) => &CAPTURES[..],
        None => queries.query(lang)?.capture_names(),
    };
    let spec = lang.spec();
    let mut raw: Vec<(Node<'_>, DefKind, String, Vec<Base>)> = Vec::new();
    let mut raw_calls: Vec<(Node<'_>, Node<'_>, Option<Node<'_>>, bool)> = Vec::new();
    let mut raw_imports: Vec<Node<'_>> = Vec::new();
    // `var` has static type `type` from here on (annotation, declaration, constructor);
    // the node the pattern matched at, when the matcher found it.
    let mut raw_bindings: Vec<Binding<'_>> = Vec::new();
    // Names bound as local variables or parameters (they shadow outer definitions).
    let mut raw_locals: Vec<Node<'_>> = Vec::new();
    let branches = matcher
        .and_then(|_| crate::branches::BranchWalk::new(lang))
        .map(std::cell::RefCell::new);
    let mut on_match = of_tree(root, |pattern, at, captures| {
        if pattern < queries.defs_end {
            let mut def_node = None;
            let mut name = None;
            let mut bases = Vec::new();
            for &(index, node) in captures {
                let cap = names[index as usize];
                let base = match cap {
                    "name" => {
                        name = Some(node);
                        None
                    }
                    "extends" => Some(BaseKind::Extends),
                    "implements" => Some(BaseKind::Implements),
                    _ => {
                        if let Some(kind) = kind_of(cap) {
                            def_node = Some((node, kind));
                        }
                        None
                    }
                };
                if let Some(kind) = base {
                    let name = (spec.clean_type_name)(text(node, src));
                    if !name.is_empty()
                        && !bases
                            .iter()
                            .any(|b: &Base| b.name == name && b.kind == kind)
                    {
                        bases.push(Base { name, kind });
                    }
                }
            }
            if let (Some((node, kind)), Some(name)) = (def_node, name) {
                let mut n = text(name, src).trim().to_owned();
                if kind.is_type() {
                    n = (spec.clean_type_name)(&n);
                }
                if !n.is_empty() {
                    if let Some(b) = &branches {
                        b.borrow_mut().def(node);
                    }
                    raw.push((node, kind, n, bases));
                }
            }
        } else if pattern < queries.calls_end {
            let (mut call, mut name, mut receiver, mut path) = (None, None, None, false);
            let (mut bvar, mut btype) = (None, None);
            for &(index, node) in captures {
                match names[index as usize] {
                    "binding.var" => bvar = Some(node),
                    "local.var" => raw_locals.push(node),
                    "binding.type" => btype = Some(node),
                    "reference.call" => call = Some(node),
                    "name" => name = Some(node),
                    "receiver" => receiver = Some(node),
                    "path" => {
                        receiver = Some(node);
                        path = true;
                    }
                    _ => {}
                }
            }
            if let (Some(call), Some(name)) = (call, name) {
                if let Some(b) = &branches {
                    b.borrow_mut().call(call);
                }
                raw_calls.push((call, name, receiver, path));
            } else if let (Some(v), Some(t)) = (bvar, btype) {
                raw_bindings.push((v, t, at));
            }
        } else {
            raw_imports.extend(captures.iter().map(|c| c.1));
        }
    });
    match matcher {
        Some(matcher) => matcher.for_each(
            root,
            src,
            |p, at, caps| on_match(p, Some(at), caps),
            pass,
            branches.as_ref(),
        ),
        None => {
            if let Some(pass) = pass {
                crate::visit(root, src, pass);
            }
            let mut cursor = QueryCursor::new();
            let mut matches = cursor.matches(queries.query(lang)?, root, src);
            let mut captures = Vec::new();
            while let Some(m) = matches.next() {
                captures.clear();
                captures.extend(m.captures().iter().map(|c| (c.index, c.node)));
                on_match(m.pattern_index, None, &captures);
            }
        }
    }
    // The branches: worked out on the matcher's walk, else on a walk of their own.
    let branches = match branches {
        Some(walk) => Some(walk.into_inner().finish()),
        None => crate::branches::of_calls(
            lang,
            root,
            raw_calls.iter().map(|c| c.0),
            raw.iter().map(|d| (d.0.start_byte(), d.0.end_byte())),
        ),
    };
    // Matches come in an order each engine chooses: what follows reads them in
    // document order (of two calls starting together, `f()` of `f().g()` first, as
    // the query cursor finishes them), whichever ran.
    // (Keys read once per call: a node's end is a call into tree-sitter.)
    raw_calls.sort_by_cached_key(|c| (c.0.start_byte(), c.0.end_byte()));
    raw_bindings.sort_by_key(|b| b.0.start_byte());
    raw_imports.sort_by_key(|n| n.start_byte());
    Ok(Found {
        defs: raw,
        calls: raw_calls,
        imports: raw_imports,
        bindings: raw_bindings,
        locals: raw_locals,
        branches,
    })
}

/// A match handler whose nodes live as long as the tree `root` belongs to.
fn of_tree<'t, F: FnMut(usize, Option<Node<'t>>, &[(u32, Node<'t>)])>(_root: Node<'t>, f: F) -> F {
    f
}

/// CommonJS `module.exports = name` (at the top level): the definition `name` is
/// the module's default export, as `export default` would make it.
fn commonjs_default(root: Node<'_>, src: &[u8], defs: &mut [Def]) {
    let mut cursor = root.walk();
    for stmt in root.named_children(&mut cursor) {
        if stmt.kind() != "expression_statement" {
            continue;
        }
        let Some(a) = stmt
            .named_child(0)
            .filter(|a| a.kind() == "assignment_expression")
        else {
            continue;
        };
        let (Some(left), Some(right)) = (
            a.child_by_field_name("left"),
            a.child_by_field_name("right"),
        ) else {
            continue;
        };
        if text(left, src) != "module.exports" {
            continue;
        }
        let name = match right.kind() {
            "identifier" => text(right, src),
            "function_expression" | "class" | "function" => right
                .child_by_field_name("name")
                .map_or("", |n| text(n, src)),
            _ => "",
        };
        if name.is_empty() {
            continue;
        }
        if let Some(d) = defs
            .iter_mut()
            .find(|d| d.parent.is_none() && d.name == name && !d.signature.starts_with("export"))
        {
            d.signature = format!("export default {}", d.signature);
        }
    }
}

/// Whether `var` is a TypeScript parameter property (`constructor(private store:
/// Store)`), which declares a field of the class. (`parent()` walks from the root in
/// tree-sitter: asked only where such a parameter can be.)
fn parameter_property(lang: Language, var: Node<'_>) -> bool {
    lang.family() == crate::Family::Js
        && var.parent().is_some_and(|p| {
            let mut c = p.walk();
            p.kind().ends_with("_parameter")
                && p.children(&mut c)
                    .any(|k| matches!(k.kind(), "accessibility_modifier" | "readonly"))
        })
}

fn inside_attribute(node: Node<'_>) -> bool {
    let mut cur = node.parent();
    while let Some(p) = cur {
        match p.kind() {
            "attribute_item" | "inner_attribute_item" | "attribute" => return true,
            "token_tree" | "macro_invocation" => cur = p.parent(),
            _ => return false,
        }
    }
    false
}

/// A callback parameter: its function's byte range, its name, and `callee!i!j`.
type CallbackParam = (usize, usize, String, String);

/// The longest receiver read as a dotted path of names (`a.b.c`) naming a callee.
const CALLEE_PATH_MAX: usize = 256;

/// The untyped parameters of functions passed directly as call arguments.
fn callback_params(
    calls: &[(Node<'_>, Node<'_>, Option<Node<'_>>, bool)],
    src: &[u8],
) -> Vec<CallbackParam> {
    let mut out = Vec::new();
    for (call, name, receiver, _) in calls {
        if !matches!(call.kind(), "call_expression" | "new_expression") {
            continue;
        }
        let Some(args) = call.child_by_field_name("arguments") else {
            continue;
        };
        // The callee as written: a name, or a dotted path of names (a receiver
        // longer than any such path, a chain of calls say, is not read: each call
        // of a chain would read the whole chain before it).
        let callee = match receiver {
            Some(r) if r.byte_range().len() > CALLEE_PATH_MAX => continue,
            Some(r) => format!("{}.{}", text(*r, src), text(*name, src)),
            None => text(*name, src).to_owned(),
        };
        if !callee.split('.').all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        }) {
            continue;
        }
        let mut c = args.walk();
        for (i, arg) in args.named_children(&mut c).enumerate() {
            if !matches!(
                arg.kind(),
                "arrow_function" | "function_expression" | "function"
            ) {
                continue;
            }
            let mut params: Vec<Node<'_>> = Vec::new();
            if let Some(p) = arg.child_by_field_name("parameter") {
                params.push(p);
            } else if let Some(ps) = arg.child_by_field_name("parameters") {
                let mut c2 = ps.walk();
                params.extend(ps.named_children(&mut c2).filter(|n| n.kind() != "comment"));
            }
            for (j, p) in params.iter().enumerate() {
                let id = match p.kind() {
                    "identifier" => Some(*p),
                    "required_parameter" | "optional_parameter"
                        if p.child_by_field_name("type").is_none() =>
                    {
                        p.child_by_field_name("pattern")
                            .filter(|n| n.kind() == "identifier")
                    }
                    _ => None,
                };
                if let Some(id) = id {
                    out.push((
                        arg.start_byte(),
                        arg.end_byte(),
                        text(id, src).to_owned(),
                        format!("{callee}!{i}!{j}"),
                    ));
                }
            }
        }
    }
    out
}

/// Callback parameters by name: per name, its functions sorted by start, each
/// with the innermost same-named one around it (function ranges nest or are
/// disjoint), so a lookup steps out from where it lands instead of scanning all.
struct Callbacks(rustc_hash::FxHashMap<String, Vec<Around>>);

/// A callback function's byte range, the index of the same-named one around it,
/// and the parameter's type marker.
type Around = (usize, usize, Option<usize>, String);

impl Callbacks {
    fn new(params: Vec<CallbackParam>) -> Self {
        let mut by: rustc_hash::FxHashMap<String, Vec<(usize, usize, usize, String)>> =
            Default::default();
        for (k, (s, e, n, t)) in params.into_iter().enumerate() {
            by.entry(n).or_default().push((s, e, k, t));
        }
        let map = by
            .into_iter()
            .map(|(name, mut v)| {
                // Outer before inner; of equal ranges, the first found last (the
                // innermost wins, and of equals the first found).
                v.sort_by_key(|&(s, e, k, _)| (s, std::cmp::Reverse(e), std::cmp::Reverse(k)));
                let mut out: Vec<Around> = Vec::with_capacity(v.len());
                let mut open: Vec<usize> = Vec::new();
                for (s, e, _, t) in v {
                    while open.last().is_some_and(|&o| out[o].1 < e) {
                        open.pop();
                    }
                    out.push((s, e, open.last().copied(), t));
                    open.push(out.len() - 1);
                }
                (name, out)
            })
            .collect();
        Self(map)
    }

    /// The type marker of `recv` (a callback parameter) at byte `at`: the
    /// innermost callback function around it that has the name.
    fn type_at(&self, at: usize, recv: &str) -> Option<String> {
        let v = self.0.get(recv)?;
        let mut i = v.partition_point(|x| x.0 <= at).checked_sub(1);
        while let Some(k) = i {
            if at <= v[k].1 {
                return Some(v[k].3.clone());
            }
            i = v[k].2;
        }
        None
    }
}

/// The owner type of the method whose receiver variable is `name` (Go's `c` in
/// `func (c *Context) Next()`), from `scope` outward.
/// `named_around[d]` is the innermost definition at or around `d` with a receiver
/// name: the walk steps only through those.
fn receiver_owner(
    defs: &[Def],
    named_around: &[Option<usize>],
    scope: Option<usize>,
    name: &str,
) -> Option<String> {
    let mut cur = scope.and_then(|s| named_around[s]);
    while let Some(c) = cur {
        let d = &defs[c];
        if d.self_name.as_deref() == Some(name) {
            return d.owner.clone();
        }
        cur = d.parent.and_then(|p| named_around[p]);
    }
    None
}

/// The number of arguments of a call node with an `arguments` list.
fn arguments(call: Node<'_>) -> Option<u8> {
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let n = args
        .named_children(&mut cursor)
        .filter(|c| !c.kind().contains("comment"))
        .count();
    u8::try_from(n).ok()
}

/// `Engine()` / `pkg.make(a, b)` as a receiver: the value a call returns; its
/// "type" is the called name (a class, or a function with a declared return type).
fn called_head(recv: &str) -> Option<String> {
    let open = recv.find('(')?;
    if !recv.ends_with(')') {
        return None;
    }
    let mut depth = 0i32;
    for (i, c) in recv[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && open + i + 1 != recv.len() {
                    return None;
                }
            }
            _ => {}
        }
    }
    let head = &recv[..open];
    // `super().m()` is the resolver's own rule (the bases of the enclosing class).
    let ok = !head.is_empty()
        && head != "super"
        && head
            .split(['.', ':'])
            .filter(|p| !p.is_empty())
            .all(is_identifier)
        && !head.starts_with(['.', ':']);
    ok.then(|| head.to_owned())
}

/// `self.repo` -> `repo` when the head is one of the language's self receivers.
fn self_field<'a>(selves: &[&str], recv: &'a str) -> Option<&'a str> {
    let (head, field) = recv.split_once('.')?;
    (selves.contains(&head) && is_identifier(field)).then_some(field)
}

/// The innermost definition containing `byte` (definitions sorted by start, nested).
/// The longest receiver text stored, in bytes (then cut, with `…`).
const RECEIVER_MAX: usize = 160;
/// Bytes of a receiver read at most: a chain of calls is its own receiver's
/// receiver, so reading each whole would make a chain of n calls cost n² bytes.
const RECEIVER_WINDOW: usize = 4096;

/// A receiver's text as stored: whitespace runs collapsed, a long builder chain
/// cut to its head (where the type usually is). Reads its first
/// [`RECEIVER_WINDOW`] bytes only (empty when they are not UTF-8).
fn receiver_text(node: Node<'_>, src: &[u8]) -> String {
    let range = node.byte_range();
    let end = range.end.min(range.start.saturating_add(RECEIVER_WINDOW));
    let bytes = src.get(range.start..end).unwrap_or_default();
    let raw = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        // A character the window cut in two.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => "",
    };
    collapsed(raw, end < range.end)
}

/// `raw`'s words joined by single spaces, cut past [`RECEIVER_MAX`] bytes (or when
/// `clipped`: more text follows) with `…`.
fn collapsed(raw: &str, clipped: bool) -> String {
    let mut t = String::with_capacity(raw.len().min(RECEIVER_MAX + 4));
    for (i, word) in raw.split_whitespace().enumerate() {
        if i > 0 {
            t.push(' ');
        }
        t.push_str(word);
        if t.len() > RECEIVER_MAX {
            break;
        }
    }
    if t.len() > RECEIVER_MAX {
        let cut = (0..=RECEIVER_MAX)
            .rev()
            .find(|i| t.is_char_boundary(*i))
            .unwrap_or(0);
        t.truncate(cut);
        t.push('…');
    } else if clipped {
        t.push('…');
    }
    t
}

/// Per definition, the innermost one at or around it for which `pick` holds (a
/// definition's parent comes before it in `defs`): a lookup, not a walk out.
fn innermost_around(defs: &[Def], pick: impl Fn(&Def) -> bool) -> Vec<Option<usize>> {
    let mut out: Vec<Option<usize>> = Vec::with_capacity(defs.len());
    for (i, d) in defs.iter().enumerate() {
        let t = if pick(d) {
            Some(i)
        } else {
            d.parent.and_then(|p| out[p])
        };
        out.push(t);
    }
    out
}

/// Walks out from a scope through the enclosing definitions for a name, keeping a
/// long walk's answer for every scope it passed: calls deep in nested closures
/// would otherwise each walk every scope around them.
struct Walks<'s, V> {
    /// Per scope and name, where a long walk ended (`None`: past the outermost).
    known: rustc_hash::FxHashMap<(usize, &'s str), Option<V>>,
    path: Vec<usize>,
}

impl<V> Default for Walks<'_, V> {
    fn default() -> Self {
        Self {
            known: Default::default(),
            path: Vec::new(),
        }
    }
}

impl<'s, V: Copy> Walks<'s, V> {
    /// Walks longer than this are remembered (shorter ones cost less than keeping).
    const REMEMBERED_PAST: usize = 8;

    /// The first answer `at` gives from `scope` outward (`None` passes on to the
    /// enclosing definition), or `None` past the outermost one. Every scope
    /// passed answers as the one the walk ended at.
    fn out(
        &mut self,
        defs: &[Def],
        scope: Option<usize>,
        name: &'s str,
        mut at: impl FnMut(usize) -> Option<V>,
    ) -> Option<V> {
        self.path.clear();
        let mut cur = scope;
        let answer = loop {
            let Some(c) = cur else {
                break None;
            };
            if let Some(&known) = self.known.get(&(c, name)) {
                break known;
            }
            self.path.push(c);
            if let Some(v) = at(c) {
                break Some(v);
            }
            cur = defs[c].parent;
        };
        if self.path.len() > Self::REMEMBERED_PAST {
            self.known
                .extend(self.path.iter().map(|&c| ((c, name), answer)));
        }
        answer
    }
}

fn enclosing(defs: &[Def], byte: usize) -> Option<usize> {
    let idx = defs.partition_point(|d| d.start_byte <= byte);
    let mut cur = idx.checked_sub(1)?;
    loop {
        if defs[cur].end_byte >= byte {
            return Some(cur);
        }
        cur = defs[cur].parent?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bench's floor visits every node tree-sitter's API lists, once.
    #[test]
    fn a_bare_visit_sees_every_node() {
        for (lang, src) in [
            (
                Language::Python,
                &b"class C(B):\n    def f(self, v):\n        return g(v)[1:]  # c\n"[..],
            ),
            (
                Language::C,
                b"#include <x.h>\nstatic int f(int a) { return g(a, \"s\") + 1; }\n",
            ),
        ] {
            let mut parser = Parser::new();
            parser.set_language(&lang.grammar()).unwrap();
            let tree = parser.parse(src, None).unwrap();
            let mut want = 0;
            let mut stack = vec![tree.root_node()];
            while let Some(n) = stack.pop() {
                want += 1;
                let mut c = n.walk();
                stack.extend(n.children(&mut c));
            }
            assert!(want > 20);
            assert_eq!(parse_and_visit(lang, src).unwrap(), Some(want), "{lang:?}");
        }
    }

    #[test]
    fn a_parent_found_down_from_an_ancestor_is_tree_sitters() {
        let src = b"import a\nx = y\nclass C:\n    def f(self, v: int):\n        w = g(v)\n        return [w, (v,)]\n";
        let mut parser = Parser::new();
        parser.set_language(&Language::Python.grammar()).unwrap();
        let tree = parser.parse(&src[..], None).unwrap();
        let mut all = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            all.push(n);
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
        let (mut checked, mut outside) = (0, 0);
        for &n in &all {
            let want = n.parent().map(|p| p.id());
            assert_eq!(parent_of(n, None).map(|p| p.id()), want);
            // From every ancestor, the node itself, and a node elsewhere.
            for &at in &all {
                let under = at.start_byte() <= n.start_byte() && n.end_byte() <= at.end_byte();
                outside += usize::from(!under);
                assert_eq!(
                    parent_of(n, Some(at)).map(|p| p.id()),
                    want,
                    "{n:?} from {at:?}"
                );
                checked += 1;
            }
        }
        assert!(all.len() > 40 && outside > 0 && checked == all.len() * all.len());
    }

    #[test]
    fn a_callback_lookup_finds_what_a_scan_of_every_parameter_finds() {
        // Nested and disjoint functions, two names, a tie of equal ranges.
        let params: Vec<CallbackParam> = [
            (0, 100, "x", "a!0!0"),
            (10, 40, "x", "b!0!0"),
            (20, 30, "y", "c!0!0"),
            (50, 90, "x", "d!0!0"),
            (60, 70, "x", "e!0!0"),
            (60, 70, "x", "f!0!0"),
            (95, 99, "y", "g!0!0"),
        ]
        .iter()
        .map(|&(s, e, n, t)| (s, e, n.to_owned(), t.to_owned()))
        .collect();
        // The scan this lookup replaced: the shortest containing range, first found.
        let scan = |at: usize, recv: &str| {
            params
                .iter()
                .filter(|(s, e, n, _)| *s <= at && at <= *e && n == recv)
                .min_by_key(|(s, e, _, _)| e - s)
                .map(|(_, _, _, t)| t.clone())
        };
        let cb = Callbacks::new(params.clone());
        for at in 0..=110 {
            for recv in ["x", "y", "z", "x.y"] {
                assert_eq!(cb.type_at(at, recv), scan(at, recv), "{recv} at {at}");
            }
        }
    }

    #[test]
    fn a_local_shadows_a_call_through_any_depth_of_closures_but_not_past_a_class() {
        // Twelve nested functions (past the walk's memo threshold): `g` is a
        // parameter of the second, so every `g()` below it is shadowed; `h` is bound
        // nowhere; a method does not see its enclosing function's locals through
        // its class.
        let mut src = String::from("function f0(a) {\n function f1(g) {\n");
        for i in 2..14 {
            src.push_str(&format!("function f{i}(x) {{ g(); h();\n"));
        }
        src.push_str(&"}\n".repeat(14));
        src.push_str("function o(k) {\n class C { m() { k(); } }\n k();\n}\n");
        let x = extract(Language::JavaScript, src.as_bytes()).unwrap();
        let calls = |name: &str| -> Vec<bool> {
            x.calls
                .iter()
                .filter(|c| &*c.callee == name)
                .map(|c| c.shadowed)
                .collect()
        };
        assert_eq!(calls("g"), vec![true; 12]);
        assert_eq!(calls("h"), vec![false; 12]);
        assert_eq!(calls("k"), vec![false, true]);
    }

    #[test]
    fn a_receiver_is_stored_collapsed_and_cut_reading_a_bounded_prefix() {
        // What the text was before the window: the whole receiver collapsed, then cut.
        fn whole(raw: &str) -> String {
            let mut t = raw.split_whitespace().collect::<Vec<_>>().join(" ");
            if t.len() > RECEIVER_MAX {
                let cut = (0..=RECEIVER_MAX)
                    .rev()
                    .find(|i| t.is_char_boundary(*i))
                    .unwrap_or(0);
                t.truncate(cut);
                t.push('…');
            }
            t
        }
        let chain = |n: usize| {
            (0..n)
                .map(|i| format!("m{i}()"))
                .collect::<Vec<_>>()
                .join("\n    .")
        };
        for raw in [
            "self.repo".to_owned(),
            "a\n   .b()\n   .c()".to_owned(),
            "é".repeat(100),
            format!("x{}", "é".repeat(100)),
            chain(30),
            chain(5_000),
        ] {
            let clipped = raw.len() > RECEIVER_WINDOW;
            let mut end = raw.len().min(RECEIVER_WINDOW);
            while !raw.is_char_boundary(end) {
                end -= 1;
            }
            assert_eq!(collapsed(&raw[..end], clipped), whole(&raw), "{raw:.40}");
        }
        // Through a parse: a chain of calls, each call's receiver the chain before it.
        let src = format!("x = (a.{})\n", chain(3_000));
        let x = extract(Language::Python, src.as_bytes()).unwrap();
        assert_eq!(x.calls.len(), 3_000);
        assert!(
            x.calls
                .iter()
                .all(|c| c.receiver.as_deref().is_some_and(|r| {
                    r.len() <= RECEIVER_MAX + '…'.len_utf8() && r.starts_with('a')
                }))
        );
    }

    #[test]
    fn every_language_query_compiles_with_the_capture_vocabulary() {
        validate_queries().unwrap();
    }

    #[cfg(feature = "python")]
    #[test]
    fn a_signature_leaves_out_the_comment_before_the_body() {
        let src = b"def all(self):  # We can't proxy this method\n    # more\n    return 1\n\nclass K(Base):  # note\n    pass\n";
        let x = extract(Language::Python, src).unwrap();
        let sigs: Vec<_> = x.defs.iter().map(|d| d.signature.as_str()).collect();
        assert_eq!(sigs, ["def all(self)", "class K(Base)"]);
        let x = extract(
            Language::JavaScript,
            b"function f(a) /* c */ { return a; }\n",
        )
        .unwrap();
        assert_eq!(x.defs[0].signature, "function f(a)");
        let x = extract(
            Language::Java,
            b"class C {\n  @Override // note\n  protected double area(/* r */ double r) { return r; }\n}\n",
        )
        .unwrap();
        assert_eq!(
            x.defs[1].signature,
            "@Override protected double area( double r)"
        );
    }

    #[test]
    fn python_defs_calls_imports() {
        let src = br#"
import os.path as p
from .util import helper as h, other
from ..pkg import *

class Greeter(Base):
    def greet(self, name: str) -> str:
        self.log(name)
        return h(name)

def main():
    Greeter().greet("x")
    p.join("a", "b")

main()
"#;
        let x = extract(Language::Python, src).unwrap();
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str(), d.line))
            .collect();
        assert_eq!(
            defs,
            [
                ("Greeter", "class", 6),
                ("Greeter.greet", "method", 7),
                ("main", "function", 11)
            ]
        );
        assert_eq!(x.defs[1].owner.as_deref(), Some("Greeter"));
        assert_eq!(x.defs[1].signature, "def greet(self, name: str) -> str");
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| {
                (
                    &*c.callee,
                    c.receiver.as_deref(),
                    c.enclosing.map(|i| x.defs[i].name.as_str()),
                    c.line,
                )
            })
            .collect();
        assert_eq!(
            calls,
            [
                ("log", Some("self"), Some("greet"), 8),
                ("h", None, Some("greet"), 9),
                ("Greeter", None, Some("main"), 12),
                ("greet", Some("Greeter()"), Some("main"), 12),
                ("join", Some("p"), Some("main"), 13),
                ("main", None, None, 15),
            ]
        );
        let imports: Vec<_> = x
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.name.as_deref(),
                    i.alias.as_str(),
                    i.level,
                )
            })
            .collect();
        assert_eq!(
            imports,
            [
                ("os.path", None, "p", 0),
                ("util", Some("helper"), "h", 1),
                ("util", Some("other"), "other", 1),
                ("pkg", None, "*", 2),
            ]
        );
        assert_eq!(x.parse_errors, 0);
    }

    #[cfg(feature = "rust")]
    #[test]
    fn rust_defs_calls_imports_and_tests() {
        let src = br#"
use crate::store::{self, Index as Idx, open};
use std::collections::*;

pub struct Engine<T> { t: T }

impl<T> Engine<T> {
    pub fn run(&self) -> u32 {
        self.step();
        Self::helper();
        store::open::<u8>();
        helper()
    }
}

fn helper() -> u32 { 1 }

#[cfg(test)]
mod tests {
    #[test]
    fn works() { super::helper(); assert_eq!(self.check(crate::x::y(1)), inner(2)); }
}
"#;
        let x = extract(Language::Rust, src).unwrap();
        let defs: Vec<_> = x.def_rows();
        assert_eq!(
            defs,
            [
                ("Engine", "struct", false),
                ("Engine", "impl", false),
                ("Engine::run", "method", false),
                ("helper", "function", false),
                ("tests", "module", true),
                ("tests::works", "function", true),
            ]
        );
        assert_eq!(x.defs[2].owner.as_deref(), Some("Engine"));
        assert_eq!(x.defs[2].signature, "pub fn run(&self) -> u32");
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref(), c.path))
            .collect();
        assert_eq!(
            calls,
            [
                ("step", Some("self"), false),
                ("helper", Some("Self"), true),
                ("open", Some("store"), true),
                ("helper", None, false),
                ("helper", Some("super"), true),
                ("check", Some("self"), false),
                ("y", Some("x"), true),
                ("inner", None, false),
            ]
        );
        let imports: Vec<_> = x.import_rows();
        assert_eq!(
            imports,
            [
                ("crate", Some("store"), "store"),
                ("crate::store", Some("Index"), "Idx"),
                ("crate::store", Some("open"), "open"),
                ("std::collections", Some("*"), "*"),
            ]
        );
    }

    #[test]
    fn broken_source_is_still_extracted() {
        #[cfg(feature = "python")]
        {
            let x = extract(Language::Python, b"def ok():\n    pass\n\ndef broken(:\n").unwrap();
            assert!(x.parse_errors > 0);
            assert!(x.defs.iter().any(|d| d.name == "ok"));
        }
    }

    #[cfg(all(feature = "javascript", feature = "rust"))]
    #[test]
    fn deep_nesting_keeps_names_short_and_the_stack_whole() {
        const D: usize = 10_000;
        let js = Language::from_name("javascript").unwrap();
        let mut src = String::new();
        for i in 0..D {
            src.push_str(&format!("function n{i}() {{ "));
        }
        src.push_str(&" }".repeat(D));
        let x = extract(js, src.as_bytes()).unwrap();
        assert_eq!(x.defs.len(), D);
        assert_eq!(x.defs[3].qualname, "n0.n1.n2.n3");
        let deepest = &x.defs[D - 1];
        assert_eq!(
            deepest.qualname,
            format!("n0.\u{2026}.n{}.n{}", D - 2, D - 1)
        );
        let total: usize = x.defs.iter().map(|d| d.qualname.len()).sum();
        assert!(total < 2_000_000, "qualified names total {total} bytes");
        // A use tree 10,000 levels deep: parsed, the deep part not followed.
        let rs = Language::from_name("rust").unwrap();
        let src = format!(
            "use a::{}z{};\nfn after() {{}}\n",
            "{b::".repeat(D),
            "}".repeat(D)
        );
        let x = extract(rs, src.as_bytes()).unwrap();
        assert!(x.defs.iter().any(|d| d.name == "after"));
    }

    /// Versions of one file, each parsed from the parse of the one before (an
    /// insertion in the middle, a deletion, an append, a renamed call, an unclosed
    /// block and its repair, another file altogether): each extracts exactly what a
    /// fresh parse of it does.
    #[cfg(all(feature = "python", feature = "c", feature = "rust"))]
    #[test]
    fn a_parse_from_the_last_one_extracts_what_a_fresh_parse_does() {
        let py = [
            "import os\n\ndef f(a):\n    return g(a)\n\n\ndef g(b):\n    return os.path.join(b)\n",
            "import os\n\ndef f(a):\n    return g(a)\n\n\nclass K:\n    def m(self):\n        self.n(f(1))\n\n\ndef g(b):\n    return os.path.join(b)\n",
            "import os\n\nclass K:\n    def m(self):\n        self.n(f(1))\n\n\ndef g(b):\n    return os.path.join(b)\n",
            "import os\n\nclass K:\n    def m(self):\n        self.n(h(1))\n\n\ndef g(b):\n    return os.path.join(b)\n\ndef h(x):\n    return g(x)\n",
            "import os\n\nclass K:\n    def m(self:\n        self.n(h(1))\n\n\ndef g(b):\n    return os.path.join(b)\n",
            "import os\n\nclass K:\n    def m(self):\n        self.n(h(1))\n\n\ndef g(b):\n    return os.path.join(b)\n",
            "x = 1\n",
        ];
        let c = [
            "#include \"a.h\"\n\nstatic int f(int a)\n{\n\treturn g(a);\n}\n\nint g(int b)\n{\n\treturn kmalloc(b, 0) != 0;\n}\n",
            "#include \"a.h\"\n\nstatic int f(int a)\n{\n\treturn g(a);\n}\n\nstatic __always_inline void *h(void)\n{\n\treturn kzalloc(8, 0);\n}\n\nint g(int b)\n{\n\treturn kmalloc(b, 0) != 0;\n}\n",
            "#include \"a.h\"\n\nstatic __always_inline void *h(void)\n{\n\treturn kzalloc(8, 0);\n}\n\nint g(int b)\n{\n\treturn kmalloc(b, 0) != 0;\n}\nstatic int _added(void) { return (int)strlen(\"x\"); }\n",
            "#include \"a.h\"\n\nstatic __always_inline void *h(void)\n{\n\treturn kzalloc(8, 0;\n}\n\nint g(int b)\n{\n\treturn kmalloc(b, 0) != 0;\n}\n",
            "#include \"a.h\"\n\nstatic __always_inline void *h(void)\n{\n\treturn kzalloc(8, 0);\n}\n\nint g(int b)\n{\n\treturn kfree(b);\n}\n",
        ];
        let rs = [
            "use std::fs;\n\nfn a() -> u8 { b(); 1 }\n\nfn b() { fs::read(\"x\").ok(); }\n",
            "use std::fs;\n\nfn a() -> u8 { b(); 1 }\n\nimpl S { fn m(&self) { self.n(); a(); } }\n\nfn b() { fs::read(\"x\").ok(); }\n",
            "use std::fs;\n\nimpl S { fn m(&self) { self.n(); a(); } }\n\nfn b() { fs::read(\"x\").ok(); }\n",
        ];
        for (lang, versions) in [
            (Language::Python, &py[..]),
            (Language::C, &c[..]),
            (Language::Rust, &rs[..]),
        ] {
            let mut prior = None;
            for (i, v) in versions.iter().enumerate() {
                let (x, next) = extract_again(lang, v.as_bytes(), None, prior).unwrap();
                assert_eq!(
                    x,
                    extract(lang, v.as_bytes()).unwrap(),
                    "{lang:?} version {i}"
                );
                assert!(next.as_ref().is_some_and(|p| p.len() == v.len()));
                prior = next;
            }
        }
        // A parse of another language is no prior: a fresh parse.
        let (_, from_c) = extract_again(Language::C, c[0].as_bytes(), None, None).unwrap();
        let (x, _) = extract_again(Language::Python, py[0].as_bytes(), None, from_c).unwrap();
        assert_eq!(x, extract(Language::Python, py[0].as_bytes()).unwrap());
    }
}
