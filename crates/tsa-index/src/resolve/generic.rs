//! Resolution for every language without a resolver of its own, driven by the
//! language's data (self receivers, builtins, stdlib prefixes, module style):
//! the caller's scopes (including its type's own methods), `this`/`self`, import
//! bindings, receivers that name a type or an imported module, builtins, then a
//! unique definition of the same language family.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use tsa_lang::{DefKind, Language, ModuleStyle};

use crate::layout::{GoModule, JsPackage, Layout};

use super::{Binding, ImportBinding, MCall, MFile, MImport, Model, Resolution, bound, local};

/// Path indexes over the project's files.
pub(super) struct Modules {
    /// Project-relative path -> file.
    pub(super) by_path: HashMap<String, usize>,
    /// Directory -> files directly in it.
    by_dir: HashMap<String, Vec<usize>>,
    /// Dotted path suffixes without extension (`com.x.Foo`, `x.Foo`, `Foo`) -> files.
    by_suffix: HashMap<String, Vec<usize>>,
    /// JVM packages: the folder below its source root (`com/x` of
    /// `src/main/java/com/x` and `src/test/java/com/x`) -> JVM files in it.
    by_package: HashMap<String, Vec<usize>>,
    /// Go modules (`go.mod`): module path -> folder.
    go_modules: Vec<GoModule>,
    /// npm packages (`package.json` with a name), longest name first.
    js_packages: Vec<JsPackage>,
}

/// A JVM file's folder below its source root: what follows the last `java`,
/// `kotlin` or `scala` folder (Maven's and Gradle's `src/main/java`,
/// `src/test/kotlin`), else the folder itself. The files of one package in the
/// main and the test tree share it.
fn jvm_package_dir(dir: &str) -> &str {
    let mut best = dir;
    for root in ["java", "kotlin", "scala"] {
        if let Some(rest) = dir.strip_prefix(&format!("{root}/")) {
            best = if rest.len() < best.len() { rest } else { best };
        }
        if let Some(i) = dir.rfind(&format!("/{root}/")) {
            let rest = &dir[i + root.len() + 2..];
            if rest.len() < best.len() {
                best = rest;
            }
        }
        if dir == root || dir.ends_with(&format!("/{root}")) {
            best = "";
        }
    }
    best
}

pub(super) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

fn strip_ext(path: &str) -> &str {
    let base_start = path.rfind('/').map(|i| i + 1).unwrap_or(0);
    match path[base_start..].find('.') {
        Some(i) => &path[..base_start + i],
        None => path,
    }
}

impl Modules {
    pub(super) fn new(files: &[MFile], layout: &Layout) -> Modules {
        let mut m = Modules {
            by_path: HashMap::default(),
            by_dir: HashMap::default(),
            by_suffix: HashMap::default(),
            by_package: HashMap::default(),
            go_modules: layout.go_modules.clone(),
            js_packages: {
                let mut p = layout.js_packages.clone();
                p.sort_by(|a, b| b.name.len().cmp(&a.name.len()).then(a.dir.cmp(&b.dir)));
                p
            },
        };
        for (i, f) in files.iter().enumerate() {
            if f.lang.family() == tsa_lang::Family::Jvm {
                m.by_package
                    .entry(jvm_package_dir(dir_of(&f.path)).to_owned())
                    .or_default()
                    .push(i);
            }
            m.by_path.insert(f.path.clone(), i);
            m.by_dir
                .entry(dir_of(&f.path).to_owned())
                .or_default()
                .push(i);
            let parts: Vec<&str> = strip_ext(&f.path).split('/').collect();
            for start in 0..parts.len() {
                m.by_suffix
                    .entry(parts[start..].join("."))
                    .or_default()
                    .push(i);
            }
        }
        m
    }
}

/// Where an import's module lives.
enum Module {
    Files(Vec<usize>),
    Stdlib,
    External,
    Unknown,
}

/// Joins `rel` onto `dir` lexically; `None` when `..` climbs above the root.
pub(super) fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

fn same_family(m: &Model, lang: Language, files: Vec<usize>) -> Vec<usize> {
    files
        .into_iter()
        .filter(|&f| lang.can_call(m.files[f].lang))
        .collect()
}

/// (model, file, the files each of its wildcard imports binds to).
type WildcardFiles = Option<(u64, usize, Vec<Vec<usize>>)>;

thread_local! {
    /// The last file whose wildcard, namespace and include imports a thread bound:
    /// (model, file, the files of each). Its calls are resolved one after another.
    static WILDCARDS: std::cell::RefCell<WildcardFiles> =
        const { std::cell::RefCell::new(None) };
}

/// `f` over the files each wildcard, namespace or include import of `file` binds
/// to, bound once per file and thread rather than once per call site.
fn with_wildcard_files<R>(m: &Model, file: usize, f: impl FnOnce(&[Vec<usize>]) -> R) -> R {
    WILDCARDS.with(|cell| {
        let mut cell = cell.borrow_mut();
        let fresh = !matches!(&*cell, Some((uid, k, _)) if *uid == m.uid && *k == file);
        if fresh {
            let files = m.imports[file]
                .iter()
                .filter(|i| i.alias == "*" || i.alias.is_empty())
                .filter_map(|imp| match module(m, file, imp) {
                    Module::Files(files) => Some(files),
                    _ => None,
                })
                .collect();
            *cell = Some((m.uid, file, files));
        }
        f(cell.as_ref().map_or(&[][..], |c| &c.2))
    })
}

fn module(m: &Model, file: usize, imp: &MImport) -> Module {
    let lang = m.files[file].lang;
    let spec = imp.module.trim();
    // C, C++: the compiler's include search.
    if lang.family() == tsa_lang::Family::C && !spec.is_empty() && !lang.is_stdlib_module(spec) {
        let (files, _) = super::c_family::include(
            &m.files,
            &m.generic.by_path,
            &m.includes.folders,
            file,
            spec,
        );
        if !files.is_empty() {
            return Module::Files(files);
        }
    }
    module_by_style(m, file, imp)
}

/// [`module`] by the language's module style.
fn module_by_style(m: &Model, file: usize, imp: &MImport) -> Module {
    let lang = m.files[file].lang;
    let mods = &m.generic;
    let spec = imp.module.trim();
    if spec.is_empty() {
        return Module::Unknown;
    }
    if lang.is_stdlib_module(spec) {
        return Module::Stdlib;
    }
    match lang.module_style() {
        ModuleStyle::RelativePath => {
            // A package of the project's own (`import x from "@acme/core"`).
            if lang.family() == tsa_lang::Family::Js
                && !spec.starts_with(['.', '/'])
                && let Some(files) = js_package_files(m, lang, spec)
            {
                return Module::Files(files);
            }
            let system = spec.starts_with('<');
            let clean = spec.trim_matches(|c| c == '<' || c == '>' || c == '"' || c == '\'');
            if !system {
                let base = dir_of(&m.files[file].path);
                // `require('..')`: a folder with a package.json means its entry.
                if lang.family() == tsa_lang::Family::Js
                    && let Some(joined) = join(base, clean)
                    && let Some(pkg) = mods.js_packages.iter().find(|p| p.dir == joined)
                    && let Some(files) = js_package_entry(m, lang, pkg, "")
                {
                    return Module::Files(files);
                }
                if let Some(joined) = join(base, clean) {
                    let mut cands = vec![joined.clone()];
                    for ext in lang.extensions().iter().chain(family_extensions(lang)) {
                        cands.push(format!("{joined}.{ext}"));
                        cands.push(format!("{joined}/index.{ext}"));
                    }
                    // ESM TypeScript names its own `.ts` files by the `.js` they
                    // compile to (`import "./util.js"` is `util.ts`).
                    if lang.family() == tsa_lang::Family::Js
                        && let Some(stem) = [".js", ".mjs", ".cjs", ".jsx"]
                            .iter()
                            .find_map(|e| joined.strip_suffix(e))
                    {
                        for ext in family_extensions(lang) {
                            cands.push(format!("{stem}.{ext}"));
                        }
                    }
                    for c in cands {
                        if let Some(&f) = mods.by_path.get(&c)
                            && lang.can_call(m.files[f].lang)
                        {
                            return Module::Files(vec![f]);
                        }
                    }
                }
            }
            // A load-path style name (`require 'app/user'`, `#include "lib/x.h"`).
            let key = strip_ext(clean).trim_start_matches("./").replace('/', ".");
            if let Some(files) = mods.by_suffix.get(&key) {
                let files = same_family(m, lang, files.clone());
                if files.len() == 1 {
                    return Module::Files(files);
                }
            }
            if clean.starts_with('.') {
                Module::Unknown
            } else {
                Module::External
            }
        }
        ModuleStyle::Qualified => {
            let dotted = spec.replace(['\\', '/'], ".").replace("::", ".");
            let dotted = dotted.trim_matches('.');
            let key = match &imp.name {
                Some(n) if n != "*" => format!("{dotted}.{n}"),
                _ => dotted.to_owned(),
            };
            for k in [key.as_str(), dotted] {
                if let Some(files) = mods.by_suffix.get(k) {
                    let files = same_family(m, lang, files.clone());
                    if !files.is_empty() {
                        return Module::Files(files);
                    }
                }
            }
            // A package: the files of the directory the dotted path names.
            let dir_key = dotted.replace('.', "/");
            let dirs: Vec<&String> = mods
                .by_dir
                .keys()
                .filter(|d| d.ends_with(&dir_key))
                .collect();
            if dirs.len() == 1 {
                return Module::Files(same_family(m, lang, mods.by_dir[dirs[0]].clone()));
            }
            Module::External
        }
        ModuleStyle::GoPackage => {
            let spec = spec.trim_matches('"');
            // A package of a module the project declares (`go.mod`): its folder, or
            // a package the index does not hold (generated, ignored): not external.
            if let Some(gm) = mods
                .go_modules
                .iter()
                .filter(|g| spec == g.path || spec.starts_with(&format!("{}/", g.path)))
                .max_by_key(|g| g.path.len())
            {
                let sub = spec[gm.path.len()..].trim_start_matches('/');
                let dir = join(&gm.dir, sub).unwrap_or_default();
                return match mods.by_dir.get(&dir) {
                    Some(files) => {
                        let files: Vec<usize> = same_family(m, lang, files.clone())
                            .into_iter()
                            .filter(|&f| !m.files[f].path.ends_with("_test.go"))
                            .collect();
                        if files.is_empty() {
                            Module::Unknown
                        } else {
                            Module::Files(files)
                        }
                    }
                    None => Module::Unknown,
                };
            }
            let segs: Vec<&str> = spec.split('/').collect();
            if !mods.go_modules.is_empty() {
                // The project states its module paths: anything else is outside it.
                return if segs.first().is_some_and(|s| !s.contains('.')) {
                    Module::Stdlib
                } else {
                    Module::External
                };
            }
            // The longest trailing run of segments that names a project directory.
            for start in 0..segs.len() {
                let tail = segs[start..].join("/");
                let dirs: Vec<&String> = mods
                    .by_dir
                    .keys()
                    .filter(|d| *d == &tail || d.ends_with(&format!("/{tail}")))
                    .collect();
                if dirs.len() == 1 {
                    return Module::Files(same_family(m, lang, mods.by_dir[dirs[0]].clone()));
                }
                if dirs.len() > 1 {
                    return Module::Unknown;
                }
            }
            if segs.first().is_some_and(|s| !s.contains('.')) {
                Module::Stdlib
            } else {
                Module::External
            }
        }
        ModuleStyle::None | ModuleStyle::Python | ModuleStyle::Rust => Module::Unknown,
    }
}

/// The file an import of a project npm package (`@acme/core`, `@acme/core/sub`)
/// means: the package's entry (`exports`, `module`, `main`, `types`; a `dist/` or
/// `lib/` entry not in the tree is looked for under `src/`), else its `index`.
fn js_package_files(m: &Model, lang: Language, spec: &str) -> Option<Vec<usize>> {
    let pkg = m
        .generic
        .js_packages
        .iter()
        .find(|p| spec == p.name || spec.starts_with(&format!("{}/", p.name)))?;
    let sub = spec[pkg.name.len()..].trim_start_matches('/');
    js_package_entry(m, lang, pkg, sub)
}

/// The file `sub` (empty: the package's entry) of a project npm package.
fn js_package_entry(m: &Model, lang: Language, pkg: &JsPackage, sub: &str) -> Option<Vec<usize>> {
    let mods = &m.generic;
    let exts = family_extensions(lang);
    let find = |base: &str| -> Option<usize> {
        let base = base.trim_end_matches('/');
        let stem = strip_ext(base);
        let mut cands = vec![base.to_owned()];
        for stem in [base, stem] {
            for ext in exts {
                cands.push(format!("{stem}.{ext}"));
                cands.push(format!("{stem}/index.{ext}"));
            }
        }
        cands
            .iter()
            .find_map(|c| mods.by_path.get(c.as_str()).copied())
            .filter(|&f| lang.can_call(m.files[f].lang))
    };
    let at = |rel: &str| join(&pkg.dir, rel);
    let mut tries: Vec<String> = Vec::new();
    if sub.is_empty() {
        for e in &pkg.entries {
            tries.push(e.clone());
            // `dist/index.js` built from `src/index.ts`.
            let rel = e.strip_prefix(&format!("{}/", pkg.dir)).unwrap_or(e);
            for built in ["dist/", "lib/", "build/", "out/", "esm/", "cjs/"] {
                if let Some(rest) = rel.strip_prefix(built) {
                    tries.extend(at(&format!("src/{rest}")));
                }
            }
        }
        tries.extend(at("src/index"));
        tries.extend(at("index"));
        tries.extend(at("lib/index"));
    } else {
        tries.extend(at(sub));
        tries.extend(at(&format!("src/{sub}")));
        tries.extend(at(&format!("lib/{sub}")));
    }
    tries.iter().find_map(|t| find(t)).map(|f| vec![f])
}

fn go_style(m: &Model, file: usize) -> bool {
    m.files[file].lang.module_style() == ModuleStyle::GoPackage
}

/// Extensions of the other languages of a family (a `.ts` file may import `./x` that is `x.js`).
fn family_extensions(lang: Language) -> &'static [&'static str] {
    match lang.family() {
        tsa_lang::Family::Js => &["ts", "tsx", "js", "jsx", "mjs", "cjs", "d.ts"],
        tsa_lang::Family::C => &["h", "hpp", "hh"],
        _ => &[],
    }
}

/// Top-level definitions named `name` in `files`.
fn top_level(m: &Model, files: &[usize], name: &str) -> Vec<usize> {
    files
        .iter()
        .flat_map(|&f| m.in_file(f, name).iter().copied())
        .filter(|&s| {
            let sym = &m.syms[s];
            // A method declared at top level (Go's `func (s *T) M()`) belongs to its type.
            (sym.parent.is_none() && sym.owner.is_none())
                || sym
                    .parent
                    .is_some_and(|p| m.syms[p].kind == DefKind::Module)
        })
        .collect()
}

/// Members `name` of the top-level type that the last segment of `module` names
/// (`import static a.b.C.f` binds C's `f`), in `files`.
fn static_members(m: &Model, files: &[usize], module: &str, name: &str) -> Vec<usize> {
    let ty = module.rsplit(['.', '/', ':']).next().unwrap_or(module);
    files
        .iter()
        .flat_map(|&f| m.in_file(f, name).iter().copied())
        .filter(|&s| {
            callable_in(m.files[m.syms[s].file].lang, m.syms[s].kind)
                && m.syms[s]
                    .parent
                    .is_some_and(|p| m.syms[p].kind.is_type() && &*m.syms[p].name == ty)
        })
        .collect()
}

enum Target {
    Symbol(usize),
    Module(Vec<usize>),
    Outside(Resolution),
    Unknown,
}

fn import_target(m: &Model, file: usize, imp: &MImport) -> Target {
    import_target_at(m, file, imp, 0)
}

/// `name` defined in `files`, or re-exported by them (`export {x} from './y'`,
/// `export * from './y'`, `pub use`-style imports of a barrel file), up to a depth.
fn exported(m: &Model, files: &[usize], name: &str, depth: u32) -> Option<usize> {
    let mut seen = std::collections::HashSet::new();
    exported_in(m, files, name, depth, &mut seen)
}

/// [`exported`], visiting each (file, name) once: barrels that re-export each
/// other (`export *` cycles through an `internal.ts`) cost one visit per file.
fn exported_in<'n>(
    m: &'n Model,
    files: &[usize],
    name: &'n str,
    depth: u32,
    seen: &mut std::collections::HashSet<(usize, &'n str)>,
) -> Option<usize> {
    let files: Vec<usize> = files
        .iter()
        .copied()
        .filter(|&f| seen.insert((f, name)))
        .collect();
    if files.is_empty() {
        return None;
    }
    let top = top_level(m, &files, name);
    if let Some(s) = m.unique(top.clone(), false) {
        return Some(s);
    }
    // TypeScript declaration merging (`type OK<T> = ...` beside `const OK = ...`):
    // what a call or `new` reaches is the value, not the type.
    let values: Vec<usize> = top
        .into_iter()
        .filter(|&s| !matches!(m.syms[s].kind, DefKind::Type | DefKind::Interface))
        .collect();
    if let Some(s) = merged_interface(m, &top_level(m, &files, name)) {
        return Some(s);
    }
    if let Some(s) = m.unique(values, false) {
        return Some(s);
    }
    if name == "default" {
        let defaults: Vec<usize> = files
            .iter()
            .flat_map(|&f| m.in_file_all(f))
            .filter(|&s| m.syms[s].default_export && m.syms[s].parent.is_none())
            .collect();
        if let Some(s) = m.unique(defaults, false) {
            return Some(s);
        }
    }
    if depth >= 6 {
        return None;
    }
    let mut found = Vec::new();
    for &f in &files {
        for imp in m.imports[f]
            .iter()
            .filter(|i| i.alias == name || i.alias == "*")
        {
            let wanted: &'n str = if imp.alias == "*" {
                name
            } else {
                imp.name.as_deref().unwrap_or(name)
            };
            if let Module::Files(next) = module(m, f, imp)
                && let Some(s) = exported_in(m, &next, wanted, depth + 1, seen)
            {
                found.push(s);
            }
        }
    }
    m.unique(found, false)
}

fn import_target_at(m: &Model, file: usize, imp: &MImport, depth: u32) -> Target {
    match module(m, file, imp) {
        Module::Files(files) => match imp.name.as_deref() {
            None | Some("*") => Target::Module(files),
            Some(n) => match exported(m, &files, n, depth) {
                Some(s) => Target::Symbol(s),
                // `export * as util from './util'` in a barrel: the module itself.
                None => match namespace_export(m, &files, n) {
                    Some(ns) => Target::Module(ns),
                    None => Target::Module(files),
                },
            },
        },
        Module::Stdlib => Target::Outside(Resolution::Stdlib),
        Module::External => Target::Outside(Resolution::External),
        Module::Unknown => Target::Unknown,
    }
}

/// TypeScript's `interface X` merged with a value `X` (`const X = ...`, a
/// constructor): the name stands for the interface, as the compiler reports it.
/// Calling a name that is only an interface compiles only when such a value exists.
fn merged_interface(m: &Model, top: &[usize]) -> Option<usize> {
    let ifaces: Vec<usize> = top
        .iter()
        .copied()
        .filter(|&s| m.syms[s].kind == DefKind::Interface)
        .collect();
    let rest_are_values = top
        .iter()
        .all(|&s| matches!(m.syms[s].kind, DefKind::Interface | DefKind::Variable));
    match ifaces[..] {
        [one] if rest_are_values => Some(one),
        _ => None,
    }
}

/// The module a barrel re-exports as a namespace under `name`
/// (`export * as name from './m'`), through `export *` chains.
fn namespace_export(m: &Model, files: &[usize], name: &str) -> Option<Vec<usize>> {
    let mut seen = std::collections::HashSet::new();
    let mut todo: Vec<usize> = files.to_vec();
    while let Some(f) = todo.pop() {
        if !seen.insert(f) || seen.len() > 64 {
            continue;
        }
        for imp in &m.imports[f] {
            if imp.alias == name && imp.name.is_none() {
                if let Module::Files(next) = module(m, f, imp) {
                    return Some(next);
                }
            } else if imp.alias == "*"
                && let Module::Files(next) = module(m, f, imp)
            {
                todo.extend(next);
            }
        }
    }
    None
}

/// What an import statement binds to.
pub(super) fn import(m: &Model, file: usize, imp: &MImport) -> ImportBinding {
    match import_target(m, file, imp) {
        Target::Symbol(s) => ImportBinding::symbol(m, file, s),
        Target::Module(files) if files.len() == 1 => ImportBinding::module(m, file, files[0]),
        Target::Module(files) if !files.is_empty() => ImportBinding {
            file: None,
            target: None,
            resolution: Resolution::Project,
        },
        Target::Outside(r) => ImportBinding::outside(r),
        _ => ImportBinding::UNKNOWN,
    }
}

/// [`callable`], and a JVM interface: `new Listener() { ... }` makes one.
fn callable_in(lang: Language, kind: DefKind) -> bool {
    callable(kind) || (kind == DefKind::Interface && lang.family() == tsa_lang::Family::Jvm)
}

fn callable(kind: DefKind) -> bool {
    matches!(
        kind,
        DefKind::Function
            | DefKind::Method
            | DefKind::Class
            | DefKind::Struct
            | DefKind::Enum
            | DefKind::Type
    )
}

/// Methods `name` of type `owner` in the family, preferring the caller's file.
fn method(m: &Model, call: &MCall<'_>, owner: &str, name: &str) -> Option<Binding> {
    let lang = m.files[call.file].lang;
    let mut cands: Vec<usize> = m
        .by_owner_any(owner, name)
        .into_iter()
        .filter(|&s| lang.can_call(m.files[m.syms[s].file].lang) && m.fits(call, s))
        .collect();
    if cands.is_empty() {
        // A type nested in `owner` (`Outer.Inner`, `new Outer.Inner()`).
        cands = m
            .named_all(name)
            .iter()
            .copied()
            .filter(|&s| {
                let sym = &m.syms[s];
                sym.kind.is_type()
                    && sym.owner.is_none()
                    && sym
                        .parent
                        .is_some_and(|p| m.syms[p].kind.is_type() && &*m.syms[p].name == owner)
                    && lang.can_call(m.files[sym.file].lang)
            })
            .collect();
    }
    let test = m.caller_is_test(call);
    let here: Vec<usize> = cands
        .iter()
        .copied()
        .filter(|&s| m.syms[s].file == call.file)
        .collect();
    if let Some(s) = m.unique(here, test) {
        return Some(local(s));
    }
    if let Some(s) = m.unique(cands.clone(), test) {
        return Some(bound(s, 0.9));
    }
    if !cands.is_empty() {
        return m.build_variants(&cands, test);
    }
    // Not defined on the type itself: inherited from a base.
    let starts = match m.enclosing_type_sym(call.caller) {
        Some(t) if &*m.syms[t].name == owner => vec![t],
        _ => m.types_named(call, owner),
    };
    m.inherited(call, starts, name)
}

/// Go: a bare call bound in the package's other files (one folder is one package;
/// `_test.go` files are seen by tests only).
fn go_package(m: &Model, call: &MCall<'_>, test: bool) -> Option<Binding> {
    let (file, name) = (call.file, call.callee);
    let lang = m.files[file].lang;
    let plain = |s: usize| callable(m.syms[s].kind) && m.syms[s].owner.is_none();
    let path = &m.files[file].path;
    let test_file = path.ends_with("_test.go");
    let package: Vec<usize> = m
        .generic
        .by_dir
        .get(dir_of(path))
        .into_iter()
        .flatten()
        .copied()
        .filter(|&f| {
            f != file
                && m.files[f].lang == lang
                && (test_file || !m.files[f].path.ends_with("_test.go"))
        })
        .collect();
    let cands: Vec<usize> = top_level(m, &package, name)
        .into_iter()
        .filter(|&s| plain(s))
        .collect();
    if let Some(s) = m.unique(cands.clone(), test) {
        return Some(bound(s, 0.95));
    }
    m.build_variants(&cands, test)
}

/// A bare call's name defined in one of the caller's enclosing definitions (so a
/// method sees its class's methods), innermost first. Only where the file defines
/// the name inside another definition: else no walk, which would cost the call's
/// nesting depth.
fn in_caller_scopes(m: &Model, call: &MCall<'_>, test: bool) -> Option<Binding> {
    let lang = m.files[call.file].lang;
    let here = m.in_file(call.file, call.callee);
    let nested = here.iter().any(|&s| m.syms[s].parent.is_some());
    let mut scope = call.caller.filter(|_| nested);
    while let Some(sc) = scope {
        // Where a bare call never means `this.f()`, a type's members are not in scope.
        if !lang.implicit_self() && m.syms[sc].kind.is_type() {
            scope = m.syms[sc].parent;
            continue;
        }
        // (An empty list allocates nothing.) A constructor is never called by
        // its bare name (`new Foo()` inside `Foo` is the class, as anywhere).
        let inner: Vec<usize> = here
            .iter()
            .copied()
            .filter(|&s| m.syms[s].parent == Some(sc) && !is_constructor(m, s) && m.fits(call, s))
            .collect();
        if let Some(s) = m.unique(inner.clone(), test) {
            return Some(local(s));
        }
        if let Some(b) = m.build_variants(&inner, test) {
            return Some(b);
        }
        scope = m.syms[sc].parent;
    }
    None
}

/// A constructor of a language that names it after its class (Java, C#, C++):
/// a method of the class's own name inside the class.
fn is_constructor(m: &Model, s: usize) -> bool {
    let sym = &m.syms[s];
    sym.kind == DefKind::Method
        && m.files[sym.file].lang.overloads()
        && sym
            .parent
            .is_some_and(|p| m.syms[p].kind.is_type() && m.syms[p].name == sym.name)
}

pub(super) fn resolve(m: &Model, call: &MCall<'_>) -> Binding {
    match call.receiver {
        None => bare(m, call),
        Some(recv) => on_receiver(m, call, recv),
    }
}

/// Java, Kotlin, Scala: a bare name among the types (and Kotlin's top-level
/// functions) of the caller's package, then the members of on-demand static
/// imports (`import static a.b.C.*`).
fn jvm_package_or_statics(m: &Model, call: &MCall<'_>, test: bool) -> Option<Binding> {
    let (file, name) = (call.file, call.callee);
    let lang = m.files[file].lang;
    // The package's types, before on-demand imports.
    let package: Vec<usize> = m
        .generic
        .by_package
        .get(jvm_package_dir(dir_of(&m.files[file].path)))
        .into_iter()
        .flatten()
        .copied()
        .filter(|&f| f != file && m.files[f].lang == lang)
        .collect();
    let cands: Vec<usize> = top_level(m, &package, name)
        .into_iter()
        .filter(|&s| callable_in(lang, m.syms[s].kind))
        .collect();
    if let Some(s) = m.unique(cands.clone(), test) {
        return Some(bound(s, 0.9));
    }
    if let Some(b) = m.build_variants(&cands, test) {
        return Some(b);
    }
    // Static on-demand imports (`import static a.b.C.*`): C's members.
    let statics: Vec<usize> = m.imports[file]
        .iter()
        .filter(|i| i.alias == "*")
        .flat_map(|imp| match module(m, file, imp) {
            Module::Files(files) => static_members(m, &files, &imp.module, name),
            _ => Vec::new(),
        })
        .collect();
    if let Some(s) = m.unique(statics.clone(), test) {
        return Some(bound(s, 0.8));
    }
    if let Some(b) = m.build_variants(&statics, test) {
        return Some(b);
    }
    None
}

/// A call without a receiver: `f()`.
fn bare(m: &Model, call: &MCall<'_>) -> Binding {
    let file = call.file;
    let lang = m.files[file].lang;
    let name = call.callee;
    let test = m.caller_is_test(call);

    // 1. The caller's scopes: enclosing definitions (so a method sees its
    //    class's methods), then the file's top level.
    if let Some(b) = in_caller_scopes(m, call, test) {
        return b;
    }
    // `f()` inside a method meaning `this.f()` of a base type (innermost
    // enclosing type first), where a bare call may mean `this.f()`.
    if lang.implicit_self() && !call.shadowed {
        let mut scope = m.enclosing_type_sym(call.caller);
        while let Some(t) = scope {
            if !m.syms[t].bases.is_empty()
                && let Some(b) = m.inherited(call, vec![t], name)
            {
                return b;
            }
            scope = m.enclosing_type_sym(m.syms[t].parent);
        }
    }
    // A local variable or parameter of that name hides the rest.
    if call.shadowed {
        return Binding::UNKNOWN;
    }
    let go = lang.module_style() == ModuleStyle::GoPackage;
    // A Go method declared at top level is never called by its bare name.
    let plain = |s: usize| callable_in(lang, m.syms[s].kind) && !(go && m.syms[s].owner.is_some());
    let top: Vec<usize> = top_level(m, &[file], name)
        .into_iter()
        .filter(|&s| plain(s))
        .collect();
    if let Some(s) = m.unique(top, test) {
        return local(s);
    }
    if lang.family() == tsa_lang::Family::Js
        && let Some(s) = merged_interface(m, &top_level(m, &[file], name))
    {
        return local(s);
    }
    if go && let Some(b) = go_package(m, call, test) {
        return b;
    }
    // 2. A name bound by an import.
    if let Some(imp) = m.imports[file].iter().rev().find(|i| i.alias == name) {
        return match import_target(m, file, imp) {
            Target::Symbol(s) => bound(s, 0.9),
            Target::Module(files) => {
                let mut cands = top_level(m, &files, name);
                if cands.is_empty() && lang.family() == tsa_lang::Family::Jvm {
                    cands = static_members(m, &files, &imp.module, name);
                }
                match m.unique(cands.clone(), test) {
                    Some(s) => bound(s, 0.9),
                    None => m
                        .build_variants(&cands, test)
                        .or_else(|| {
                            // A module called as a function (`const X =
                            // require('./x'); new X()`): its default export,
                            // never a name its own imports bring in.
                            (cands.is_empty() && !go_style(m, file))
                                .then(|| exported(m, &files, "default", 6))
                                .flatten()
                                .map(|s| bound(s, 0.9))
                        })
                        .unwrap_or(Binding::UNKNOWN),
                }
            }
            Target::Outside(r) => Binding::class(r),
            Target::Unknown => Binding::UNKNOWN,
        };
    }
    // C, C++: the headers the file reaches, then the linker.
    if lang.family() == tsa_lang::Family::C
        && let Some(b) = super::c_family::resolve_bare(m, call, test)
    {
        return b;
    }
    if lang.family() == tsa_lang::Family::Jvm
        && let Some(b) = jvm_package_or_statics(m, call, test)
    {
        return b;
    }
    // 3. Names brought in by wildcard / namespace / include imports.
    let via_imports = with_wildcard_files(m, file, |files| {
        files
            .iter()
            .flat_map(|files| top_level(m, files, name))
            .filter(|&s| callable(m.syms[s].kind))
            .collect::<Vec<_>>()
    });
    if let Some(s) = m.unique(via_imports, test) {
        return bound(s, 0.8);
    }
    // 4. Builtins.
    if lang.is_builtin(name) {
        return Binding::class(Resolution::Builtin);
    }
    // 5. A unique definition of the family.
    let cands: Vec<usize> = m
        .named_any(name)
        .into_iter()
        .filter(|&s| {
            let k = m.syms[s].kind;
            callable(k)
                && k != DefKind::Method
                && lang.can_call(m.files[m.syms[s].file].lang)
                && !m.syms[s].file_local
        })
        .collect();
    match m.unique_fallback(cands, call) {
        Some(s) => bound(s, 0.5),
        None => Binding::UNKNOWN,
    }
}

/// A call on a receiver: `x.f()`, `Type.f()`, `this.f()`, `pkg.f()`.
fn on_receiver(m: &Model, call: &MCall<'_>, recv: &str) -> Binding {
    let file = call.file;
    let lang = m.files[file].lang;
    let name = call.callee;
    let test = m.caller_is_test(call);

    // The receiver variable of the enclosing method (Go's `s` in
    // `func (s *Store) Find()`): its type is the method's owner.
    let mut scope = call.caller;
    while let Some(sc) = scope {
        let sym = &m.syms[sc];
        if sym.self_name.as_deref() == Some(recv)
            && let Some(owner) = &sym.owner
        {
            return method(m, call, owner, name).unwrap_or(Binding::UNKNOWN);
        }
        scope = sym.parent;
    }
    if matches!(recv, "super" | "parent" | "base") {
        // `super.m()`, PHP `parent::m()`, C# `base.M()`: start at the bases.
        return match m.enclosing_type_sym(call.caller) {
            Some(t) => m.inherited(call, vec![t], name).unwrap_or(Binding::UNKNOWN),
            None => Binding::UNKNOWN,
        };
    }
    if lang.self_receivers().contains(&recv) {
        return match m.enclosing_type(call.caller) {
            Some(owner) => method(m, call, owner, name).unwrap_or(Binding::UNKNOWN),
            None => Binding::UNKNOWN,
        };
    }
    // PHP's `$x`; elsewhere `$` is part of a name (Java's `$Gson$Types`).
    let recv = if lang.family() == tsa_lang::Family::Php {
        recv.trim_start_matches('$')
    } else {
        recv
    };
    // JS/TS: `z.coerce.number()`, a namespace re-exported by an imported
    // module (`import * as z`; `export * as coerce from './coerce'`).
    if lang.family() == tsa_lang::Family::Js
        && let Some((head, rest)) = recv.split_once('.')
        && let Some(imp) = m.imports[file].iter().rev().find(|i| i.alias == head)
        && let Target::Module(mut files) = import_target(m, file, imp)
    {
        for seg in rest.split('.') {
            match namespace_export(m, &files, seg) {
                Some(next) => files = next,
                None => return Binding::UNKNOWN,
            }
        }
        return match exported(m, &files, name, 0) {
            Some(s) => bound(s, 0.9),
            None => Binding::UNKNOWN,
        };
    }
    // An imported module or type.
    if let Some(imp) = m.imports[file].iter().rev().find(|i| i.alias == recv) {
        return match import_target(m, file, imp) {
            Target::Module(files) => {
                let cands = top_level(m, &files, name);
                match m.unique(cands.clone(), test) {
                    Some(s) => bound(s, 0.9),
                    None => m
                        .build_variants(&cands, test)
                        .or_else(|| {
                            // Re-exported by a barrel (`import * as core`).
                            (cands.is_empty() && !go_style(m, file))
                                .then(|| exported(m, &files, name, 0))
                                .flatten()
                                .map(|s| bound(s, 0.9))
                        })
                        .unwrap_or(Binding::UNKNOWN),
                }
            }
            Target::Symbol(s) if m.syms[s].kind.is_type() => {
                let owner = Arc::clone(&m.syms[s].name);
                method(m, call, &owner, name).unwrap_or(Binding::UNKNOWN)
            }
            // A namespace (`export namespace util { export function f() }`).
            Target::Symbol(s) if m.syms[s].kind == DefKind::Module => {
                let members: Vec<usize> = m
                    .in_file(m.syms[s].file, name)
                    .iter()
                    .copied()
                    .filter(|&x| m.syms[x].parent == Some(s))
                    .collect();
                match m.unique(members, test) {
                    Some(x) => bound(x, 0.9),
                    None => Binding::UNKNOWN,
                }
            }
            Target::Outside(r) => Binding::class(r),
            _ => Binding::UNKNOWN,
        };
    }
    let simple = recv
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    // A receiver that names a type: `Type.staticMethod()`, `Type::f()`.
    if simple
        && recv
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c == '$')
        && let Some(b) = method(m, call, recv, name)
    {
        return b;
    }
    if simple && lang.is_stdlib_module(recv) {
        return Binding::class(Resolution::Stdlib);
    }
    Binding::UNKNOWN
}

#[cfg(test)]
mod tests {
    use super::{join, jvm_package_dir, strip_ext};

    #[test]
    fn jvm_packages_span_source_roots() {
        assert_eq!(
            jvm_package_dir("gson/src/main/java/com/google/gson"),
            "com/google/gson"
        );
        assert_eq!(
            jvm_package_dir("gson/src/test/java/com/google/gson"),
            "com/google/gson"
        );
        assert_eq!(jvm_package_dir("src/main/kotlin/okio"), "okio");
        assert_eq!(jvm_package_dir("src/main/java"), "");
        assert_eq!(jvm_package_dir("java/util"), "util");
        assert_eq!(jvm_package_dir("lib/x"), "lib/x");
    }

    #[test]
    fn joins_relative_paths() {
        assert_eq!(join("src/a", "./b").as_deref(), Some("src/a/b"));
        assert_eq!(join("src/a", "../c/d").as_deref(), Some("src/c/d"));
        assert_eq!(join("", "../x"), None);
        assert_eq!(strip_ext("a/b.test.ts"), "a/b");
    }
}
