//! Python resolution: local scope, `self`/`cls`, imports with re-exports through
//! package `__init__` files, builtins, then a unique project definition.

use std::collections::HashSet;

use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

use tsa_lang::{DefKind, Language};

use super::{Binding, ImportBinding, MCall, MFile, MImport, Model, Resolution, bound, local};

fn stdlib() -> &'static HashSet<&'static str> {
    static S: OnceLock<HashSet<&'static str>> = OnceLock::new();
    S.get_or_init(|| include_str!("python_stdlib.txt").lines().collect())
}

fn builtins() -> &'static HashSet<&'static str> {
    static S: OnceLock<HashSet<&'static str>> = OnceLock::new();
    S.get_or_init(|| include_str!("python_builtins.txt").lines().collect())
}

/// Dotted module paths of the project's Python files.
pub(super) struct Modules {
    /// Full dotted path from the project root -> file (relative imports).
    exact: HashMap<String, usize>,
    /// Dotted name under a source root -> (file, rank): rank 0 under a root the
    /// manifests declare, 1 under the folder above a file's top-level package (or a
    /// plain module's own folder: what `sys.path` holds when its code runs), 2 from
    /// the project root.
    named: HashMap<String, Vec<(usize, u8)>>,
    /// Every dotted suffix -> files (the last resort for a folder a test or script
    /// puts on `sys.path` by hand).
    suffix: HashMap<String, Vec<usize>>,
    /// Per Python file: the folder above its top-level package (a plain module's
    /// own folder), which is first on `sys.path` when its code runs as a script.
    tops: HashMap<usize, String>,
}

fn module_parts(path: &str) -> Vec<String> {
    let stem = path.trim_end_matches(".pyi").trim_end_matches(".py");
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "__init__") {
        parts.pop();
    }
    parts
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

impl Modules {
    pub(super) fn new(files: &[MFile], roots: &[String]) -> Modules {
        let mut exact = HashMap::default();
        let mut named: HashMap<String, Vec<(usize, u8)>> = HashMap::default();
        let mut suffix: HashMap<String, Vec<usize>> = HashMap::default();
        let mut tops: HashMap<usize, String> = HashMap::default();
        // Folders that are packages (hold an `__init__`).
        let packages: HashSet<&str> = files
            .iter()
            .filter(|f| f.lang == Language::Python)
            .filter(|f| f.path.ends_with("__init__.py") || f.path.ends_with("__init__.pyi"))
            .map(|f| parent_dir(&f.path))
            .collect();
        let mut add = |name: String, file: usize, rank: u8| {
            if name.is_empty() {
                return;
            }
            let e = named.entry(name).or_default();
            if !e.iter().any(|&(f, r)| f == file && r <= rank) {
                e.push((file, rank));
            }
        };
        // A stub (`.pyi`) beside its implementation (`.py`) is not a second module:
        // imports mean the implementation.
        let implemented: HashSet<&str> = files
            .iter()
            .filter(|f| f.lang == Language::Python && f.path.ends_with(".py"))
            .map(|f| f.path.trim_end_matches(".py"))
            .collect();
        for (i, f) in files.iter().enumerate() {
            if f.lang != Language::Python
                || f.path
                    .strip_suffix(".pyi")
                    .is_some_and(|stem| implemented.contains(stem))
            {
                continue;
            }
            let parts = module_parts(&f.path);
            if parts.is_empty() {
                continue;
            }
            for root in roots {
                let under = if root.is_empty() {
                    Some(f.path.as_str())
                } else {
                    f.path
                        .strip_prefix(root.as_str())
                        .and_then(|r| r.strip_prefix('/'))
                };
                if let Some(rel) = under {
                    add(module_parts(rel).join("."), i, 0);
                }
            }
            // The folder above the file's top-level package.
            let mut top = parent_dir(&f.path);
            while !top.is_empty() && packages.contains(top) {
                top = parent_dir(top);
            }
            let rel = if top.is_empty() {
                f.path.as_str()
            } else {
                &f.path[top.len() + 1..]
            };
            add(module_parts(rel).join("."), i, 1);
            tops.insert(i, top.to_owned());
            add(parts.join("."), i, 2);
            exact.insert(parts.join("."), i);
            for start in 0..parts.len() {
                suffix.entry(parts[start..].join(".")).or_default().push(i);
            }
        }
        Modules {
            exact,
            named,
            suffix,
            tops,
        }
    }
}

enum Module {
    Project(usize),
    Outside { stdlib: bool },
    Unknown,
}

/// The candidate nearest the importer (longest common path prefix); `None` on a tie.
fn nearest(m: &Model, file: usize, cands: &[usize]) -> Option<usize> {
    let here = &m.files[file].path;
    let score = |f: usize| {
        m.files[f]
            .path
            .chars()
            .zip(here.chars())
            .take_while(|(a, b)| a == b)
            .count()
    };
    let best = cands.iter().map(|&f| score(f)).max()?;
    let top: Vec<usize> = cands
        .iter()
        .copied()
        .filter(|&f| score(f) == best)
        .collect();
    (top.len() == 1).then(|| top[0])
}

/// Resolves a module named in `file` (absolute, or relative with `level` dots).
fn module(m: &Model, file: usize, name: &str, level: u32) -> Module {
    let mods = &m.python;
    if level > 0 {
        let mut parts = module_parts(&m.files[file].path);
        let is_pkg = m.files[file].path.ends_with("__init__.py");
        // The package of a module is its parent; a package's own __init__ is the package.
        let drop = if is_pkg { level - 1 } else { level } as usize;
        if drop > parts.len() {
            return Module::Unknown;
        }
        parts.truncate(parts.len() - drop);
        if !name.is_empty() {
            parts.extend(name.split('.').map(str::to_owned));
        }
        return match mods.exact.get(&parts.join(".")) {
            Some(&f) => Module::Project(f),
            None => Module::Unknown,
        };
    }
    if let Some(cands) = mods.named.get(name) {
        // The importer's own folder comes first on `sys.path`.
        let top = mods.tops.get(&file);
        let own: Vec<usize> = cands
            .iter()
            .filter(|&&(f, r)| r == 1 && mods.tops.get(&f) == top)
            .map(|&(f, _)| f)
            .collect();
        if let [f] = own[..] {
            return Module::Project(f);
        }
        let best = cands.iter().map(|&(_, r)| r).min().unwrap_or(0);
        let mut top: Vec<usize> = cands
            .iter()
            .filter(|&&(_, r)| r == best)
            .map(|&(f, _)| f)
            .collect();
        top.sort_unstable();
        top.dedup();
        if top.len() == 1 {
            return Module::Project(top[0]);
        }
        // Several packages of that name (vendored copies, examples): the one nearest
        // the importer, else nobody can tell.
        return match nearest(m, file, &top) {
            Some(f) => Module::Project(f),
            None => Module::Unknown,
        };
    }
    let top = name.split('.').next().unwrap_or("");
    let stdlib = stdlib().contains(top);
    // A folder some file puts on `sys.path` by hand: a unique file ending with the
    // dotted path (never for a name the standard library has).
    if !stdlib && let Some(files) = mods.suffix.get(name) {
        if files.len() == 1 {
            return Module::Project(files[0]);
        }
        if let Some(f) = nearest(m, file, files) {
            return Module::Project(f);
        }
        return Module::Unknown;
    }
    Module::Outside { stdlib }
}

/// The submodule `name` of the package whose `__init__` is `f`.
fn submodule(m: &Model, f: usize, name: &str) -> Option<usize> {
    let path = &m.files[f].path;
    if !(path.ends_with("/__init__.py")
        || path.ends_with("/__init__.pyi")
        || path.starts_with("__init__.py"))
    {
        return None;
    }
    let mut parts = module_parts(path);
    parts.push(name.to_owned());
    m.python.exact.get(&parts.join(".")).copied()
}

/// What an imported name is.
enum Target {
    Symbol(usize),
    Module(usize),
    /// A value of a project class (`app = Flask(__name__)` at module level).
    Instance(usize),
    Outside {
        stdlib: bool,
    },
    Unknown,
}

fn import_target(m: &Model, file: usize, imp: &MImport, depth: u32) -> Target {
    match (&imp.name, module(m, file, &imp.module, imp.level)) {
        (None, Module::Project(f)) => Target::Module(f),
        (Some(name), Module::Project(f)) => {
            if let Some(t) = attribute(m, f, name, depth + 1) {
                return t;
            }
            Target::Unknown
        }
        (Some(name), outside) => {
            // `from ns import mod` where `ns` is a namespace package (no `__init__`).
            let joined = if imp.module.is_empty() {
                name.clone()
            } else {
                format!("{}.{name}", imp.module)
            };
            match (module(m, file, &joined, imp.level), outside) {
                (Module::Project(f), _) => Target::Module(f),
                (_, Module::Outside { stdlib }) => Target::Outside { stdlib },
                _ => Target::Unknown,
            }
        }
        (None, Module::Outside { stdlib }) => Target::Outside { stdlib },
        (None, Module::Unknown) => Target::Unknown,
    }
}

/// What `name` is in module file `f`: a definition (following re-exports), a
/// module re-exported under that name, or a submodule of the package.
fn attribute(m: &Model, f: usize, name: &str, depth: u32) -> Option<Target> {
    if let Some(s) = in_module(m, f, name, depth) {
        return Some(Target::Symbol(s));
    }
    if depth <= 6 {
        // `from . import sub as sub`, `import x.y as name` inside the module.
        for imp in m.imports[f].iter().rev().filter(|i| i.alias == name) {
            if let t @ (Target::Module(_) | Target::Outside { .. }) =
                import_target(m, f, imp, depth)
            {
                return Some(t);
            }
        }
    }
    submodule(m, f, name)
        .map(Target::Module)
        .or_else(|| module_variable(m, f, name))
}

/// A module-level variable of file `f` whose type the code states
/// (`app = Flask(__name__)`): a value of that class, or of a type outside.
fn module_variable(m: &Model, f: usize, name: &str) -> Option<Target> {
    match m.module_variable_type(f, name)? {
        super::TypeRef::Sym(t) if m.syms[t].kind == DefKind::Class => Some(Target::Instance(t)),
        super::TypeRef::Outside(r) => Some(Target::Outside {
            stdlib: r == Resolution::Stdlib || r == Resolution::Builtin,
        }),
        _ => None,
    }
}

/// A top-level function or class `name` of module file `f`, following re-exports.
fn in_module(m: &Model, f: usize, name: &str, depth: u32) -> Option<usize> {
    // A bounded number of module visits per lookup: packages whose `__init__`
    // files star-import each other would otherwise cost (fan-out)^depth.
    thread_local! {
        static BUDGET: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    let left = BUDGET.with(|b| {
        if depth <= 1 {
            b.set(512);
        }
        let left = b.get();
        b.set(left.saturating_sub(1));
        left
    });
    if depth > 6 || left == 0 {
        return None;
    }
    let local: Vec<usize> = m
        .in_file(f, name)
        .iter()
        .copied()
        .filter(|&s| {
            m.syms[s].parent.is_none()
                && matches!(m.syms[s].kind, DefKind::Function | DefKind::Class)
        })
        .collect();
    if let Some(&s) = local.last() {
        // The last top-level definition wins, as at run time.
        return Some(s);
    }
    for imp in m.imports[f].iter().filter(|i| i.alias == name) {
        if let Target::Symbol(s) = import_target(m, f, imp, depth) {
            return Some(s);
        }
    }
    for imp in m.imports[f].iter().filter(|i| i.alias == "*") {
        if let Module::Project(sf) = module(m, f, &imp.module, imp.level)
            && let Some(s) = in_module(m, sf, name, depth + 1)
        {
            return Some(s);
        }
    }
    None
}

/// Whether `sym` is visible by plain name from `caller`: module level, or defined
/// directly in one of the caller's enclosing functions.
fn visible(m: &Model, sym: usize, caller: Option<usize>) -> bool {
    let parent = m.syms[sym].parent;
    if parent.is_none() {
        return true;
    }
    let mut cur = caller;
    while let Some(c) = cur {
        if Some(c) == parent && m.syms[c].kind.is_callable() {
            return true;
        }
        cur = m.syms[c].parent;
    }
    false
}

fn outside(stdlib: bool) -> Binding {
    Binding::class(if stdlib {
        Resolution::Stdlib
    } else {
        Resolution::External
    })
}

pub(super) fn resolve(m: &Model, call: &MCall<'_>) -> Binding {
    let file = call.file;
    let name = call.callee;
    match call.receiver {
        None => {
            // 1. The caller's own scope.
            let local: Vec<usize> = m
                .in_file(file, name)
                .iter()
                .copied()
                .filter(|&s| matches!(m.syms[s].kind, DefKind::Function | DefKind::Class))
                .filter(|&s| visible(m, s, call.caller))
                // A local variable of that name hides module-level definitions.
                .filter(|&s| !call.shadowed || m.syms[s].parent.is_some())
                .collect();
            // The innermost scope that defines the name wins (a class nested in a
            // test function over a module-level one); in one scope, the last.
            let hops = |s: usize| -> u32 {
                let parent = m.syms[s].parent;
                let mut cur = call.caller;
                let mut n = 0;
                while let Some(c) = cur {
                    if Some(c) == parent {
                        return n;
                    }
                    n += 1;
                    cur = m.syms[c].parent;
                }
                u32::MAX
            };
            if let Some(&s) = local.iter().rev().min_by_key(|&&s| hops(s)) {
                return super::local(s);
            }
            if call.shadowed {
                return Binding::UNKNOWN;
            }
            // 2. Imports, following re-exports.
            if let Some(imp) = m.imports[file].iter().rev().find(|i| i.alias == name) {
                return match import_target(m, file, imp, 0) {
                    Target::Symbol(s) => bound(s, 0.9),
                    Target::Outside { stdlib } => outside(stdlib),
                    Target::Module(_) | Target::Instance(_) | Target::Unknown => Binding::UNKNOWN,
                };
            }
            // 3. Star imports of project modules.
            for imp in m.imports[file].iter().filter(|i| i.alias == "*") {
                if let Module::Project(f) = module(m, file, &imp.module, imp.level)
                    && let Some(s) = in_module(m, f, name, 1)
                {
                    return bound(s, 0.8);
                }
            }
            // 4. Builtins: a bare name neither defined nor imported here.
            if builtins().contains(name) {
                return Binding::class(Resolution::Builtin);
            }
            // 5. A unique project-wide definition.
            match m.unique_global(call, &[DefKind::Function, DefKind::Class]) {
                Some(s) => bound(s, 0.5),
                None => Binding::UNKNOWN,
            }
        }
        Some(recv) => {
            if recv == "super()" || recv.starts_with("super(") {
                return match m.enclosing_type_sym(call.caller) {
                    Some(t) => m.inherited(call, vec![t], name).unwrap_or(Binding::UNKNOWN),
                    None => Binding::UNKNOWN,
                };
            }
            if recv == "self" || recv == "cls" {
                let Some(class) = m.enclosing_type(call.caller) else {
                    return Binding::UNKNOWN;
                };
                let cands: Vec<usize> = m
                    .methods(Language::Python, class, name)
                    .iter()
                    .copied()
                    .filter(|&s| m.syms[s].file == file)
                    .collect();
                return match cands.last() {
                    Some(&s) => local(s),
                    // Not on the class itself: inherited from a base class.
                    None => match m.enclosing_type_sym(call.caller) {
                        Some(t) => m.inherited(call, vec![t], name).unwrap_or(Binding::UNKNOWN),
                        None => Binding::UNKNOWN,
                    },
                };
            }
            // A module, a class or an outside name, as a dotted expression:
            // `import a.b as x; x.f()`, `import a.b; a.b.f()`, `flask.json.dumps()`,
            // `from p import mod; mod.f()`, `Cls.create()`, `Outer.Inner.make()`.
            match value(m, call, recv) {
                Some(Target::Module(f)) => match attribute(m, f, name, 1) {
                    Some(Target::Symbol(s)) => bound(s, 0.9),
                    _ => Binding::UNKNOWN,
                },
                Some(Target::Symbol(c)) if m.syms[c].kind == DefKind::Class => {
                    match method_of(m, c, name).last() {
                        Some(&s) => bound(s, if m.syms[s].file == file { 1.0 } else { 0.9 }),
                        None => m.inherited(call, vec![c], name).unwrap_or(Binding::UNKNOWN),
                    }
                }
                // A method of a value whose class is known (a module-level instance).
                Some(Target::Instance(c)) => match method_of(m, c, name).last() {
                    Some(&s) => bound(s, 0.9),
                    None => m.inherited(call, vec![c], name).unwrap_or(Binding::UNKNOWN),
                },
                Some(Target::Outside { stdlib }) => outside(stdlib),
                _ => Binding::UNKNOWN,
            }
        }
    }
}

/// What a dotted receiver expression names: a project module, a class, or a name
/// outside the project; `None` for anything else (a value, a call, an index).
fn value(m: &Model, call: &MCall<'_>, expr: &str) -> Option<Target> {
    if expr.is_empty()
        || !expr
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return None;
    }
    let file = call.file;
    let segs: Vec<&str> = expr.split('.').collect();
    // The longest prefix an `import a.b` statement names as a whole (namespace
    // packages have no `__init__` to walk through).
    let mut start = None;
    for imp in m.imports[file].iter().rev().filter(|i| i.name.is_none()) {
        let n = imp.module.split('.').count();
        let whole = imp.alias == imp.module.split('.').next().unwrap_or("")
            && n <= segs.len()
            && segs[..n].join(".") == imp.module;
        if whole && start.as_ref().is_none_or(|&(k, _)| n > k) {
            let t = match module(m, file, &imp.module, imp.level) {
                Module::Project(f) => Target::Module(f),
                Module::Outside { stdlib } => Target::Outside { stdlib },
                Module::Unknown => Target::Unknown,
            };
            start = Some((n, t));
        }
    }
    let (used, mut cur) = match start {
        Some(found) => found,
        None => (1, first_value(m, call, segs[0])?),
    };
    for seg in &segs[used..] {
        cur = match cur {
            Target::Module(f) => attribute(m, f, seg, 1)?,
            Target::Symbol(c) if m.syms[c].kind == DefKind::Class => {
                let inner = method_of(m, c, seg)
                    .into_iter()
                    .rfind(|&s| m.syms[s].kind == DefKind::Class)?;
                Target::Symbol(inner)
            }
            // An attribute of a value: the field's type.
            Target::Instance(c) => match m.field_of(c, seg, 0)? {
                super::TypeRef::Sym(t) if m.syms[t].kind == DefKind::Class => Target::Instance(t),
                super::TypeRef::Outside(r) => Target::Outside {
                    stdlib: r == Resolution::Stdlib || r == Resolution::Builtin,
                },
                _ => return None,
            },
            Target::Outside { .. } => return Some(cur),
            _ => return None,
        };
    }
    Some(cur)
}

/// What a plain name used as a receiver names in the caller's scope.
fn first_value(m: &Model, call: &MCall<'_>, name: &str) -> Option<Target> {
    let file = call.file;
    let classes: Vec<usize> = m
        .in_file(file, name)
        .iter()
        .copied()
        .filter(|&s| m.syms[s].kind == DefKind::Class && visible(m, s, call.caller))
        .collect();
    if let Some(&c) = classes.last() {
        return Some(Target::Symbol(c));
    }
    let imp = m.imports[file].iter().rev().find(|i| i.alias == name)?;
    Some(match &imp.name {
        // `import a.b` binds `a`, the top package.
        None if imp.module != name && imp.module.starts_with(&format!("{name}.")) => {
            match module(m, file, name, imp.level) {
                Module::Project(f) => Target::Module(f),
                Module::Outside { stdlib } => Target::Outside { stdlib },
                Module::Unknown => Target::Unknown,
            }
        }
        _ => import_target(m, file, imp, 0),
    })
}

/// What an import statement binds to.
pub(super) fn import(m: &Model, file: usize, imp: &MImport) -> ImportBinding {
    if imp.alias == "*" {
        return match module(m, file, &imp.module, imp.level) {
            Module::Project(f) => ImportBinding::module(m, file, f),
            Module::Outside { stdlib } => ImportBinding::outside(outside_class(stdlib)),
            Module::Unknown => ImportBinding::UNKNOWN,
        };
    }
    match import_target(m, file, imp, 0) {
        Target::Symbol(s) => ImportBinding::symbol(m, file, s),
        Target::Module(f) => ImportBinding::module(m, file, f),
        Target::Outside { stdlib } => ImportBinding::outside(outside_class(stdlib)),
        Target::Instance(_) | Target::Unknown => ImportBinding::UNKNOWN,
    }
}

fn outside_class(stdlib: bool) -> Resolution {
    if stdlib {
        Resolution::Stdlib
    } else {
        Resolution::External
    }
}

/// Methods `name` defined in class `class` (same file, owner = class name).
fn method_of(m: &Model, class: usize, name: &str) -> Vec<usize> {
    let c = &m.syms[class];
    m.in_file(c.file, name)
        .iter()
        .copied()
        .filter(|&s| m.syms[s].parent == Some(class))
        .collect()
}
