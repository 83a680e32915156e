//! Python resolution: local scope, `self`/`cls`, imports with re-exports through
//! package `__init__` files, builtins, then a unique project definition.

use std::collections::HashSet;

use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

use tsa_lang::{DefKind, Language};

use super::{Binding, ImportBinding, MCall, MFile, MImport, Model, Resolution, bound};

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
    /// Full dotted path from the project root -> file.
    exact: HashMap<String, usize>,
    /// Every dotted suffix -> files (for absolute imports under a source root).
    suffix: HashMap<String, Vec<usize>>,
}

fn module_parts(path: &str) -> Vec<String> {
    let stem = path.trim_end_matches(".pyi").trim_end_matches(".py");
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "__init__") {
        parts.pop();
    }
    parts
}

impl Modules {
    pub(super) fn new(files: &[MFile]) -> Modules {
        let mut exact = HashMap::default();
        let mut suffix: HashMap<String, Vec<usize>> = HashMap::default();
        for (i, f) in files.iter().enumerate() {
            if f.lang != Language::Python {
                continue;
            }
            let parts = module_parts(&f.path);
            if parts.is_empty() {
                continue;
            }
            exact.insert(parts.join("."), i);
            for start in 0..parts.len() {
                suffix.entry(parts[start..].join(".")).or_default().push(i);
            }
        }
        Modules { exact, suffix }
    }
}

enum Module {
    Project(usize),
    Outside { stdlib: bool },
    Unknown,
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
    if let Some(files) = mods.suffix.get(name) {
        if files.len() == 1 {
            return Module::Project(files[0]);
        }
        // Several files end with this path: take the one nearest the importer.
        let here = &m.files[file].path;
        let score = |f: usize| {
            m.files[f]
                .path
                .chars()
                .zip(here.chars())
                .take_while(|(a, b)| a == b)
                .count()
        };
        let best = files.iter().map(|&f| score(f)).max().unwrap_or(0);
        let top: Vec<usize> = files
            .iter()
            .copied()
            .filter(|&f| score(f) == best)
            .collect();
        if top.len() == 1 {
            return Module::Project(top[0]);
        }
        return Module::Unknown;
    }
    let top = name.split('.').next().unwrap_or("");
    Module::Outside {
        stdlib: stdlib().contains(top),
    }
}

/// What an imported name is.
enum Target {
    Symbol(usize),
    Module(usize),
    Outside { stdlib: bool },
    Unknown,
}

fn import_target(m: &Model, file: usize, imp: &MImport, depth: u32) -> Target {
    match &imp.name {
        None => match module(m, file, &imp.module, imp.level) {
            Module::Project(f) => Target::Module(f),
            Module::Outside { stdlib } => Target::Outside { stdlib },
            Module::Unknown => Target::Unknown,
        },
        Some(name) => match module(m, file, &imp.module, imp.level) {
            Module::Project(f) => {
                if let Some(s) = in_module(m, f, name, depth + 1) {
                    return Target::Symbol(s);
                }
                let sub = if imp.module.is_empty() {
                    name.clone()
                } else {
                    format!("{}.{}", imp.module, name)
                };
                match module(m, file, &sub, imp.level) {
                    Module::Project(sf) => Target::Module(sf),
                    _ => Target::Unknown,
                }
            }
            Module::Outside { stdlib } => Target::Outside { stdlib },
            Module::Unknown => Target::Unknown,
        },
    }
}

/// A top-level function or class `name` of module file `f`, following re-exports.
fn in_module(m: &Model, f: usize, name: &str, depth: u32) -> Option<usize> {
    if depth > 6 {
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
            if let Some(&s) = local.last() {
                return Binding {
                    target: Some(s),
                    resolution: Resolution::Local,
                    confidence: 1.0,
                };
            }
            if call.shadowed {
                return Binding::UNKNOWN;
            }
            // 2. Imports, following re-exports.
            if let Some(imp) = m.imports[file].iter().rev().find(|i| i.alias == name) {
                return match import_target(m, file, imp, 0) {
                    Target::Symbol(s) => bound(s, 0.9),
                    Target::Outside { stdlib } => outside(stdlib),
                    Target::Module(_) | Target::Unknown => Binding::UNKNOWN,
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
                    Some(&s) => Binding {
                        target: Some(s),
                        resolution: Resolution::Local,
                        confidence: 1.0,
                    },
                    // Not on the class itself: inherited from a base class.
                    None => match m.enclosing_type_sym(call.caller) {
                        Some(t) => m.inherited(call, vec![t], name).unwrap_or(Binding::UNKNOWN),
                        None => Binding::UNKNOWN,
                    },
                };
            }
            // A module: `import a.b as x; x.f()`, `import a.b; a.b.f()`, `from p import mod; mod.f()`.
            for imp in m.imports[file].iter().rev() {
                let names_module = imp.alias == recv || (imp.name.is_none() && imp.module == recv);
                if !names_module {
                    continue;
                }
                let target = if imp.name.is_none() && imp.module == recv {
                    match module(m, file, &imp.module, imp.level) {
                        Module::Project(f) => Target::Module(f),
                        Module::Outside { stdlib } => Target::Outside { stdlib },
                        Module::Unknown => Target::Unknown,
                    }
                } else {
                    import_target(m, file, imp, 0)
                };
                return match target {
                    Target::Module(f) => match in_module(m, f, name, 1) {
                        Some(s) => bound(s, 0.9),
                        None => Binding::UNKNOWN,
                    },
                    // `from m import Cls; Cls.method()`.
                    Target::Symbol(s) if m.syms[s].kind == DefKind::Class => {
                        match m.unique(method_of(m, s, name), m.caller_is_test(call)) {
                            Some(t) => bound(t, 0.9),
                            None => Binding::UNKNOWN,
                        }
                    }
                    Target::Outside { stdlib } => outside(stdlib),
                    _ => Binding::UNKNOWN,
                };
            }
            // A class of this file: `Cls.method()`.
            let classes: Vec<usize> = m
                .in_file(file, recv)
                .iter()
                .copied()
                .filter(|&s| m.syms[s].kind == DefKind::Class && m.syms[s].parent.is_none())
                .collect();
            if let Some(&c) = classes.last() {
                return match method_of(m, c, name).last() {
                    Some(&s) => Binding {
                        target: Some(s),
                        resolution: Resolution::Local,
                        confidence: 1.0,
                    },
                    None => Binding::UNKNOWN,
                };
            }
            Binding::UNKNOWN
        }
    }
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
        Target::Unknown => ImportBinding::UNKNOWN,
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
