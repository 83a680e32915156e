//! `edit plan_rename` / `edit rename`: renaming one module-level Python function or
//! class and every reference that can be proven to bind to it, editing identifier
//! tokens only. A plan lists its sites, the content hash of every file it touches,
//! and a `plan_id` bound to both; applying requires that id and re-plans from the
//! disk: any difference refuses (nothing written). Writes are atomic per file and
//! all-or-nothing across files.
//!
//! What can reach the symbol and cannot be proven (dynamic access in a file that
//! imports its module, a star import of it, a string annotation naming it, a second
//! binding of either name where it is used) rejects the plan with a stable code and
//! its `file:line`; what cannot reach it (`obj.old` on another object, `getattr` in a
//! file that never imports the module) is listed, not edited, and does not block.

mod python;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Mutex;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tsa_lang::{Language, Tier};

use crate::ToolError;
use python::{FileFacts, Role, Span};

/// Sites listed in an answer (the plan applies all of them).
pub const SITES_LISTED: usize = 500;
/// Mentions listed that are not edited.
const MENTIONS_LISTED: usize = 50;
/// Python keywords (a new name may not be one).
const KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// One edit of the plan.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Site {
    pub file: String,
    pub line: u32,
    /// 0-based, in characters.
    pub column: u32,
    pub old_text: String,
    /// `definition`, `import`, `reference`, `attribute_reference`, `export`.
    pub site_type: &'static str,
    #[serde(skip)]
    start: usize,
}

/// Why a plan cannot be applied.
#[derive(Clone, Debug, Serialize)]
pub struct Rejection {
    pub code: &'static str,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub message: String,
}

/// A mention of the old name that is not edited (it cannot bind to the symbol).
#[derive(Clone, Debug, Serialize)]
pub struct Mention {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub kind: &'static str,
}

/// One file the plan rewrites.
#[derive(Clone, Debug)]
pub struct FileEdit {
    pub path: String,
    pub sha256: String,
    original: Vec<u8>,
    rendered: Vec<u8>,
}

/// A rename plan.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub symbol: String,
    pub new_name: String,
    /// The definition: file and line.
    pub definition: Option<(String, u32)>,
    /// Every site, sorted by (file, line, column).
    pub sites: Vec<Site>,
    pub files: Vec<FileEdit>,
    pub errors: Vec<Rejection>,
    pub warnings: Vec<String>,
    pub unrelated: Vec<Mention>,
    pub unrelated_total: usize,
    /// Why the symbol is public API (callers outside the project are not renamed).
    pub public_api: Option<String>,
    /// The modules the symbol can be imported from (its own and one-level re-exporters).
    via_modules: Vec<String>,
}

/// What planning found.
pub enum Planned {
    /// No definition of the name anywhere.
    NotFound,
    Plan(Box<Plan>),
}

/// The argument rules: both names identifiers, different, the new one no keyword,
/// neither private-mangled nor reserved.
pub fn validate(old: &str, new: &str) -> Result<(), String> {
    if old.trim().is_empty() {
        return Err("symbol is required".into());
    }
    if new.trim().is_empty() {
        return Err("new_name is required".into());
    }
    if old == new {
        return Err("new_name must differ from symbol".into());
    }
    let ident = |s: &str| {
        let mut c = s.chars();
        c.next()
            .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
            && c.all(|k| k.is_ascii_alphanumeric() || k == '_')
    };
    if !ident(old) || !ident(new) || KEYWORDS.contains(&new) {
        return Err("Only unqualified Python identifiers are supported (symbol and new_name: [A-Za-z_][A-Za-z0-9_]*, new_name not a keyword)".into());
    }
    let mangled = |s: &str| s.starts_with("__") && !s.ends_with("__");
    if mangled(old) || mangled(new) || new == "__debug__" {
        return Err(
            "Reserved or non-normalized identifiers are unsupported (private __names, __debug__)"
                .into(),
        );
    }
    Ok(())
}

fn sha256_hex(b: &[u8]) -> String {
    let d = Sha256::digest(b);
    d.iter().map(|x| format!("{x:02x}")).collect()
}

/// JSON with sorted keys and no spaces (what plan ids and verification digests hash).
pub fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let sorted: BTreeMap<&String, &Value> = m.iter().collect();
            let inner: Vec<String> = sorted
                .iter()
                .map(|(k, v)| format!("{}:{}", Value::String((*k).clone()), canonical(v)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

impl Plan {
    /// `rp1_` + 32 hex of SHA-256 over the canonical plan: names, definition,
    /// affected files with their hashes, sites.
    pub fn plan_id(&self) -> String {
        let def = self
            .definition
            .as_ref()
            .map(|(f, l)| json!({"file": f, "line": l}));
        let v = json!({
            "version": 1,
            "symbol": self.symbol,
            "new_name": self.new_name,
            "definition": def,
            "files": self.files.iter().map(|f| json!({"path": f.path, "sha256": f.sha256})).collect::<Vec<_>>(),
            "sites": self.sites,
        });
        format!("rp1_{}", &sha256_hex(canonical(&v).as_bytes())[..32])
    }

    /// The affected files, sorted.
    pub fn files_affected(&self) -> Vec<String> {
        self.files.iter().map(|f| f.path.clone()).collect()
    }

    fn reject(
        &mut self,
        code: &'static str,
        file: Option<&str>,
        line: Option<u32>,
        message: impl Into<String>,
    ) {
        self.errors.push(Rejection {
            code,
            file: file.map(str::to_owned),
            line,
            message: message.into(),
        });
    }
}

/// The previews served by this process: plan id -> file hashes (to name what
/// changed when an apply finds the plan stale).
static PREVIEWS: Mutex<Vec<Preview>> = Mutex::new(Vec::new());

/// A served preview: its plan id and (path, sha256) of each file it touches.
type Preview = (String, Vec<(String, String)>);

/// Remembers a preview.
pub fn remember(plan: &Plan) {
    let mut p = PREVIEWS.lock().unwrap_or_else(|e| e.into_inner());
    let id = plan.plan_id();
    p.retain(|(k, _)| *k != id);
    p.push((
        id,
        plan.files
            .iter()
            .map(|f| (f.path.clone(), f.sha256.clone()))
            .collect(),
    ));
    if p.len() > 64 {
        p.remove(0);
    }
}

/// The files whose hash differs from the preview `plan_id` served here, if known.
pub fn changed_since(plan_id: &str, root: &Path) -> Option<Vec<String>> {
    let p = PREVIEWS.lock().unwrap_or_else(|e| e.into_inner());
    let (_, files) = p.iter().find(|(k, _)| k == plan_id)?;
    Some(
        files
            .iter()
            .filter(|(path, sha)| {
                std::fs::read(root.join(path))
                    .map(|b| sha256_hex(&b))
                    .ok()
                    .as_ref()
                    != Some(sha)
            })
            .map(|(p, _)| p.clone())
            .collect(),
    )
}

/// A project's Python files: path -> module names it is importable as.
struct Modules {
    /// rel path -> dotted module (from the package root).
    of_file: HashMap<String, String>,
    /// rel path -> whether it is a package `__init__.py`.
    is_package: HashSet<String>,
}

impl Modules {
    fn new(py: &[String]) -> Modules {
        let set: HashSet<&str> = py.iter().map(String::as_str).collect();
        let mut of_file = HashMap::new();
        let mut is_package = HashSet::new();
        for rel in py {
            let stem = rel.strip_suffix(".py").unwrap_or(rel);
            let mut parts: Vec<&str> = stem.split('/').collect();
            if parts.last() == Some(&"__init__") {
                parts.pop();
                is_package.insert(rel.clone());
            }
            // Up from the file's folder while folders are packages.
            let mut k = parts.len().saturating_sub(1);
            while k > 0 && set.contains(format!("{}/__init__.py", parts[..k].join("/")).as_str()) {
                k -= 1;
            }
            let from = k;
            of_file.insert(rel.clone(), parts[from..].join("."));
        }
        Modules {
            of_file,
            is_package,
        }
    }

    /// The names a file is importable as: its package-root module, and for a path
    /// under a `src/` or `lib/` source root without packages, the path below it.
    fn names(&self, rel: &str) -> Vec<String> {
        let mut out = vec![self.of_file.get(rel).cloned().unwrap_or_default()];
        let stem = rel
            .strip_suffix(".py")
            .unwrap_or(rel)
            .trim_end_matches("/__init__");
        let dotted = stem.replace('/', ".");
        for root in ["src.", "lib."] {
            if let Some(rest) = dotted.strip_prefix(root) {
                out.push(rest.to_owned());
            }
        }
        out.push(dotted);
        out.sort();
        out.dedup();
        out
    }

    /// `module` (as written, `level` leading dots) seen from file `rel`, absolute.
    fn absolute(&self, rel: &str, module: &str, level: usize) -> String {
        let base = module.trim_start_matches('.');
        if level == 0 {
            return base.to_owned();
        }
        let me = self.of_file.get(rel).cloned().unwrap_or_default();
        let mut pkg: Vec<&str> = me.split('.').filter(|s| !s.is_empty()).collect();
        if !self.is_package.contains(rel) {
            pkg.pop();
        }
        for _ in 1..level {
            pkg.pop();
        }
        if !base.is_empty() {
            pkg.push(base);
        }
        pkg.join(".")
    }
}

/// Files containing `needle` as bytes (cheap prefilter before a parse).
fn containing(root: &Path, files: &[String], needles: &[&str]) -> Vec<(String, Vec<u8>)> {
    files
        .par_iter()
        .filter_map(|f| {
            let b = std::fs::read(root.join(f)).ok()?;
            let hit = needles
                .iter()
                .any(|n| !n.is_empty() && memfind(&b, n.as_bytes()));
            hit.then(|| (f.clone(), b))
        })
        .collect()
}

fn memfind(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn whole_word(hay: &[u8], w: &str) -> Option<u32> {
    let text = String::from_utf8_lossy(hay);
    for (i, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        let mut from = 0;
        while let Some(p) = line[from..].find(w) {
            let s = from + p;
            let e = s + w.len();
            let wc = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            if (s == 0 || !wc(b[s - 1])) && (e == b.len() || !wc(b[e])) {
                return Some(i as u32 + 1);
            }
            from = s + line[s..].chars().next().map_or(1, char::len_utf8);
        }
    }
    None
}

/// Plans the rename of `old` to `new` (defined in `file` when given).
pub fn plan(root: &Path, old: &str, new: &str, file: Option<&str>) -> Result<Planned, ToolError> {
    let walked = tsa_index::walk(root, &tsa_index::WalkOptions::default());
    let py: Vec<String> = walked
        .files
        .iter()
        .filter(|f| f.language == Language::Python)
        .map(|f| f.rel.clone())
        .collect();
    let others: Vec<String> = walked
        .files
        .iter()
        .filter(|f| f.language != Language::Python && f.language.tier() != Tier::Structure)
        .map(|f| f.rel.clone())
        .collect();
    // Data and configuration files name Python code by its dotted path (entry
    // points, settings, fixtures): checked for that path only.
    let mut configs: Vec<String> = walked
        .files
        .iter()
        .filter(|f| f.language.tier() == Tier::Structure && f.language != Language::Markdown)
        .map(|f| f.rel.clone())
        .collect();
    configs.extend(
        [
            "pyproject.toml",
            "setup.cfg",
            "tox.ini",
            "pytest.ini",
            "Procfile",
        ]
        .iter()
        .filter(|c| root.join(c).is_file())
        .map(|c| (*c).to_owned()),
    );
    let too_large: Vec<String> = walked
        .too_large
        .iter()
        .filter(|(f, _)| f.ends_with(".py"))
        .map(|(f, _)| f.clone())
        .collect();
    let modules = Modules::new(&py);
    // Pass 1: the files that mention the old name.
    let mut facts: BTreeMap<String, (Vec<u8>, FileFacts)> = containing(root, &py, &[old])
        .into_par_iter()
        .filter_map(|(f, b)| python::scan(&b, old, new).map(|x| (f, (b, x))))
        .collect();
    let defs: Vec<(String, Span)> = facts
        .iter()
        .flat_map(|(f, (_, x))| {
            x.olds
                .iter()
                .filter(|u| matches!(u.role, Role::Def { top: true, .. }))
                .map(move |u| (f.clone(), u.span))
        })
        .filter(|(f, _)| file.is_none_or(|w| w == f))
        .collect();
    let mut plan = Plan {
        symbol: old.to_owned(),
        new_name: new.to_owned(),
        ..Plan::default()
    };
    let (def_file, def_span) = match defs.as_slice() {
        [] => {
            let nested = facts.iter().find_map(|(f, (_, x))| {
                x.olds
                    .iter()
                    .find(|u| matches!(u.role, Role::Def { top: false, .. }))
                    .map(|u| (f.clone(), u.span.line))
            });
            let Some((f, line)) = nested.filter(|(f, _)| file.is_none_or(|w| w == f)) else {
                return Ok(Planned::NotFound);
            };
            plan.reject(
                "RENAME_UNSUPPORTED_CONSTRUCT",
                Some(&f),
                Some(line),
                "Only module-level functions and classes are supported",
            );
            return Ok(Planned::Plan(Box::new(plan)));
        }
        [one] => one.clone(),
        many => {
            for (f, s) in many {
                plan.reject(
                    "RENAME_AMBIGUOUS",
                    Some(f),
                    Some(s.line),
                    "Ambiguous symbol: multiple definitions; pass file_path to pick one",
                );
            }
            return Ok(Planned::Plan(Box::new(plan)));
        }
    };
    plan.definition = Some((def_file.clone(), def_span.line));
    let names: HashSet<String> = modules.names(&def_file).into_iter().collect();
    // Pass 2: files that may import the module or use the new name.
    let last = modules
        .of_file
        .get(&def_file)
        .and_then(|m| m.rsplit('.').next().map(str::to_owned))
        .unwrap_or_default();
    let rest: Vec<String> = py
        .iter()
        .filter(|f| !facts.contains_key(*f))
        .cloned()
        .collect();
    let more: Vec<(String, (Vec<u8>, FileFacts))> = containing(root, &rest, &[new, &last])
        .into_par_iter()
        .filter_map(|(f, b)| python::scan(&b, old, new).map(|x| (f, (b, x))))
        .collect();
    facts.extend(more);
    analyse(&mut plan, &modules, &names, &def_file, &facts);
    let module = modules.of_file.get(&def_file).cloned().unwrap_or_default();
    other_files(
        &mut plan,
        root,
        &others,
        &configs,
        too_large,
        (&module, &last),
    );
    plan.public_api = public_api(root, &modules, &def_file, old);
    if plan.errors.is_empty() {
        render(&mut plan, &facts);
    }
    Ok(Planned::Plan(Box::new(plan)))
}

/// Files of other languages, data and configuration: a mention by string or module
/// path blocks; a same-name identifier of another language is listed only.
fn other_files(
    plan: &mut Plan,
    root: &Path,
    others: &[String],
    configs: &[String],
    too_large: Vec<String>,
    (module, last): (&str, &str),
) {
    let old = plan.symbol.clone();
    let old = old.as_str();
    // Another language reaches a Python definition only by text: a quoted name or
    // the module's dotted path (`pkg.core.old`, `core:old`). That blocks; a bare
    // identifier of the same name there is another definition, listed only.
    let quoted = [
        format!("\"{old}\""),
        format!("'{old}'"),
        format!("{last}.{old}"),
        format!("{last}:{old}"),
        format!("{module}.{old}"),
    ];
    let quoted: Vec<&str> = quoted.iter().map(String::as_str).collect();
    for (f, b) in containing(root, others, &[old]) {
        let Some(line) = whole_word(&b, old) else {
            continue;
        };
        if let Some(l) = quoted.iter().find_map(|q| whole_word(&b, q)) {
            plan.reject(
                "RENAME_NON_PYTHON_REFERENCE",
                Some(&f),
                Some(l),
                "Potential non-Python reference by name (a string or the module path; not renamed)",
            );
        } else {
            plan.unrelated_total += 1;
            if plan.unrelated.len() < MENTIONS_LISTED {
                plan.unrelated.push(Mention {
                    file: f.clone(),
                    line,
                    column: 0,
                    kind: "other_language",
                });
            }
        }
    }
    let paths: Vec<String> = plan
        .via_modules
        .iter()
        .flat_map(|m| [format!("{m}.{old}"), format!("{m}:{old}")])
        .collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    for (f, b) in containing(root, configs, &[old]) {
        if let Some(l) = paths.iter().find_map(|q| whole_word(&b, q)) {
            plan.reject(
                "RENAME_NON_PYTHON_REFERENCE",
                Some(&f),
                Some(l),
                "a data or configuration file names the symbol by its module path (not renamed)",
            );
        }
    }
    for f in too_large {
        plan.reject(
            "RENAME_UNSUPPORTED_CONSTRUCT",
            Some(&f),
            None,
            "a Python file too large to read (over 2 MiB) may use the name",
        );
    }
    plan.warnings.push("not searched: hidden, git-ignored and vendored folders (vendor/, bin/, target/, ...) and files of no indexed language".to_owned());
}

/// Why `old` in `def_file` is importable by code outside the project, if it is.
fn public_api(root: &Path, modules: &Modules, def_file: &str, old: &str) -> Option<String> {
    let packaged = ["pyproject.toml", "setup.py", "setup.cfg"]
        .iter()
        .find(|m| root.join(m).is_file())?;
    let module = modules.of_file.get(def_file)?;
    let private = old.starts_with('_')
        || module
            .split('.')
            .any(|p| p.starts_with('_') && p != "__init__");
    (!private).then(|| format!("{module}.{old} is public in a packaged project ({packaged}); code outside the project that uses it is not renamed"))
}

/// Which files bind the symbol (`active`: its bare name), which can reach it at
/// all (they import its module or it), and their names for its module.
struct Reach {
    active: BTreeSet<String>,
    reaching: BTreeSet<String>,
    aliases: HashMap<String, HashSet<String>>,
    /// Modules re-exporting the symbol two levels from its definition.
    second: HashSet<String>,
}

/// A site of `plan` at `s` in `f`.
fn site(plan: &Plan, f: &str, s: Span, kind: &'static str) -> Site {
    Site {
        file: f.to_owned(),
        line: s.line,
        column: s.column,
        old_text: plan.symbol.clone(),
        site_type: kind,
        start: s.start,
    }
}

impl Plan {
    fn mention(&mut self, file: &str, s: Span, kind: &'static str) {
        self.unrelated_total += 1;
        if self.unrelated.len() < MENTIONS_LISTED {
            self.unrelated.push(Mention {
                file: file.to_owned(),
                line: s.line,
                column: s.column,
                kind,
            });
        }
    }
}

/// The module an attribute's object (`pkg.core`, `c`) names in file `f`, through
/// the file's module bindings (`import pkg` makes `pkg.core` the module `pkg.core`).
fn object_module(modules: &Modules, f: &str, x: &FileFacts, object: &str) -> Option<String> {
    x.module_bindings.iter().find_map(|b| {
        let rest = object.strip_prefix(b.binding.as_str())?;
        if !(rest.is_empty() || rest.starts_with('.')) {
            return None;
        }
        Some(format!("{}{rest}", modules.absolute(f, &b.module, b.level)))
    })
}

/// Finds every site and every blocker across the scanned files.
fn analyse(
    plan: &mut Plan,
    modules: &Modules,
    names: &HashSet<String>,
    def_file: &str,
    facts: &BTreeMap<String, (Vec<u8>, FileFacts)>,
) {
    let mut sites: Vec<Site> = Vec::new();
    let reach = imports(plan, modules, names, def_file, facts, &mut sites);
    for (f, (_, x)) in facts {
        let mine = reach.aliases.get(f);
        for a in &x.attrs {
            match object_module(modules, f, x, &a.object) {
                _ if mine.is_some_and(|m| m.contains(&a.object)) => {
                    sites.push(site(plan, f, a.span, "attribute_reference"));
                }
                Some(m) if plan.via_modules.contains(&m) => {
                    sites.push(site(plan, f, a.span, "attribute_reference"));
                }
                Some(m) if reach.second.contains(&m) => {
                    let msg = format!(
                        "{}.{} reaches the symbol through {m}, which re-exports it more than one level from its definition",
                        a.object, plan.symbol
                    );
                    plan.reject("REEXPORT_UNSUPPORTED", Some(f), Some(a.span.line), msg);
                }
                _ => plan.mention(f, a.span, "attribute"),
            }
        }
        // A string naming the module's path to the symbol (`mock.patch("pkg.core.old")`,
        // a `module:old` entry point) is not edited: it would break.
        for (line, t) in &x.strings {
            if plan.via_modules.iter().any(|m| {
                t.contains(&format!("{m}.{}", plan.symbol))
                    || t.contains(&format!("{m}:{}", plan.symbol))
            }) {
                plan.reject(
                    "RENAME_STRING_REFERENCE",
                    Some(f),
                    Some(*line),
                    "a string names the symbol by its module path (not edited)",
                );
            } else {
                plan.mention(
                    f,
                    Span {
                        start: 0,
                        end: 0,
                        line: *line,
                        column: 0,
                    },
                    "string",
                );
            }
        }
        dynamic_access(plan, f, x, mine, reach.reaching.contains(f));
        if reach.active.contains(f) {
            active_file(plan, modules, f, x, def_file, &mut sites);
        } else {
            // The name used where it is not bound to the symbol (another
            // definition, or no binding at all): not edited, listed.
            for u in x.olds.iter().filter(|u| u.role == Role::Load) {
                plan.mention(f, u.span, "name_bound_elsewhere");
            }
        }
    }
    sites.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
    sites.dedup();
    plan.sites = sites;
}

/// The import sites, re-exports one level deep, and who can reach the symbol.
fn imports(
    plan: &mut Plan,
    modules: &Modules,
    names: &HashSet<String>,
    def_file: &str,
    facts: &BTreeMap<String, (Vec<u8>, FileFacts)>,
    sites: &mut Vec<Site>,
) -> Reach {
    let old = plan.symbol.clone();
    // Modules importing it unaliased from `from`: they re-export it.
    let importers_from = |from: &dyn Fn(&str) -> bool| -> HashSet<String> {
        let mut out = HashSet::new();
        for (f, (_, x)) in facts {
            if x.from_imports
                .iter()
                .any(|i| i.alias.is_none() && from(&modules.absolute(f, &i.module, i.level)))
            {
                out.extend(modules.names(f));
            }
        }
        out
    };
    let reexporters = importers_from(&|m| names.contains(m));
    // One level further: code importing it from those is a chain not followed.
    let second = importers_from(&|m| reexporters.contains(m));
    let via = |m: &str| names.contains(m) || reexporters.contains(m);
    plan.via_modules = names.iter().chain(reexporters.iter()).cloned().collect();
    let mut r = Reach {
        active: BTreeSet::from([def_file.to_owned()]),
        reaching: BTreeSet::from([def_file.to_owned()]),
        aliases: HashMap::new(),
        second: second.clone(),
    };
    for (f, (_, x)) in facts {
        for b in &x.module_bindings {
            if via(&modules.absolute(f, &b.module, b.level)) {
                r.aliases
                    .entry(f.clone())
                    .or_default()
                    .insert(b.binding.clone());
                r.reaching.insert(f.clone());
            }
        }
        let mut direct = 0;
        for i in &x.from_imports {
            let m = modules.absolute(f, &i.module, i.level);
            if !via(&m) {
                if second.contains(&m) {
                    plan.reject("REEXPORT_UNSUPPORTED", Some(f), Some(i.span.line), format!("imports {old} from {m}, which re-exports it more than one level from its definition"));
                }
                continue;
            }
            if f == def_file {
                plan.reject(
                    "RENAME_AMBIGUOUS",
                    Some(f),
                    Some(i.span.line),
                    "Ambiguous import binding: the defining file imports the name too",
                );
                continue;
            }
            direct += 1;
            r.reaching.insert(f.clone());
            sites.push(site(plan, f, i.span, "import"));
            if i.alias.is_none() {
                r.active.insert(f.clone());
            }
        }
        if direct > 1 {
            plan.reject(
                "RENAME_AMBIGUOUS",
                Some(f),
                None,
                "Ambiguous import binding: the name is imported more than once",
            );
        }
        for (m, level, line) in &x.star_imports {
            let m = modules.absolute(f, m, *level);
            if via(&m) {
                plan.reject(
                    "RENAME_UNSUPPORTED_CONSTRUCT",
                    Some(f),
                    Some(*line),
                    format!("star import of {m} binds the name implicitly"),
                );
            }
        }
    }
    r
}

/// `eval`, `getattr`, ... that can reach the symbol: blocking where the file
/// reaches its module, listed elsewhere.
fn dynamic_access(
    plan: &mut Plan,
    f: &str,
    x: &FileFacts,
    mine: Option<&HashSet<String>>,
    reaches: bool,
) {
    let on_module =
        |o: &Option<String>| mine.is_some_and(|m| o.as_ref().is_some_and(|o| m.contains(o)));
    for d in &x.dynamic {
        let hits = match d.func.as_str() {
            "eval" | "exec" | "globals" | "locals" => true,
            "vars" => d.object.is_none() || on_module(&d.object),
            _ => {
                on_module(&d.object)
                    || d.literal.is_none()
                    || d.literal.as_deref() == Some(plan.symbol.as_str())
            }
        };
        if !hits {
            continue;
        }
        if reaches {
            let msg = format!(
                "Dynamic symbol access ({}) in a file that can reach the symbol",
                d.func
            );
            plan.reject("RENAME_DYNAMIC_ACCESS", Some(f), Some(d.line), msg);
        } else {
            plan.warnings.push(format!(
                "{f}:{}: {}() in a file that does not import the module; not checked",
                d.line, d.func
            ));
        }
    }
}

/// A file where the bare name is the symbol: its uses are sites, any other binding
/// of either name blocks.
fn active_file(
    plan: &mut Plan,
    modules: &Modules,
    f: &str,
    x: &FileFacts,
    def_file: &str,
    sites: &mut Vec<Site>,
) {
    let (old, new) = (plan.symbol.clone(), plan.new_name.clone());
    if let Some(l) = x.string_annotations.first() {
        plan.reject(
            "RENAME_UNSUPPORTED_CONSTRUCT",
            Some(f),
            Some(*l),
            "a string annotation names the symbol (forward reference; strings are not edited)",
        );
    }
    if let Some(l) = x.class_unsupported.first().filter(|_| f == def_file) {
        plan.reject(
            "RENAME_UNSUPPORTED_CONSTRUCT",
            Some(f),
            Some(*l),
            "the class uses __slots__ or private (mangled) names",
        );
    }
    let def_line = plan.definition.as_ref().map_or(0, |d| d.1);
    for u in &x.olds {
        match u.role {
            Role::Load => sites.push(site(plan, f, u.span, "reference")),
            Role::Def { top: true, .. } if f == def_file && u.span.line == def_line => {
                sites.push(site(plan, f, u.span, "definition"));
            }
            Role::KwName => {}
            Role::Def { .. } | Role::Bind | Role::Global => {
                let msg =
                    format!("Conflicting or shadowed symbol binding: '{old}' is bound again here");
                plan.reject("RENAME_SHADOWED", Some(f), Some(u.span.line), msg);
            }
        }
    }
    for u in x.news.iter().filter(|u| u.role != Role::KwName) {
        let msg = format!("Conflicting or shadowed symbol binding: '{new}' is already used here");
        plan.reject("RENAME_SHADOWED", Some(f), Some(u.span.line), msg);
    }
    // Another import binding the old name where it is used (a fallback import,
    // `import x as old`): after the rename, uses would bind to something else.
    for b in x.module_bindings.iter().filter(|b| b.binding == old) {
        let abs = modules.absolute(f, &b.module, b.level);
        if !plan.via_modules.iter().any(|m| abs == format!("{m}.{old}")) {
            let msg = format!(
                "Conflicting or shadowed symbol binding: '{old}' is also bound by an import of {}",
                b.module
            );
            plan.reject("RENAME_SHADOWED", Some(f), None, msg);
        }
    }
    for l in &x.all_changes {
        plan.reject(
            "RENAME_UNSUPPORTED_CONSTRUCT",
            Some(f),
            Some(*l),
            "__all__ is extended with the name (+=, append, extend): not edited",
        );
    }
    for l in &x.imports_new {
        let msg = format!("Conflicting or shadowed symbol binding: '{new}' is imported here");
        plan.reject("RENAME_SHADOWED", Some(f), Some(*l), msg);
    }
    for s in &x.all_entries {
        sites.push(site(plan, f, *s, "export"));
    }
}

/// Renders every affected file in memory; a result that no longer parses rejects.
fn render(plan: &mut Plan, facts: &BTreeMap<String, (Vec<u8>, FileFacts)>) {
    let mut by_file: BTreeMap<&str, Vec<&Site>> = BTreeMap::new();
    for s in &plan.sites {
        by_file.entry(&s.file).or_default().push(s);
    }
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for (f, mut sites) in by_file {
        let Some((orig, x)) = facts.get(f) else {
            continue;
        };
        let mut out = orig.clone();
        sites.sort_by_key(|s| std::cmp::Reverse(s.start));
        for s in sites {
            let end = s.start + plan.symbol.len();
            if out.get(s.start..end) != Some(plan.symbol.as_bytes()) {
                errors.push((
                    "RENAME_UNSUPPORTED_CONSTRUCT",
                    f.to_owned(),
                    s.line,
                    "Identifier location mismatch".to_owned(),
                ));
                continue;
            }
            out.splice(s.start..end, plan.new_name.bytes());
        }
        let broken = crate::complexity::parse(Language::Python, &out)
            .is_none_or(|t| t.root_node().has_error());
        if broken && !x.has_errors {
            errors.push((
                "RENAME_SYNTAX_AFTER_EDIT",
                f.to_owned(),
                0,
                "the renamed file no longer parses".to_owned(),
            ));
        }
        files.push(FileEdit {
            path: f.to_owned(),
            sha256: sha256_hex(orig),
            original: orig.clone(),
            rendered: out,
        });
    }
    for (code, f, line, m) in errors {
        plan.reject(code, Some(&f), (line > 0).then_some(line), m);
    }
    plan.files = files;
}

/// Why an apply did not write.
#[derive(Debug)]
pub struct ApplyError {
    pub code: &'static str,
    pub message: String,
    /// Files restored after a failure part way.
    pub restored: Vec<String>,
    /// Files written that could not be restored (they hold the renamed text).
    pub unrestored: Vec<String>,
}

/// Writes `bytes` over `path` atomically: a temporary file in the same folder with
/// the original permissions, synced, then renamed over it.
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nonce =
        blake3::hash(format!("{:?}{:p}", std::time::SystemTime::now(), &name).as_bytes()).to_hex();
    let tmp = dir.join(format!(
        ".{name}.tsa-rename-{}-{}.tmp",
        std::process::id(),
        &nonce[..12]
    ));
    let perms = std::fs::metadata(path)?.permissions();
    let result = (|| {
        // A new file only: never truncate, never follow a link planted there.
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::set_permissions(&tmp, perms)?;
        if tsa_index::injected_failure("rename_write") {
            return Err(std::io::Error::other(
                "injected failure (TSA_FAULT_FAIL_AT)",
            ));
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Held while a rename is planned again and applied: two applies never interleave.
pub static APPLYING: Mutex<()> = Mutex::new(());

/// Applies a plan whose files still hold what it was made from: every file or none.
/// Returns the new hashes.
pub fn apply(root: &Path, plan: &Plan) -> Result<Vec<(String, String)>, ApplyError> {
    let mut done: Vec<&FileEdit> = Vec::new();
    let mut failure: Option<(&'static str, String)> = None;
    for f in &plan.files {
        let path = root.join(&f.path);
        let linked = std::fs::symlink_metadata(&path)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(true);
        let now = std::fs::read(&path).ok();
        if linked || now.as_deref().map(sha256_hex).as_deref() != Some(f.sha256.as_str()) {
            failure = Some((
                "PLAN_STALE",
                format!("Source changed during rename: {}", f.path),
            ));
            break;
        }
        if let Err(e) = replace(&path, &f.rendered) {
            failure = Some((
                "RENAME_ROLLED_BACK",
                format!("writing {} failed: {e}", f.path),
            ));
            break;
        }
        done.push(f);
    }
    let Some((code, message)) = failure else {
        return Ok(plan
            .files
            .iter()
            .map(|f| (f.path.clone(), sha256_hex(&f.rendered)))
            .collect());
    };
    let mut restored = Vec::new();
    let mut unrestored = Vec::new();
    let mut message = message;
    for f in done.iter().rev() {
        match replace(&root.join(&f.path), &f.original) {
            Ok(()) => restored.push(f.path.clone()),
            Err(e) => {
                message.push_str(&format!("; restoring {} failed: {e}", f.path));
                unrestored.push(f.path.clone());
            }
        }
    }
    // Stale before anything was written: nothing to roll back.
    let code = if done.is_empty() && code == "PLAN_STALE" {
        code
    } else {
        "RENAME_ROLLED_BACK"
    };
    Err(ApplyError {
        code,
        message,
        restored,
        unrestored,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_validated() {
        assert!(validate("a", "b").is_ok());
        assert_eq!(
            validate("a", "a").unwrap_err(),
            "new_name must differ from symbol"
        );
        assert!(validate("a", "class").is_err());
        assert!(validate("a", "1x").is_err());
        assert!(validate("__p", "q").is_err());
        assert!(validate("a", "__debug__").is_err());
        assert!(validate("__init__", "__new__").is_ok());
    }

    #[test]
    fn modules_come_from_the_package_root() {
        let py: Vec<String> = [
            "src/pkg/__init__.py",
            "src/pkg/core.py",
            "tool.py",
            "a/b/__init__.py",
            "a/b/c.py",
            "a/__init__.py",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let m = Modules::new(&py);
        assert_eq!(m.of_file["src/pkg/core.py"], "pkg.core");
        assert_eq!(m.of_file["src/pkg/__init__.py"], "pkg");
        assert_eq!(m.of_file["tool.py"], "tool");
        assert_eq!(m.of_file["a/b/c.py"], "a.b.c");
        assert_eq!(m.absolute("src/pkg/__init__.py", ".core", 1), "pkg.core");
        assert_eq!(m.absolute("a/b/c.py", "..x", 2), "a.x");
        assert!(m.names("src/pkg/core.py").contains(&"pkg.core".to_owned()));
    }

    #[test]
    fn canonical_json_sorts_keys() {
        assert_eq!(
            canonical(&json!({"b": 1, "a": [{"d": 1, "c": 2}]})),
            r#"{"a":[{"c":2,"d":1}],"b":1}"#
        );
    }
}
