//! Transitive dead code (analyses.md §3, without the reference's blind spots A1):
//! every function starts dead; entry points (each language's `entry_points`
//! convention in `tsa-lang`, and the decorators below)
//! are alive; liveness flows along resolved call edges with no depth limit; a
//! function still dead whose name occurs in code outside dead functions (a callback
//! passed by name, a call through an alias or a dynamic receiver) is revived, and
//! the walk repeats until nothing changes. Also: unused imports and unreferenced
//! module-level variables, from one identifier scan of the project's files.

use std::collections::BTreeMap;
use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};

use tsa_lang::{Convention, Conventions, Export, Language, ModuleVariables, TestNames};

use crate::ToolError;
use crate::health::model::{
    CALLABLE, Model, Scope, par_map, project_text_files, read_text, scan_identifiers,
};
use crate::health::routes_scan::Route;

/// Decorators/annotations/attributes that do not register a function anywhere
/// (every other one does: routes, fixtures, CLI commands, signal handlers, ...).
const INERT_DECORATORS: &[&str] = &[
    "staticmethod",
    "classmethod",
    "wraps",
    "functools.wraps",
    "lru_cache",
    "functools.lru_cache",
    "cache",
    "functools.cache",
    "contextmanager",
    "contextlib.contextmanager",
    "asynccontextmanager",
    "contextlib.asynccontextmanager",
    // Java / Kotlin / C#
    "Deprecated",
    "SuppressWarnings",
    "SafeVarargs",
    "Nullable",
    "NonNull",
    "NotNull",
    "JvmStatic",
    // Rust attributes
    "doc",
    "allow",
    "warn",
    "deny",
    "inline",
    "cfg",
    "cfg_attr",
    "must_use",
    "deprecated",
    "cold",
    "track_caller",
    "rustfmt::skip",
    "derive",
];

/// Why a function is alive (or, for the last value, still dead).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Alive {
    Test,
    EntryName,
    Dunder,
    Decorated,
    Exported,
    Imported,
    Override,
    RouteHandler,
    ModuleCode,
    ClassApi,
    Reached,
    Referenced,
    /// Public API (trust): callers outside the project cannot be counted.
    PublicApi,
    /// Call sites of its name are unresolved (trust): it may have callers.
    Unresolved,
    /// Its callers are unknowable here (trust): no call graph for a language that
    /// can call it, or its file changed since the index was built.
    Unknown,
}

impl Alive {
    pub fn as_str(self) -> &'static str {
        match self {
            Alive::Test => "test",
            Alive::EntryName => "entry_point_name",
            Alive::Dunder => "dunder",
            Alive::Decorated => "registered_by_decorator",
            Alive::Exported => "exported_api",
            Alive::Imported => "imported_by_other_file",
            Alive::Override => "trait_impl_or_override",
            Alive::RouteHandler => "route_handler",
            Alive::ModuleCode => "called_from_module_code",
            Alive::ClassApi => "public_method_of_shared_class",
            Alive::Reached => "reached_from_entry",
            Alive::Referenced => "referenced_by_name",
            Alive::PublicApi => "public_api",
            Alive::Unresolved => "unresolved_same_name_call_sites",
            Alive::Unknown => "call_graph_unknown",
        }
    }

    /// Whether the function is kept only because its callers cannot be settled
    /// (the trust of the call graph), not because something is known to use it.
    pub fn uncertain(self) -> bool {
        matches!(self, Alive::Unresolved | Alive::Unknown)
    }
}

pub struct DeadOptions {
    pub include_test_files: bool,
    pub want_imports: bool,
    pub want_variables: bool,
}

/// One dead function.
pub struct DeadFunction {
    pub sym: usize,
    pub reason: &'static str,
    pub why: String,
    pub dead_callees: Vec<usize>,
    pub dead_callers: Vec<usize>,
}

pub struct UnusedImport {
    pub file: String,
    pub line: u32,
    pub text: String,
    pub names: Vec<String>,
}

pub struct Variable {
    pub file: String,
    pub name: String,
    pub line: u32,
    pub language: String,
}

pub struct DeadReport {
    /// Every dead function of the project (scope applied by the caller), by file and line.
    pub dead: Vec<DeadFunction>,
    pub total_functions: usize,
    pub total_call_edges: usize,
    pub alive_by: BTreeMap<&'static str, usize>,
    /// Per symbol (model order): why it is alive; `None` for dead functions.
    pub alive: Vec<Option<Alive>>,
    pub unused_imports: Vec<UnusedImport>,
    pub variables: Vec<Variable>,
}

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

/// The conventions of a language named by its index name (`None` for unknown names).
fn conventions(lang: &str) -> Option<&'static Conventions> {
    Language::from_name(lang).map(Language::conventions)
}

fn test_name(lang: &str, name: &str) -> bool {
    let rule = conventions(lang)
        .and_then(|c| c.test_names.get())
        .unwrap_or(&TestNames::GENERIC);
    let lower = name.to_ascii_lowercase();
    let subject = if rule.ignore_case {
        lower.as_str()
    } else {
        name
    };
    rule.prefixes.iter().any(|p| subject.starts_with(p)) || rule.hooks.contains(&name)
}

/// Facts about a definition read from the lines around it.
#[derive(Default, Clone, Copy)]
struct TextFacts {
    decorated: bool,
    exported: bool,
}

/// The decorators/annotations/attributes written right above line `def_line`
/// (1-based), plus those inside the signature line itself.
fn decorators_above(lines: &[&[u8]], def_line: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut j = def_line.saturating_sub(1);
    let mut budget = 16;
    while j > 0 && budget > 0 {
        budget -= 1;
        let t = String::from_utf8_lossy(lines[j - 1]);
        let t = t.trim();
        if t.starts_with('@') || t.starts_with("#[") || (t.starts_with('[') && t.ends_with(']')) {
            out.push(t.to_owned());
        } else if t.is_empty() || t.starts_with("//") || t.starts_with("///") {
            // blank or comment lines between attributes
        } else if t.ends_with(')') || t.ends_with(',') || t.ends_with('(') || t.ends_with(']') {
            // inside a decorator written over several lines: keep looking up
        } else {
            break;
        }
        j -= 1;
    }
    out
}

fn decorator_name(d: &str) -> &str {
    let d = d
        .trim_start_matches('@')
        .trim_start_matches("#[")
        .trim_start_matches('[');
    let end = d
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == ':'))
        .unwrap_or(d.len());
    &d[..end]
}

fn registers(d: &str) -> bool {
    let name = decorator_name(d);
    !name.is_empty() && !INERT_DECORATORS.contains(&name)
}

fn text_facts(
    lang: &str,
    sig: &str,
    lines: &[&[u8]],
    line: usize,
    rust_lib: bool,
    go_main: bool,
    name: &str,
) -> TextFacts {
    let mut f = TextFacts::default();
    let decorators = decorators_above(lines, line);
    f.decorated = decorators.iter().any(|d| registers(d));
    // Annotations inside the signature (Java/Kotlin/C# modifiers).
    let conv = conventions(lang);
    if conv.is_some_and(|c| c.signature_annotations == Convention::Is(true)) {
        for tok in sig.split_whitespace().filter(|t| t.starts_with('@')) {
            if registers(tok) {
                f.decorated = true;
            }
        }
    }
    let own = lines
        .get(line.saturating_sub(1))
        .map(|l| String::from_utf8_lossy(l).trim_start().to_owned())
        .unwrap_or_default();
    f.exported = match conv.and_then(|c| c.export.get()) {
        Some(Export::PubInLibrary) => rust_lib && sig.starts_with("pub "),
        Some(Export::ExportStatement) => {
            own.starts_with("export ")
                || own.starts_with("module.exports")
                || own.starts_with("exports.")
        }
        Some(Export::Capitalised) => {
            !go_main && name.chars().next().is_some_and(char::is_uppercase)
        }
        None => false,
    };
    f
}

/// What the language's `export` convention needs of a file: whether it is in a
/// library (not a binary crate), whether it is a `main` package.
fn export_scope(language: &str, path: &str, text: &[u8]) -> (bool, bool) {
    let export = conventions(language).and_then(|c| c.export.get().copied());
    (
        export == Some(Export::PubInLibrary) && !rust_binary_file(path),
        export == Some(Export::Capitalised) && go_package_main(text),
    )
}

/// Rust files that belong to a binary, not a library crate.
fn rust_binary_file(path: &str) -> bool {
    path.ends_with("src/main.rs")
        || path == "main.rs"
        || path.contains("src/bin/")
        || path.ends_with("build.rs")
        || path.starts_with("examples/")
        || path.contains("/examples/")
        || path.starts_with("benches/")
}

fn go_package_main(text: &[u8]) -> bool {
    text.split(|b| *b == b'\n')
        .take(200)
        .any(|l| l.starts_with(b"package main"))
}

/// Module-level variable declarations found by line (Python, JS/TS), 1-based lines.
fn line_variables(style: ModuleVariables, lines: &[&[u8]]) -> Vec<(String, u32)> {
    let python = style == ModuleVariables::AssignmentLines;
    let mut out = Vec::new();
    let mut in_string: Option<&[u8]> = None;
    let mut depth: i32 = 0;
    for (i, raw) in lines.iter().enumerate() {
        let l = *raw;
        // Track triple-quoted strings (Python) and open brackets crudely.
        let at_top = depth <= 0 && in_string.is_none();
        if python {
            for q in [&b"\"\"\""[..], &b"'''"[..]] {
                let n = l.windows(3).filter(|w| *w == q).count();
                if n % 2 == 1 {
                    in_string = match in_string {
                        Some(open) if open == q => None,
                        None => Some(q),
                        other => other,
                    };
                }
            }
        }
        for b in l.iter() {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b'#' if python => break,
                _ => {}
            }
        }
        if depth < 0 {
            depth = 0;
        }
        if !at_top || l.first().is_none_or(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let text = String::from_utf8_lossy(l);
        let decl = match python {
            true => {
                let name_end = text
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(text.len());
                let (name, rest) = text.split_at(name_end);
                let rest = rest.trim_start();
                let assign = (rest.starts_with('=') && !rest.starts_with("=="))
                    || (rest.starts_with(':') && rest.contains('=') && !rest.contains("=="));
                (assign && !name.is_empty()).then(|| name.to_owned())
            }
            _ => {
                let t = text.as_ref();
                let t = t
                    .strip_prefix("const ")
                    .or_else(|| t.strip_prefix("let "))
                    .or_else(|| t.strip_prefix("var "));
                t.and_then(|t| {
                    let end = t
                        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                        .unwrap_or(t.len());
                    let (name, rest) = t.split_at(end);
                    let rest = rest.trim_start();
                    let is_fn = rest.contains("=>") || rest.contains("function");
                    (!name.is_empty() && (rest.starts_with('=') || rest.starts_with(':')) && !is_fn)
                        .then(|| name.to_owned())
                })
            }
        };
        if let Some(name) = decl
            && name.chars().next().is_some_and(|c| !c.is_ascii_digit())
            && !is_dunder(&name)
            && name != "_"
        {
            out.push((name, i as u32 + 1));
        }
    }
    out
}

/// The lines an import statement starting at `line` (1-based) spans (brackets balanced).
fn statement_span(lines: &[&[u8]], line: usize) -> (usize, usize) {
    let mut depth = 0i32;
    let mut end = line;
    for (k, l) in lines
        .iter()
        .enumerate()
        .skip(line.saturating_sub(1))
        .take(200)
    {
        for b in l.iter() {
            match b {
                b'(' | b'{' | b'[' => depth += 1,
                b')' | b'}' | b']' => depth -= 1,
                _ => {}
            }
        }
        end = k + 1;
        let trimmed = l.trim_ascii_end();
        if depth <= 0 && !trimmed.ends_with(b"\\") && !trimmed.ends_with(b",") {
            break;
        }
    }
    (line, end)
}

fn is_plain_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_' || b[0] == b'$')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$')
}

/// Per indexed file, what the first pass learned.
struct FilePass {
    facts: Vec<(usize, TextFacts)>,
    variables: Vec<(String, u32)>,
}

/// Asked with the functions still dead once nothing else revives them (model
/// indices, each asked once); answers those whose callers cannot be settled (public
/// API, unresolved same-name call sites, an unknown graph), which are then kept
/// alive with that reason and revive what they call.
pub type TrustHook<'a> = dyn FnMut(&[usize]) -> Result<Vec<(usize, Alive)>, ToolError> + 'a;

/// Runs the whole analysis. `routes` are the project's route handlers (alive).
pub fn analyse(
    root: &Path,
    model: &Model,
    routes: &[Route],
    scope: &Scope,
    opts: &DeadOptions,
    trust: &mut TrustHook<'_>,
) -> Result<DeadReport, ToolError> {
    let n = model.syms.len();
    let file_lang = |fid: i64| model.file(fid).map_or("", |f| f.language.as_str());
    let file_is_test = |fid: i64| model.file(fid).is_some_and(|f| f.is_test);
    let candidate: Vec<bool> = model
        .syms
        .iter()
        .map(|s| CALLABLE.contains(&s.kind.as_str()))
        .collect();
    let mut alive: Vec<Option<Alive>> = vec![None; n];

    // Symbols per file, for the text pass.
    let mut by_file: FxHashMap<i64, Vec<usize>> = FxHashMap::default();
    for (i, s) in model.syms.iter().enumerate() {
        by_file.entry(s.file_id).or_default().push(i);
    }

    // Pass 1: text facts (decorators, exports) and line-declared variables.
    let file_ids: Vec<i64> = model.files.iter().map(|f| f.id).collect();
    let passes: Vec<(i64, FilePass)> = par_map(&file_ids, |fid| {
        let f = model.file(*fid).expect("listed file");
        let mut pass = FilePass {
            facts: Vec::new(),
            variables: Vec::new(),
        };
        let Some(text) = read_text(root, &f.path) else {
            return (*fid, pass);
        };
        let lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
        let (rust_lib, go_main) = export_scope(&f.language, &f.path, &text);
        for &i in by_file.get(fid).map(Vec::as_slice).unwrap_or(&[]) {
            let s = &model.syms[i];
            if !CALLABLE.contains(&s.kind.as_str()) {
                continue;
            }
            let facts = text_facts(
                &f.language,
                &s.signature,
                &lines,
                s.line as usize,
                rust_lib,
                go_main,
                &s.name,
            );
            if facts.decorated || facts.exported {
                pass.facts.push((i, facts));
            }
        }
        let style = conventions(&f.language).and_then(|c| c.module_variables.get());
        if opts.want_variables
            && scope.holds(&f.path)
            && (opts.include_test_files || !f.is_test)
            && let Some(
                &style @ (ModuleVariables::AssignmentLines | ModuleVariables::DeclarationLines),
            ) = style
        {
            pass.variables = line_variables(style, &lines);
        }
        (*fid, pass)
    });

    // Seeds.
    for (_, pass) in &passes {
        for (i, facts) in &pass.facts {
            if facts.decorated {
                alive[*i].get_or_insert(Alive::Decorated);
            } else if facts.exported {
                alive[*i].get_or_insert(Alive::Exported);
            }
        }
    }
    let imported: FxHashSet<i64> = model
        .imports
        .iter()
        .filter_map(|i| {
            i.target_id
                .filter(|t| model.sym(*t).is_some_and(|s| s.file_id != i.file_id))
        })
        .collect();
    // Methods of a type: type symbol -> method names.
    let mut methods_of: FxHashMap<i64, FxHashSet<&str>> = FxHashMap::default();
    for s in &model.syms {
        if let Some(p) = s.parent
            && CALLABLE.contains(&s.kind.as_str())
        {
            methods_of.entry(p).or_default().insert(s.name.as_str());
        }
    }
    let mut bases_of: FxHashMap<i64, Vec<&tsa_index::HealthBase>> = FxHashMap::default();
    for b in &model.bases {
        bases_of.entry(b.symbol).or_default().push(b);
    }
    // Whether method `name` of type `ty` overrides/implements something.
    let overrides = |ty: i64, name: &str| -> bool {
        let mut stack = vec![ty];
        let mut seen = FxHashSet::default();
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            for b in bases_of.get(&t).into_iter().flatten() {
                match b.target {
                    Some(bt) => {
                        if methods_of.get(&bt).is_some_and(|m| m.contains(name)) {
                            return true;
                        }
                        stack.push(bt);
                    }
                    // A base outside the project (or unresolved) may declare it.
                    None => {
                        if !matches!(b.base_name.as_str(), "object" | "Object") {
                            return true;
                        }
                    }
                }
            }
        }
        false
    };
    let route_handlers: FxHashSet<(&str, &str)> = routes
        .iter()
        .map(|r| (r.file.as_str(), r.handler.as_str()))
        .collect();
    for (i, s) in model.syms.iter().enumerate() {
        if !candidate[i] {
            alive[i] = Some(Alive::ModuleCode);
            continue;
        }
        if alive[i].is_some() {
            continue;
        }
        let lang = file_lang(s.file_id);
        let in_test_file = file_is_test(s.file_id);
        let parent = s.parent.and_then(|p| model.sym(p));
        let test_entry = if in_test_file {
            !opts.include_test_files || test_name(lang, &s.name)
        } else {
            s.is_test
        };
        let why = if test_entry {
            Some(Alive::Test)
        } else if conventions(lang)
            .and_then(|c| c.entry_points.get())
            .is_some_and(|e| {
                e.names.contains(&s.name.as_str())
                    || e.prefixes.iter().any(|p| s.name.starts_with(p))
            })
        {
            Some(Alive::EntryName)
        } else if is_dunder(&s.name) {
            Some(Alive::Dunder)
        } else if imported.contains(&s.id) {
            Some(Alive::Imported)
        } else if route_handlers.contains(&(model.path_of(s.file_id), s.name.as_str())) {
            Some(Alive::RouteHandler)
        } else if let Some(p) = parent
            && (matches!(p.kind.as_str(), "trait" | "interface")
                || (p.kind == "impl" && bases_of.contains_key(&p.id))
                || (p.kind != "impl" && overrides(p.id, &s.name)))
        {
            Some(Alive::Override)
        } else {
            None
        };
        alive[i] = why;
    }

    // The call graph in memory: caller index -> target indices.
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut in_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut call_lines: FxHashSet<(i64, u32, i64)> = FxHashSet::default();
    for e in &model.edges {
        let Some(&t) = model.sym_at.get(&e.target) else {
            continue;
        };
        call_lines.insert((e.file_id, e.line, e.callee_name_id));
        match e.caller.and_then(|c| model.sym_at.get(&c).copied()) {
            Some(c) => {
                if c != t {
                    out_edges[c].push(t);
                    in_edges[t].push(c);
                }
            }
            None => {
                if candidate[t] && alive[t].is_none() {
                    alive[t] = Some(Alive::ModuleCode);
                }
            }
        }
    }
    for v in out_edges.iter_mut().chain(in_edges.iter_mut()) {
        v.sort_unstable();
        v.dedup();
    }
    let mut alive_by: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (i, a) in alive.iter().enumerate() {
        if candidate[i]
            && let Some(a) = a
        {
            *alive_by.entry(a.as_str()).or_default() += 1;
        }
    }
    let propagate = |alive: &mut Vec<Option<Alive>>,
                     from: Vec<usize>,
                     alive_by: &mut BTreeMap<&'static str, usize>| {
        let mut queue = from;
        while let Some(v) = queue.pop() {
            for &w in &out_edges[v] {
                if alive[w].is_none() {
                    alive[w] = Some(Alive::Reached);
                    *alive_by.entry(Alive::Reached.as_str()).or_default() += 1;
                    queue.push(w);
                }
            }
        }
    };
    let seeds: Vec<usize> = (0..n).filter(|&i| alive[i].is_some()).collect();
    propagate(&mut alive, seeds, &mut alive_by);

    // Pass 2: one identifier scan of every text file for the names still dead (and
    // the variables), then revive by textual reference until a fixpoint.
    let mut interest: FxHashMap<&[u8], u32> = FxHashMap::default();
    let mut interest_names: Vec<&str> = Vec::new();
    for (i, s) in model.syms.iter().enumerate() {
        if candidate[i] && alive[i].is_none() && !interest.contains_key(s.name.as_bytes()) {
            interest.insert(s.name.as_bytes(), interest_names.len() as u32);
            interest_names.push(s.name.as_str());
        }
    }
    // Classes with a dead public method: is the class used from another file?
    let mut api_classes: Vec<usize> = Vec::new();
    for (i, s) in model.syms.iter().enumerate() {
        if candidate[i]
            && alive[i].is_none()
            && !s.name.starts_with('_')
            && conventions(file_lang(s.file_id))
                .is_some_and(|c| c.class_methods_are_api == Convention::Is(true))
            && let Some(&p) = s.parent.as_ref().and_then(|p| model.sym_at.get(p))
            && !candidate[p]
        {
            api_classes.push(p);
        }
    }
    api_classes.sort_unstable();
    api_classes.dedup();
    for &c in &api_classes {
        let name = model.syms[c].name.as_str();
        if !interest.contains_key(name.as_bytes()) {
            interest.insert(name.as_bytes(), interest_names.len() as u32);
            interest_names.push(name);
        }
    }
    // Module-level `variable` definitions of the other languages (Rust const/static,
    // Go var/const, ...), unless exported.
    let indexed_vars: Vec<usize> = if opts.want_variables {
        model
            .syms
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                let path = model.path_of(s.file_id);
                let conv = conventions(file_lang(s.file_id));
                let export = conv.and_then(|c| c.export.get());
                s.kind == "variable"
                    && s.parent.is_none()
                    && conv.is_none_or(|c| {
                        !matches!(
                            c.module_variables,
                            Convention::NotApplicable
                                | Convention::Is(
                                    ModuleVariables::AssignmentLines
                                        | ModuleVariables::DeclarationLines
                                )
                        )
                    })
                    && scope.holds(path)
                    && (opts.include_test_files || !file_is_test(s.file_id))
                    && !(export == Some(&Export::PubInLibrary) && s.signature.starts_with("pub"))
                    && !(export == Some(&Export::Capitalised)
                        && s.name.chars().next().is_some_and(char::is_uppercase))
                    && !is_dunder(&s.name)
            })
            .map(|(i, _)| i)
            .collect()
    } else {
        Vec::new()
    };
    for &i in &indexed_vars {
        let name = model.syms[i].name.as_str();
        if !interest.contains_key(name.as_bytes()) {
            interest.insert(name.as_bytes(), interest_names.len() as u32);
            interest_names.push(name);
        }
    }
    for (_, pass) in &passes {
        for (name, _) in &pass.variables {
            if !interest.contains_key(name.as_bytes()) {
                interest.insert(name.as_bytes(), interest_names.len() as u32);
                interest_names.push(name.as_str());
            }
        }
    }
    // Imports per file (the local names to look for in that file).
    let mut imports_by_file: FxHashMap<&str, Vec<&tsa_index::HealthImport>> = FxHashMap::default();
    if opts.want_imports {
        for imp in &model.imports {
            let path = model.path_of(imp.file_id);
            if scope.holds(path) && (opts.include_test_files || !file_is_test(imp.file_id)) {
                imports_by_file.entry(path).or_default().push(imp);
            }
        }
    }
    let path_to_file: FxHashMap<&str, i64> = model
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.id))
        .collect();
    let text_files = project_text_files(root);
    // (file key, line) occurrences per interesting name; the file key is the index
    // into `text_files`.
    struct Scanned {
        occ: Vec<(u32, u32)>,
        unused: Vec<(u32, String, Vec<String>)>,
    }
    let scanned: Vec<Scanned> = par_map(&text_files, |(_, rel)| {
        let mut out = Scanned {
            occ: Vec::new(),
            unused: Vec::new(),
        };
        if interest.is_empty() && !imports_by_file.contains_key(rel.as_str()) {
            return out;
        }
        let Some(text) = read_text(root, rel) else {
            return out;
        };
        let imps = imports_by_file.get(rel.as_str());
        let mut local: FxHashMap<&[u8], Vec<u32>> = FxHashMap::default();
        if let Some(imps) = imps {
            for imp in imps {
                if is_plain_ident(&imp.alias) {
                    local.entry(imp.alias.as_bytes()).or_default();
                }
            }
        }
        scan_identifiers(&text, |tok, line| {
            if let Some(&k) = interest.get(tok) {
                out.occ.push((k, line));
            }
            if !local.is_empty()
                && let Some(v) = local.get_mut(tok)
            {
                v.push(line);
            }
        });
        if let Some(imps) = imps {
            let lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
            let fid = path_to_file.get(rel.as_str()).copied();
            let lang = fid.map_or("", file_lang);
            let base = rel.rsplit('/').next().unwrap_or(rel);
            let barrel = base == "__init__.py"
                || base.starts_with("index.")
                || base == "mod.rs"
                || base == "lib.rs";
            let mut by_line: BTreeMap<u32, Vec<String>> = BTreeMap::new();
            for imp in imps {
                if barrel
                    || !is_plain_ident(&imp.alias)
                    || imp.alias == "_"
                    || is_dunder(&imp.alias)
                    || imp.module == "__future__"
                {
                    continue;
                }
                let (start, end) = statement_span(&lines, imp.line as usize);
                let first = lines
                    .get(start.saturating_sub(1))
                    .map(|l| String::from_utf8_lossy(l).trim().to_owned())
                    .unwrap_or_default();
                // Re-exports, and imports kept on purpose (`# noqa`: side effects).
                if first.starts_with("pub ")
                    || first.starts_with("pub(")
                    || first.starts_with("export ")
                    || first.to_ascii_lowercase().contains("noqa")
                {
                    continue;
                }
                // Rust: an unresolved capitalised import may be a trait used for its methods.
                if lang == "rust"
                    && imp.target_id.is_none()
                    && imp.alias.chars().next().is_some_and(char::is_uppercase)
                {
                    continue;
                }
                let used = local.get(imp.alias.as_bytes()).is_some_and(|ls| {
                    ls.iter()
                        .any(|&l| (l as usize) < start || (l as usize) > end)
                });
                if !used {
                    by_line.entry(imp.line).or_default().push(imp.alias.clone());
                }
            }
            for (line, mut names) in by_line {
                names.sort();
                names.dedup();
                let (start, end) = statement_span(&lines, line as usize);
                let mut text: String = lines[start.saturating_sub(1)..end.min(lines.len())]
                    .iter()
                    .map(|l| String::from_utf8_lossy(l).trim().to_owned())
                    .collect::<Vec<_>>()
                    .join(" ");
                if text.chars().count() > 200 {
                    text = text.chars().take(200).collect::<String>() + "…";
                }
                out.unused.push((line, text, names));
            }
        }
        out
    });

    // Occurrences per name: (indexed file id or -1 for other files, line).
    let mut occ: Vec<Vec<(i64, u32)>> = vec![Vec::new(); interest_names.len()];
    let mut unused_imports = Vec::new();
    for ((_, rel), s) in text_files.iter().zip(&scanned) {
        let fid = path_to_file.get(rel.as_str()).copied().unwrap_or(-1);
        for &(k, line) in &s.occ {
            occ[k as usize].push((fid, line));
        }
        for (line, text, names) in &s.unused {
            unused_imports.push(UnusedImport {
                file: rel.clone(),
                line: *line,
                text: text.clone(),
                names: names.clone(),
            });
        }
    }
    drop(scanned);
    // Definition lines of callables, per (file, line).
    let def_lines: FxHashSet<(i64, u32)> = model
        .syms
        .iter()
        .enumerate()
        .filter(|(i, _)| candidate[*i])
        .map(|(_, s)| (s.file_id, s.line))
        .collect();
    let name_ids: FxHashMap<&str, i64> = model
        .syms
        .iter()
        .map(|s| (s.name.as_str(), s.name_id))
        .collect();
    // Public methods of classes used from another file (imported, or named there).
    let shared: FxHashSet<usize> = api_classes
        .iter()
        .copied()
        .filter(|&c| {
            let cls = &model.syms[c];
            imported.contains(&cls.id)
                || interest
                    .get(cls.name.as_bytes())
                    .is_some_and(|&k| occ[k as usize].iter().any(|&(fid, _)| fid != cls.file_id))
        })
        .collect();
    let api: Vec<usize> = (0..n)
        .filter(|&i| {
            let s = &model.syms[i];
            candidate[i]
                && alive[i].is_none()
                && !s.name.starts_with('_')
                && s.parent
                    .and_then(|p| model.sym_at.get(&p))
                    .is_some_and(|p| shared.contains(p))
        })
        .collect();
    for &i in &api {
        alive[i] = Some(Alive::ClassApi);
        *alive_by.entry(Alive::ClassApi.as_str()).or_default() += 1;
    }
    propagate(&mut alive, api, &mut alive_by);
    let mut asked = vec![false; n];
    loop {
        // Dead ranges per file.
        let mut dead_ranges: FxHashMap<i64, Vec<(u32, u32)>> = FxHashMap::default();
        for (i, s) in model.syms.iter().enumerate() {
            if candidate[i] && alive[i].is_none() {
                dead_ranges
                    .entry(s.file_id)
                    .or_default()
                    .push((s.line, s.end_line.max(s.line)));
            }
        }
        let in_dead = |fid: i64, line: u32| {
            dead_ranges
                .get(&fid)
                .is_some_and(|rs| rs.iter().any(|(a, b)| *a <= line && line <= *b))
        };
        let mut revived = Vec::new();
        for (i, s) in model.syms.iter().enumerate() {
            if !candidate[i] || alive[i].is_some() {
                continue;
            }
            let Some(&k) = interest.get(s.name.as_bytes()) else {
                continue;
            };
            let nid = name_ids.get(s.name.as_str()).copied().unwrap_or(-1);
            let referenced = occ[k as usize].iter().any(|&(fid, line)| {
                if fid < 0 {
                    return true;
                }
                !def_lines.contains(&(fid, line))
                    && !call_lines.contains(&(fid, line, nid))
                    && !in_dead(fid, line)
            });
            if referenced {
                revived.push(i);
            }
        }
        if revived.is_empty() {
            // Nothing known revives the rest: ask the trust of the call graph once
            // per function whether its callers are settled at all.
            let pending: Vec<usize> = (0..n)
                .filter(|&i| candidate[i] && alive[i].is_none() && !asked[i])
                .collect();
            if pending.is_empty() {
                break;
            }
            for &i in &pending {
                asked[i] = true;
            }
            let kept = trust(&pending)?;
            if kept.is_empty() {
                break;
            }
            let mut seeds = Vec::new();
            for (i, why) in kept {
                if alive[i].is_none() {
                    alive[i] = Some(why);
                    *alive_by.entry(why.as_str()).or_default() += 1;
                    seeds.push(i);
                }
            }
            propagate(&mut alive, seeds, &mut alive_by);
            continue;
        }
        for &i in &revived {
            alive[i] = Some(Alive::Referenced);
            *alive_by.entry(Alive::Referenced.as_str()).or_default() += 1;
        }
        propagate(&mut alive, revived, &mut alive_by);
    }

    // Dead functions with their reasons.
    let mut dead = Vec::new();
    for (i, _) in model.syms.iter().enumerate() {
        if !candidate[i] || alive[i].is_some() {
            continue;
        }
        let callers: Vec<usize> = in_edges[i].clone();
        let dead_callees: Vec<usize> = out_edges[i]
            .iter()
            .copied()
            .filter(|&t| candidate[t] && alive[t].is_none())
            .collect();
        let (reason, why) = if !callers.is_empty() {
            let names: Vec<String> = callers
                .iter()
                .take(3)
                .map(|&c| model.syms[c].qualname.clone())
                .collect();
            (
                "unreachable_from_entry",
                format!(
                    "called only by dead code ({}{}); not an entry point and not referenced elsewhere",
                    names.join(", "),
                    if callers.len() > 3 { ", ..." } else { "" }
                ),
            )
        } else if out_edges[i].is_empty() {
            (
                "orphan_no_callers_no_callees",
                "no caller, no callee, not an entry point, and its name occurs nowhere else"
                    .to_owned(),
            )
        } else {
            (
                "no_callers_has_dead_callees",
                "no caller and not an entry point; its name occurs nowhere else".to_owned(),
            )
        };
        dead.push(DeadFunction {
            sym: i,
            reason,
            why,
            dead_callees,
            dead_callers: callers,
        });
    }
    dead.sort_by(|a, b| {
        let (x, y) = (&model.syms[a.sym], &model.syms[b.sym]);
        model
            .path_of(x.file_id)
            .cmp(model.path_of(y.file_id))
            .then(x.line.cmp(&y.line))
    });

    // Unreferenced variables: line-declared (Python, JS/TS) and indexed `variable`
    // definitions at module level elsewhere.
    let mut variables = Vec::new();
    if opts.want_variables {
        let importers: FxHashMap<i64, FxHashSet<i64>> = {
            let mut m: FxHashMap<i64, FxHashSet<i64>> = FxHashMap::default();
            for imp in &model.imports {
                if let Some(t) = imp.target_file_id {
                    m.entry(t).or_default().insert(imp.file_id);
                }
            }
            m
        };
        let function_names: FxHashSet<(i64, &str)> = model
            .syms
            .iter()
            .map(|s| (s.file_id, s.name.as_str()))
            .collect();
        let referenced = |fid: i64, name: &str, def_line: u32| -> bool {
            let Some(&k) = interest.get(name.as_bytes()) else {
                return true;
            };
            occ[k as usize].iter().any(|&(f, l)| {
                (f == fid && l != def_line)
                    || importers.get(&fid).is_some_and(|imp| imp.contains(&f))
            })
        };
        for (fid, pass) in &passes {
            let f = model.file(*fid).expect("listed file");
            for (name, line) in &pass.variables {
                if function_names.contains(&(*fid, name.as_str())) {
                    continue;
                }
                if !referenced(*fid, name, *line) {
                    variables.push(Variable {
                        file: f.path.clone(),
                        name: name.clone(),
                        line: *line,
                        language: f.language.clone(),
                    });
                }
            }
        }
        for &i in &indexed_vars {
            let s = &model.syms[i];
            if !referenced(s.file_id, &s.name, s.line) {
                variables.push(Variable {
                    file: model.path_of(s.file_id).to_owned(),
                    name: s.name.clone(),
                    line: s.line,
                    language: file_lang(s.file_id).to_owned(),
                });
            }
        }
        variables.sort_by(|a, b| a.file.cmp(&b.file).then(a.line.cmp(&b.line)));
    }
    unused_imports.sort_by(|a, b| a.file.cmp(&b.file).then(a.line.cmp(&b.line)));
    let total_functions = candidate.iter().filter(|c| **c).count();
    Ok(DeadReport {
        dead,
        total_functions,
        total_call_edges: model.edges.len(),
        alive_by,
        alive,
        unused_imports,
        variables,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::health::routes_scan::scan_project;

    fn lines(src: &str) -> Vec<&[u8]> {
        src.as_bytes().split(|b| *b == b'\n').collect()
    }

    #[test]
    fn registering_decorators_keep_functions_alive() {
        let src = "@app.route('/x')\ndef a():\n    pass\n\n@staticmethod\ndef b():\n    pass\n\n@pytest.fixture(\n    scope='module',\n)\ndef c():\n    pass\n";
        let l = lines(src);
        let facts = |line| text_facts("python", "def f()", &l, line, false, false, "f");
        assert!(facts(2).decorated);
        assert!(!facts(6).decorated, "staticmethod registers nothing");
        assert!(facts(12).decorated, "multi-line decorator");
        let java = "    @Override\n    public String toString() { return \"\"; }\n";
        let jl = lines(java);
        assert!(
            text_facts(
                "java",
                "public String toString()",
                &jl,
                2,
                false,
                false,
                "toString"
            )
            .decorated
        );
        assert!(
            text_facts(
                "java",
                "@GetMapping(\"/x\") public String x()",
                &jl,
                1,
                false,
                false,
                "x"
            )
            .decorated
        );
        let rust = "#[test]\nfn t() {}\n#[inline]\nfn i() {}\n";
        let rl = lines(rust);
        assert!(text_facts("rust", "fn t()", &rl, 2, true, false, "t").decorated);
        assert!(!text_facts("rust", "fn i()", &rl, 4, true, false, "i").decorated);
    }

    #[test]
    fn exported_api_per_language() {
        let none: Vec<&[u8]> = vec![b""];
        assert!(text_facts("rust", "pub fn api()", &none, 1, true, false, "api").exported);
        assert!(
            !text_facts("rust", "pub fn api()", &none, 1, false, false, "api").exported,
            "binary crate"
        );
        assert!(!text_facts("rust", "pub(crate) fn api()", &none, 1, true, false, "api").exported);
        assert!(text_facts("go", "func Open()", &none, 1, false, false, "Open").exported);
        assert!(
            !text_facts("go", "func Open()", &none, 1, false, true, "Open").exported,
            "package main"
        );
        assert!(!text_facts("go", "func open()", &none, 1, false, false, "open").exported);
        let js = lines("export function api() {}\nfunction local() {}\n");
        assert!(text_facts("typescript", "function api()", &js, 1, false, false, "api").exported);
        assert!(
            !text_facts(
                "typescript",
                "function local()",
                &js,
                2,
                false,
                false,
                "local"
            )
            .exported
        );
        assert!(rust_binary_file("src/main.rs") && rust_binary_file("x/src/bin/tool.rs"));
        assert!(!rust_binary_file("src/lib.rs"));
        assert!(go_package_main(b"// doc\npackage main\n"));
    }

    #[test]
    fn entry_names_and_tests() {
        let names = |lang: &str| {
            conventions(lang)
                .and_then(|c| c.entry_points.get())
                .map_or(&[][..], |e| e.names)
        };
        assert!(names("python").contains(&"main"));
        assert!(names("go").contains(&"init"));
        assert!(names("java").contains(&"doGet"));
        assert!(test_name("python", "test_x") && test_name("python", "setUp"));
        assert!(test_name("go", "TestX") && !test_name("go", "helper"));
        assert!(is_dunder("__init__") && !is_dunder("__x"));
    }

    #[test]
    fn variables_and_import_spans_by_line() {
        let py = lines(
            "X = 1\nY: int = 2\nif X == 1:\n    Z = 3\nDOC = \"\"\"\nW = 4\n\"\"\"\nf(a=1)\n__all__ = []\nd = {\n    'k': 1,\n}\n",
        );
        let vars: Vec<String> = line_variables(ModuleVariables::AssignmentLines, &py)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(vars, vec!["X", "Y", "DOC", "d"]);
        let js = lines("const A = 1;\nexport const B = 2;\nconst f = () => 1;\nlet c = 3;\n");
        let vars: Vec<String> = line_variables(ModuleVariables::DeclarationLines, &js)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(vars, vec!["A", "c"]);
        let imp = lines("from x import (\n    a,\n    b,\n)\nimport y\n");
        assert_eq!(statement_span(&imp, 1), (1, 4));
        assert_eq!(statement_span(&imp, 5), (5, 5));
    }

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        crate::test_support::index_of(files).0
    }

    fn dead_names(dir: &tempfile::TempDir) -> Vec<String> {
        let index = tsa_index::Index::open(dir.path()).unwrap().unwrap();
        let model = Model::load(&index).unwrap();
        let files: Vec<String> = model.files.iter().map(|f| f.path.clone()).collect();
        let routes = scan_project(dir.path(), &files);
        let report = analyse(
            dir.path(),
            &model,
            &routes,
            &Scope::default(),
            &DeadOptions {
                include_test_files: false,
                want_imports: true,
                want_variables: true,
            },
            &mut |_| Ok(Vec::new()),
        )
        .unwrap();
        report
            .dead
            .iter()
            .map(|d| model.syms[d.sym].qualname.clone())
            .collect()
    }

    #[test]
    fn dead_code_is_transitive_and_callbacks_revive() {
        let dir = project(&[
            (
                "m.py",
                "def a():\n    return b()\n\n\ndef b():\n    return c()\n\n\ndef c():\n    return 1\n\n\ndef cb(x):\n    return x\n\n\ndef main():\n    return sorted([1], key=cb)\n\n\nif __name__ == '__main__':\n    main()\n",
            ),
            (
                "web.ts",
                "export function api(): number { return helper(); }\nfunction helper(): number { return 1; }\nfunction unused(): number { return 2; }\n",
            ),
            (
                "svc.go",
                "package svc\n\nfunc Public() int { return private() }\n\nfunc private() int { return 1 }\n\nfunc lonely() int { return 2 }\n",
            ),
        ]);
        let dead = dead_names(&dir);
        assert_eq!(dead, vec!["a", "b", "c", "lonely", "unused"]);
    }

    #[test]
    fn a_chain_revived_by_a_live_reference_comes_back_whole() {
        // `start` is only passed by name from live code; it calls `step`, which
        // calls `finish`: all three are alive once the reference is seen.
        let dir = project(&[(
            "m.py",
            "import threading\n\n\ndef start():\n    return step()\n\n\ndef step():\n    return finish()\n\n\ndef finish():\n    return 1\n\n\ndef main():\n    threading.Thread(target=start).start()\n",
        )]);
        assert!(dead_names(&dir).is_empty());
    }

    #[test]
    fn shared_class_api_and_dispatch_prefixes_stay_alive() {
        let dir = project(&[
            (
                "lib.py",
                "class Shape:\n    def area(self):\n        return 1\n\n    def _secret(self):\n        return 2\n\n\nclass Local:\n    def unused(self):\n        return 3\n\n\nclass V:\n    def visit_Name(self, node):\n        return node\n",
            ),
            ("use.py", "from lib import Shape\n\nSHAPE = Shape\n"),
        ]);
        // `Shape` is used from another file: its public method is API; the private
        // one and the public method of a class used nowhere else are dead;
        // `visit_*` is dispatched by constructed name.
        assert_eq!(dead_names(&dir), vec!["Shape._secret", "Local.unused"]);
    }
}
