//! Rust resolution: same-file items, `self`/`Self`, `use` paths (crate, self,
//! super, sibling crates of the workspace, `pub use` re-exports), std/prelude
//! names, then a unique project item.

use std::collections::HashSet;

use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

use tsa_lang::{DefKind, Language};

use crate::layout::RustCrate;

use super::{Binding, ImportBinding, MCall, MFile, MImport, Model, Resolution, bound};

fn std_names() -> &'static HashSet<&'static str> {
    static S: OnceLock<HashSet<&'static str>> = OnceLock::new();
    S.get_or_init(|| {
        include_str!("rust_std.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .collect()
    })
}

/// Crate roots and module paths of the project's Rust files.
pub(super) struct Modules {
    /// (crate dir, module path) -> file.
    files: HashMap<(String, Vec<String>), usize>,
    /// Per file: (crate dir, module path).
    of_file: HashMap<usize, (String, Vec<String>)>,
    /// Library name (`tsa_index`) -> crate dirs: from `Cargo.toml`, else (no
    /// manifest) the folder name of a `src/lib.rs`.
    crates: HashMap<String, Vec<String>>,
    /// The Cargo packages, for the names each one's code uses for its path
    /// dependencies.
    packages: Vec<RustCrate>,
}

/// (crate dir, module path) of a file: `crates/x/src/a/b.rs` -> (`crates/x`, [a, b]).
fn locate(path: &str) -> (String, Vec<String>) {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.iter().rposition(|p| *p == "src") {
        Some(i) => {
            let dir = parts[..i].join("/");
            let mut module: Vec<String> = parts[i + 1..].iter().map(|s| s.to_string()).collect();
            if let Some(last) = module.last_mut() {
                *last = last.trim_end_matches(".rs").to_owned();
            }
            if module.last().is_some_and(|l| l == "mod") {
                module.pop();
            }
            if module.len() == 1 && (module[0] == "lib" || module[0] == "main") {
                module.clear();
            }
            (dir, module)
        }
        // tests/, examples/, benches/, build.rs: each file is a crate root of its own.
        None => (path.trim_end_matches(".rs").to_owned(), Vec::new()),
    }
}

impl Modules {
    pub(super) fn new(files: &[MFile], packages: &[RustCrate]) -> Modules {
        let mut out = Modules {
            files: HashMap::default(),
            of_file: HashMap::default(),
            crates: HashMap::default(),
            packages: packages.to_vec(),
        };
        for p in packages.iter().filter(|p| p.lib) {
            out.crates
                .entry(p.name.clone())
                .or_default()
                .push(p.dir.clone());
        }
        let declared = !packages.is_empty();
        for (i, f) in files.iter().enumerate() {
            if f.lang != Language::Rust {
                continue;
            }
            let (dir, module) = locate(&f.path);
            if !declared && module.is_empty() && f.path.ends_with("src/lib.rs") {
                let name = dir.rsplit('/').next().unwrap_or(&dir).replace('-', "_");
                out.crates.entry(name).or_default().push(dir.clone());
            }
            out.files.insert((dir.clone(), module.clone()), i);
            out.of_file.insert(i, (dir, module));
        }
        out
    }

    /// The Cargo package a file belongs to (the nearest manifest folder above it).
    fn package_of(&self, path: &str) -> Option<&RustCrate> {
        self.packages
            .iter()
            .filter(|p| p.dir.is_empty() || path.starts_with(&format!("{}/", p.dir)))
            .max_by_key(|p| p.dir.len())
    }

    /// The folder of the crate that the name `name` means in `path`'s code: a path
    /// dependency of its package, the package's own library, or a unique library of
    /// the project with that name.
    fn crate_dir(&self, path: &str, name: &str) -> Option<String> {
        if let Some(p) = self.package_of(path) {
            if let Some((_, dir)) = p.deps.iter().find(|(n, _)| n == name) {
                return Some(dir.clone());
            }
            if p.lib && p.name == name {
                return Some(p.dir.clone());
            }
        }
        match self.crates.get(name).map(Vec::as_slice) {
            Some([dir]) => Some(dir.clone()),
            _ => None,
        }
    }
}

enum Module {
    Project(usize),
    Std,
    External,
    Unknown,
}

/// Resolves a module path written in `file`.
fn module(m: &Model, file: usize, segs: &[String]) -> Module {
    let mods = &m.rust;
    let Some((dir, here)) = mods.of_file.get(&file) else {
        return Module::Unknown;
    };
    let Some(first) = segs.first() else {
        return Module::Unknown;
    };
    let lookup = |dir: &str, path: Vec<String>| mods.files.get(&(dir.to_owned(), path)).copied();
    let (dir, path): (String, Vec<String>) = match first.as_str() {
        "std" | "core" | "alloc" => return Module::Std,
        "crate" => (dir.clone(), segs[1..].to_vec()),
        "self" => (
            dir.clone(),
            here.iter().chain(&segs[1..]).cloned().collect(),
        ),
        "super" => {
            let mut base = here.clone();
            let mut rest = segs;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            (
                dir.clone(),
                base.into_iter().chain(rest.iter().cloned()).collect(),
            )
        }
        name if mods.crate_dir(&m.files[file].path, name).is_some() => (
            mods.crate_dir(&m.files[file].path, name)
                .unwrap_or_default(),
            segs[1..].to_vec(),
        ),
        _ => {
            // A child module of this one, or of the crate root.
            let child: Vec<String> = here.iter().chain(segs).cloned().collect();
            if let Some(f) = lookup(dir, child) {
                return Module::Project(f);
            }
            if let Some(f) = lookup(dir, segs.to_vec()) {
                return Module::Project(f);
            }
            // A crate root outside `src/` (`tests/it.rs`, `examples/x.rs`): its
            // `mod common;` is `tests/common.rs` or `tests/common/mod.rs`.
            let path = &m.files[file].path;
            if here.is_empty() && !path.contains("/src/") && !path.starts_with("src/") {
                let folder = path.rsplit_once('/').map_or("", |(d, _)| d);
                let base = if folder.is_empty() {
                    segs.join("/")
                } else {
                    format!("{folder}/{}", segs.join("/"))
                };
                for key in [base.clone(), format!("{base}/mod")] {
                    if let Some(f) = lookup(&key, Vec::new()) {
                        return Module::Project(f);
                    }
                }
            }
            return Module::External;
        }
    };
    match lookup(&dir, path) {
        Some(f) => Module::Project(f),
        None => Module::Unknown,
    }
}

enum Target {
    Symbol(usize),
    Module(usize),
    Std,
    External,
    Unknown,
}

fn segs(module: &str) -> Vec<String> {
    module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

fn import_target(m: &Model, file: usize, imp: &MImport, depth: u32) -> Target {
    let Some(name) = &imp.name else {
        return Target::Unknown;
    };
    let mut path = segs(&imp.module);
    if path.is_empty() {
        // `use foo;` names a crate or module.
        return match module(m, file, std::slice::from_ref(name)) {
            Module::Project(f) => Target::Module(f),
            Module::Std => Target::Std,
            Module::External => Target::External,
            Module::Unknown => Target::Unknown,
        };
    }
    match module(m, file, &path) {
        Module::Project(f) => {
            if let Some(s) = in_module(m, f, name, depth + 1) {
                return Target::Symbol(s);
            }
            path.push(name.clone());
            match module(m, file, &path) {
                Module::Project(sf) => Target::Module(sf),
                _ => Target::Unknown,
            }
        }
        Module::Std => Target::Std,
        Module::External => Target::External,
        Module::Unknown => Target::Unknown,
    }
}

/// A top-level item `name` of module file `f`, following `pub use` re-exports.
fn in_module(m: &Model, f: usize, name: &str, depth: u32) -> Option<usize> {
    // A bounded number of module visits per lookup (glob re-exports of modules
    // that glob re-export each other).
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
    let items: Vec<usize> = m
        .in_file(f, name)
        .iter()
        .copied()
        .filter(|&s| {
            m.syms[s].parent.is_none()
                && matches!(
                    m.syms[s].kind,
                    DefKind::Function
                        | DefKind::Struct
                        | DefKind::Enum
                        | DefKind::Trait
                        | DefKind::Type
                )
        })
        .collect();
    if let Some(s) = m.unique(items, false) {
        return Some(s);
    }
    for imp in m.imports[f].iter().filter(|i| i.alias == name) {
        if let Target::Symbol(s) = import_target(m, f, imp, depth) {
            return Some(s);
        }
    }
    // Glob re-exports: `pub use tokenizer::*;`.
    for imp in m.imports[f].iter().filter(|i| i.alias == "*") {
        if let Module::Project(sf) = module(m, f, &segs(&imp.module))
            && sf != f
            && let Some(s) = in_module(m, sf, name, depth + 1)
        {
            return Some(s);
        }
    }
    None
}

/// Methods `name` of a type known only by its name `owner`, in the crates the caller
/// can reach (impl blocks may live in other files), preferring the caller's file.
fn method(m: &Model, call: &MCall<'_>, owner: &str, name: &str) -> Binding {
    let cands: Vec<usize> = m
        .methods(Language::Rust, owner, name)
        .into_iter()
        .filter(|&s| visible_crate(m, call.file, m.syms[s].file))
        .collect();
    let same_file: Vec<usize> = cands
        .iter()
        .copied()
        .filter(|&s| m.syms[s].file == call.file)
        .collect();
    let test = m.caller_is_test(call);
    if let Some(s) = m.unique(same_file, test) {
        return super::local(s);
    }
    if let Some(s) = m.unique(cands.clone(), test) {
        return bound(s, 0.9);
    }
    if !cands.is_empty() {
        return Binding::UNKNOWN;
    }
    // A provided method of a trait the type implements (`impl Trait for Owner`), or
    // the `Deref` target's.
    let types: Vec<usize> = m
        .types_named(call, owner)
        .into_iter()
        .filter(|&t| visible_crate(m, call.file, m.syms[t].file))
        .collect();
    m.inherited(call, types, name).unwrap_or(Binding::UNKNOWN)
}

/// Method `name` of the type definition `t`: defined in an impl of its crate, else
/// provided by a trait it implements or reached through its `Deref` target.
fn method_on(m: &Model, call: &MCall<'_>, t: usize, name: &str) -> Binding {
    let Some(t) = m.through_aliases(t) else {
        return Binding::UNKNOWN;
    };
    // `Shape::Circle(r)`: an enum variant builds a value of the enum.
    if m.syms[t].kind == DefKind::Enum && name.chars().next().is_some_and(char::is_uppercase) {
        let variant_methods = m.methods(Language::Rust, &m.syms[t].name, name);
        if variant_methods.is_empty() {
            return bound(t, 0.9);
        }
    }
    let cands: Vec<usize> = m
        .methods(Language::Rust, &m.syms[t].name, name)
        .into_iter()
        .filter(|&s| same_crate(m, m.syms[t].file, m.syms[s].file))
        .collect();
    let test = m.caller_is_test(call);
    if let Some(s) = m.unique(cands.clone(), test) {
        return bound(s, 0.9);
    }
    if !cands.is_empty() {
        // One method name in several trait impls for the type (`From<&str>` and
        // `From<String>`): the argument types pick one; each is a target.
        return super::variants(cands, 0.7).unwrap_or(Binding::UNKNOWN);
    }
    m.inherited(call, m.with_impls(t), name)
        .unwrap_or(Binding::UNKNOWN)
}

/// Methods of `Result` and `Option` (and their iterators' adapters): a call of one of
/// these on a value typed from a function's `Result<T>` is not a call on `T`.
pub(super) fn is_wrapper_method(name: &str) -> bool {
    matches!(
        name,
        "unwrap"
            | "expect"
            | "ok"
            | "err"
            | "map"
            | "map_err"
            | "and_then"
            | "or_else"
            | "unwrap_or"
            | "unwrap_or_else"
            | "unwrap_or_default"
            | "is_ok"
            | "is_err"
            | "is_some"
            | "is_none"
            | "as_ref"
            | "as_mut"
            | "ok_or"
            | "ok_or_else"
            | "filter"
            | "take"
            | "cloned"
            | "copied"
    )
}

/// The Cargo package (folder) of a file: from the manifests, else its crate root.
fn package_dir(m: &Model, file: usize) -> Option<String> {
    let mods = &m.rust;
    match mods.package_of(&m.files[file].path) {
        Some(p) => Some(p.dir.clone()),
        None if mods.packages.is_empty() => None,
        None => mods.of_file.get(&file).map(|(d, _)| d.clone()),
    }
}

/// Whether two files belong to one Cargo package (always, without manifests).
pub(super) fn same_crate(m: &Model, a: usize, b: usize) -> bool {
    m.rust.packages.is_empty() || package_dir(m, a) == package_dir(m, b)
}

/// Whether code in `from` can name items of `to`'s crate: its own package or one it
/// depends on by path, transitively (always, without manifests).
pub(super) fn visible_crate(m: &Model, from: usize, to: usize) -> bool {
    let mods = &m.rust;
    if mods.packages.is_empty() {
        return true;
    }
    let (Some(a), Some(b)) = (package_dir(m, from), package_dir(m, to)) else {
        return true;
    };
    if a == b {
        return true;
    }
    let mut seen = HashSet::new();
    let mut todo = vec![a];
    while let Some(d) = todo.pop() {
        if !seen.insert(d.clone()) {
            continue;
        }
        if let Some(p) = mods.packages.iter().find(|p| p.dir == d) {
            for (_, dep) in &p.deps {
                if *dep == b {
                    return true;
                }
                todo.push(dep.clone());
            }
        }
    }
    false
}

fn from_target(t: Target) -> Binding {
    match t {
        Target::Symbol(s) => bound(s, 0.9),
        Target::Std => Binding::class(Resolution::Stdlib),
        Target::External => Binding::class(Resolution::External),
        Target::Module(_) | Target::Unknown => Binding::UNKNOWN,
    }
}

/// What a `use` binding binds to.
pub(super) fn import(m: &Model, file: usize, imp: &MImport) -> ImportBinding {
    if imp.alias == "*" {
        return match module(m, file, &segs(&imp.module)) {
            Module::Project(f) => ImportBinding::module(m, file, f),
            Module::Std => ImportBinding::outside(Resolution::Stdlib),
            Module::External => ImportBinding::outside(Resolution::External),
            Module::Unknown => ImportBinding::UNKNOWN,
        };
    }
    match import_target(m, file, imp, 0) {
        Target::Symbol(s) => ImportBinding::symbol(m, file, s),
        Target::Module(f) => ImportBinding::module(m, file, f),
        Target::Std => ImportBinding::outside(Resolution::Stdlib),
        Target::External => ImportBinding::outside(Resolution::External),
        Target::Unknown => ImportBinding::UNKNOWN,
    }
}

/// The innermost inline `mod` enclosing `start` (itself included); `None` at file level.
fn module_scope(m: &Model, start: Option<usize>) -> Option<usize> {
    let mut cur = start;
    while let Some(i) = cur {
        if m.syms[i].kind == DefKind::Module {
            return Some(i);
        }
        cur = m.syms[i].parent;
    }
    None
}

pub(super) fn resolve(m: &Model, call: &MCall<'_>) -> Binding {
    let file = call.file;
    let name = call.callee;
    let test = m.caller_is_test(call);
    let callable = [DefKind::Function, DefKind::Struct, DefKind::Enum];
    let receiver = call.receiver;
    if let Some(recv) = receiver
        && !call.path
    {
        // A method call on a value: only `self.f()` has a type we know here.
        return match (recv, m.enclosing_type_sym(call.caller)) {
            ("self", Some(t)) => self_method(m, call, t, name),
            _ => Binding::UNKNOWN,
        };
    }
    match receiver {
        None => {
            // A `let` binding or parameter of that name hides every item.
            if call.shadowed {
                return Binding::UNKNOWN;
            }
            // `Self(..)`: the tuple struct an impl is for.
            if name == "Self" {
                return match m
                    .enclosing_type_sym(call.caller)
                    .and_then(|t| impl_target(m, t))
                {
                    Some(t) => bound(t, 0.95),
                    None => Binding::UNKNOWN,
                };
            }
            // 1. An item of the caller's own module in this file (free functions and
            //    tuple-struct constructors); `mod tests` items are not visible outside.
            let scope = module_scope(m, call.caller);
            let local: Vec<usize> = m
                .in_file(file, name)
                .iter()
                .copied()
                .filter(|&s| callable.contains(&m.syms[s].kind))
                .filter(|&s| module_scope(m, m.syms[s].parent) == scope)
                .collect();
            if let Some(s) = m.unique(local, test) {
                return super::local(s);
            }
            // 2. A `use` binding.
            if let Some(imp) = m.imports[file].iter().rev().find(|i| i.alias == name) {
                return from_target(import_target(m, file, imp, 0));
            }
            // 2b. A glob import (`use common::*;`, `use super::*;`).
            for imp in m.imports[file].iter().filter(|i| i.alias == "*") {
                if let Module::Project(f) = module(m, file, &segs(&imp.module))
                    && let Some(s) = in_module(m, f, name, 1)
                {
                    return bound(s, 0.8);
                }
            }
            // 3. Prelude and std names.
            if std_names().contains(name) {
                return Binding::class(Resolution::Stdlib);
            }
            // 4. A unique project item.
            match m.unique_global(call, &callable) {
                Some(s) => bound(s, 0.5),
                None => Binding::UNKNOWN,
            }
        }
        Some("Self") => match m.enclosing_type_sym(call.caller) {
            Some(t) => self_method(m, call, t, name),
            None => Binding::UNKNOWN,
        },
        Some(recv) if recv.contains("::") || recv == "crate" || recv == "super" => {
            let path = segs(recv.split('<').next().unwrap_or(recv));
            // The whole path a module: `crate::store::open()`.
            match module(m, file, &path) {
                Module::Project(f) => {
                    if let Some(s) = in_module(m, f, name, 1) {
                        return bound(s, 0.9);
                    }
                }
                Module::Std => return Binding::class(Resolution::Stdlib),
                Module::External => return Binding::class(Resolution::External),
                Module::Unknown => {}
            }
            // `path::Type::f()`: the type the path names, then its method.
            if let Some((last, head)) = path.split_last()
                && !head.is_empty()
            {
                match module(m, file, head) {
                    Module::Project(f) => {
                        if let Some(t) = in_module(m, f, last, 1)
                            && m.syms[t].kind != DefKind::Function
                        {
                            return method_on(m, call, t, name);
                        }
                    }
                    Module::Std => return Binding::class(Resolution::Stdlib),
                    Module::External => return Binding::class(Resolution::External),
                    Module::Unknown => {}
                }
            }
            // A path the modules do not explain: its last segment as a type name.
            if let Some(last) = path.last()
                && last.chars().next().is_some_and(char::is_uppercase)
            {
                return method(m, call, last, name);
            }
            Binding::UNKNOWN
        }
        Some(recv) => {
            let recv = recv.split('<').next().unwrap_or(recv);
            // A type of this file: `Store::open()`.
            let here: Vec<usize> = m
                .in_file(file, recv)
                .iter()
                .copied()
                .filter(|&s| {
                    let k = m.syms[s].kind;
                    (k.is_type() && k != DefKind::Impl) || k == DefKind::Type
                })
                .collect();
            if let Some(t) = m.unique(here, test) {
                return method_on(m, call, t, name);
            }
            // A `use`d module or type.
            if let Some(imp) = m.imports[file].iter().rev().find(|i| i.alias == recv) {
                return match import_target(m, file, imp, 0) {
                    Target::Module(f) => match in_module(m, f, name, 1) {
                        Some(s) => bound(s, 0.9),
                        None => Binding::UNKNOWN,
                    },
                    Target::Symbol(s) if m.syms[s].kind != DefKind::Function => {
                        method_on(m, call, s, name)
                    }
                    t => from_target(t),
                };
            }
            // A type defined in the project.
            if recv.chars().next().is_some_and(char::is_uppercase) {
                let b = method(m, call, recv, name);
                if b.target.is_some() {
                    return b;
                }
                if std_names().contains(recv) {
                    return Binding::class(Resolution::Stdlib);
                }
                return Binding::UNKNOWN;
            }
            // A child module (`store::open()`), or a crate (`serde_json::to_string()`).
            match module(m, file, &[recv.to_owned()]) {
                Module::Project(f) => match in_module(m, f, name, 1) {
                    Some(s) => bound(s, 0.9),
                    None => Binding::UNKNOWN,
                },
                Module::Std => Binding::class(Resolution::Stdlib),
                Module::External => Binding::class(Resolution::External),
                Module::Unknown => Binding::UNKNOWN,
            }
        }
    }
}

/// `self.f()` / `Self::f()` inside an impl or trait: the method of the type the
/// block is for (its inherent impls, its traits' provided methods, its `Deref`
/// target), or the trait's own method.
fn self_method(m: &Model, call: &MCall<'_>, t: usize, name: &str) -> Binding {
    let sym = &m.syms[t];
    if sym.kind == DefKind::Trait {
        let own: Vec<usize> = m
            .in_file(sym.file, name)
            .iter()
            .copied()
            .filter(|&s| m.syms[s].parent == Some(t))
            .collect();
        if let Some(s) = own.first() {
            return super::local(*s);
        }
        return m.inherited(call, vec![t], name).unwrap_or(Binding::UNKNOWN);
    }
    match impl_target(m, t) {
        Some(ty) => method_on(m, call, ty, name),
        None => method(m, call, &sym.name, name),
    }
}

/// The type definition an impl block (or the type itself) stands for: of its file,
/// else of its crate.
fn impl_target(m: &Model, t: usize) -> Option<usize> {
    let sym = &m.syms[t];
    let is_type = |s: usize| {
        let k = m.syms[s].kind;
        (k.is_type() || k == DefKind::Type) && k != DefKind::Impl && k != DefKind::Trait
    };
    if is_type(t) {
        return Some(t);
    }
    m.in_file(sym.file, &sym.name)
        .iter()
        .copied()
        .find(|&s| is_type(s))
        .or_else(|| {
            m.named(Language::Rust, &sym.name)
                .into_iter()
                .find(|&s| is_type(s) && same_crate(m, sym.file, m.syms[s].file))
        })
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn module_paths_of_files() {
        assert_eq!(
            locate("crates/x/src/a/b.rs"),
            ("crates/x".into(), vec!["a".into(), "b".into()])
        );
        assert_eq!(locate("src/lib.rs"), ("".into(), vec![]));
        assert_eq!(locate("src/a/mod.rs"), ("".into(), vec!["a".into()]));
        assert_eq!(locate("tests/it.rs"), ("tests/it".into(), vec![]));
    }
}
