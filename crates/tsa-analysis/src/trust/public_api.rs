//! Public API, by language: a definition that code outside the project may call, so
//! its true caller count is unknowable. Conservative but not absurd: a test file is
//! never public API, and an application (no library layout) does not make every
//! function public.
//!
//! - Python: a top-level, non-underscore function or class (or a public or dunder
//!   method of such a class) in a package (its folder has an indexed `__init__.py`)
//!   that a package `__init__.py` re-exports (an import there resolved to it), that
//!   `__all__` names (its module's or its package's), or that the `__init__.py`
//!   itself defines.
//! - Rust: `pub` (not `pub(crate)`/`pub(super)`/`pub(in ..)`), or a method of a `pub`
//!   trait, in a library crate (the nearest folder with an indexed `src/lib.rs`),
//!   outside the crate's binaries, build script, examples, benches and tests.
//! - Go: an exported identifier (upper-case first letter; a method also needs an
//!   exported type) in a package other than `main`, outside `internal/` folders.
//! - Rust and Go: a definition exported to another language (a binding marker the
//!   extractor puts before its signature: `#[pyfunction]`, `#[napi]`, `#[no_mangle]`,
//!   `//export Name`, ...), wherever it lives.
//! - JavaScript/TypeScript: exported (`export` in its signature or on its line, or
//!   named by an export statement or `module.exports`), or a public method of an exported class, in a
//!   file of a package (the nearest `package.json` above it) not marked private.
//!
//! - Java, Kotlin, Scala: a visible member of visible types (Java: `public` or
//!   `protected`, or a member of an interface; Kotlin, Scala: not `private` or
//!   `internal`) in a library module: the nearest build file above it (`pom.xml`,
//!   `build.gradle[.kts]`, `build.xml`, `BUILD[.bazel]`) builds no application
//!   (Gradle's `application` plugin, Spring Boot, a Maven `war`).
//!
//! Other languages have no public-API rule yet: their definitions are never public.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use tsa_lang::PublicApi;

use tsa_index::{Index, PackageImport, SymbolRow};

use crate::ToolError;
use crate::semdiff::Version;

/// What the rules read about one definition (an index row, or a definition of a
/// parsed version that the index may not hold).
#[derive(Clone, Debug)]
pub struct Subject {
    pub id: Option<i64>,
    pub name: String,
    pub qualname: String,
    pub kind: String,
    pub owner: Option<String>,
    pub file: String,
    pub language: String,
    pub signature: String,
    pub line: u32,
    pub is_test: bool,
    /// The enclosing definition; `None` at top level.
    pub parent: Option<Box<Subject>>,
}

impl Subject {
    /// An index row, with its enclosing definitions.
    pub fn from_row(row: &SymbolRow, parent: Option<Subject>) -> Subject {
        Subject {
            id: Some(row.id),
            name: row.name.clone(),
            qualname: row.qualname.clone(),
            kind: row.kind.clone(),
            owner: row.owner.clone(),
            file: row.file.clone(),
            language: row.language.clone(),
            signature: row.signature.clone(),
            line: row.line,
            is_test: row.is_test,
            parent: parent.map(Box::new),
        }
    }

    /// Definition `i` of a parsed version of `file`, with its enclosing definitions;
    /// `id` is its index row when the index holds it.
    pub fn from_version(
        v: &Version,
        i: usize,
        file: &str,
        language: &str,
        id: Option<i64>,
    ) -> Subject {
        let d = &v.defs[i];
        let parent = d
            .parent
            .map(|p| Box::new(Subject::from_version(v, p, file, language, None)));
        Subject {
            id,
            name: d.name.clone(),
            qualname: d.qualname.clone(),
            kind: d.kind.to_owned(),
            owner: parent.as_ref().map(|p| p.name.clone()).or_else(|| {
                d.qualname
                    .rsplit_once(['.', ':'])
                    .map(|(o, _)| o.rsplit(['.', ':']).next().unwrap_or(o).to_owned())
                    .filter(|o| !o.is_empty())
            }),
            file: file.to_owned(),
            language: language.to_owned(),
            signature: d.signature.clone(),
            line: d.line,
            is_test: tsa_lang::is_test_path(file)
                || (language == "rust" && d.qualname.starts_with("tests::")),
            parent,
        }
    }
}

/// The subjects of index rows, their enclosing definitions loaded in batches.
pub fn subjects_of(index: &Index, defs: &[SymbolRow]) -> Result<Vec<Subject>, ToolError> {
    fn load(index: &Index, defs: &[SymbolRow], depth: u32) -> Result<Vec<Subject>, ToolError> {
        if defs.is_empty() {
            return Ok(Vec::new());
        }
        let parent_of = if depth == 0 {
            HashMap::new()
        } else {
            index.parents_of(&defs.iter().map(|d| d.id).collect::<Vec<_>>())?
        };
        let mut ids: Vec<i64> = parent_of.values().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        let rows = index.symbols_by_id(&ids)?;
        let parent_rows: Vec<SymbolRow> = ids.iter().filter_map(|i| rows.get(i).cloned()).collect();
        let parents = load(index, &parent_rows, depth.saturating_sub(1))?;
        let by_id: HashMap<i64, &Subject> = parents
            .iter()
            .filter_map(|p| p.id.map(|i| (i, p)))
            .collect();
        Ok(defs
            .iter()
            .map(|d| {
                let parent = parent_of
                    .get(&d.id)
                    .and_then(|p| by_id.get(p))
                    .map(|p| (*p).clone());
                Subject::from_row(d, parent)
            })
            .collect())
    }
    load(index, defs, 3)
}

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// Folders from `dir` up to the root (`""`), nearest first.
fn ancestors(dir: &str) -> Vec<&str> {
    let mut out = vec![dir];
    let mut d = dir;
    while !d.is_empty() {
        d = dir_of(d);
        out.push(d);
    }
    out
}

/// A signature split into the language-binding markers an extractor may put in
/// front of it (`#[pyfunction]`, `#[napi(..)]`, `//export Name`) and the rest.
fn split_markers(sig: &str) -> (Vec<&str>, &str) {
    let mut markers = Vec::new();
    let mut rest = sig.trim_start();
    loop {
        if rest.starts_with("#[") {
            let mut depth = 0i32;
            // From the `[` after `#`: the end is just past its matching `]`.
            let end = rest[1..].char_indices().find_map(|(i, c)| {
                match c {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(i + 2)
            });
            let Some(end) = end else { break };
            markers.push(&rest[..end]);
            rest = rest[end..].trim_start();
        } else if let Some(after) = rest.strip_prefix("//export ") {
            let name_end = after.find(char::is_whitespace).unwrap_or(after.len());
            let end = "//export ".len() + name_end;
            markers.push(&rest[..end]);
            rest = rest[end..].trim_start();
        } else {
            break;
        }
    }
    (markers, rest)
}

/// Whether a Rust signature is visible outside its crate.
fn rust_pub(sig: &str) -> bool {
    split_markers(sig).1.starts_with("pub ")
}

/// The names a Python `__all__` lists (every assignment, `+=`, `.extend`, `.append`).
pub fn all_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("__all__") {
        let after = &rest[at + "__all__".len()..];
        rest = after;
        let t = after.trim_start();
        let body = if let Some(b) = t.strip_prefix("+=").or_else(|| t.strip_prefix('=')) {
            b
        } else if let Some(b) = t
            .strip_prefix(".extend(")
            .or_else(|| t.strip_prefix(".append("))
        {
            b
        } else {
            continue;
        };
        let body = body.trim_start();
        let (open, close) = match body.chars().next() {
            Some('[') => ('[', ']'),
            Some('(') => ('(', ')'),
            Some('{') => ('{', '}'),
            _ => ('\0', '\n'),
        };
        let inner = if open == '\0' {
            body.split('\n').next().unwrap_or("")
        } else {
            let b = &body[1..];
            &b[..b.find(close).unwrap_or(b.len())]
        };
        for q in ['"', '\''] {
            let mut parts = inner.split(q);
            parts.next();
            while let (Some(name), Some(_)) = (parts.next(), parts.next()) {
                if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    out.push(name.to_owned());
                }
            }
        }
    }
    out
}

fn ident_end(s: &str) -> usize {
    s.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(s.len())
}

/// The names a JavaScript/TypeScript file exports by statement: `export { a, b as
/// c }`, `export default a`, `module.exports = a` / `= { a, b }`,
/// `module.exports.a =`, `exports.a =`.
pub fn js_exported_names(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let add_list = |list: &str, out: &mut HashSet<String>| {
        for item in list.split(',') {
            let local = item.split_whitespace().next().unwrap_or("");
            let local = local.split(':').next().unwrap_or("").trim();
            if !local.is_empty() && ident_end(local) == local.len() {
                out.insert(local.to_owned());
            }
        }
    };
    for (i, _) in text.match_indices("export") {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let t = text[i + "export".len()..].trim_start();
        if let Some(b) = t.strip_prefix('{') {
            let list = &b[..b.find('}').unwrap_or(b.len())];
            add_list(list, &mut out);
        } else if let Some(b) = t.strip_prefix("default") {
            let b = b.trim_start();
            let n = &b[..ident_end(b)];
            if !n.is_empty() && !matches!(n, "function" | "class" | "async") {
                out.insert(n.to_owned());
            }
        }
    }
    for (i, _) in text.match_indices("exports") {
        let t = &text[i + "exports".len()..];
        if let Some(b) = t.strip_prefix('.') {
            let n = &b[..ident_end(b)];
            if !n.is_empty() {
                out.insert(n.to_owned());
            }
        } else {
            let t = t.trim_start();
            if let Some(b) = t.strip_prefix('=').filter(|b| !b.starts_with('=')) {
                let b = b.trim_start();
                if let Some(obj) = b.strip_prefix('{') {
                    let list = &obj[..obj.find('}').unwrap_or(obj.len())];
                    add_list(list, &mut out);
                } else {
                    let n = &b[..ident_end(b)];
                    if !n.is_empty() {
                        out.insert(n.to_owned());
                    }
                }
            }
        }
    }
    out
}

/// The lazily loaded facts the rules consult, cached across subjects.
#[derive(Default)]
pub struct Facts {
    package_imports: Option<Vec<PackageImport>>,
    indexed: HashMap<String, bool>,
    texts: HashMap<String, Option<String>>,
    /// Per folder: `Some(private)` when it holds a package.json.
    package_json: HashMap<String, Option<bool>>,
    /// Per folder: `Some((build file, is an application))` when it holds a JVM build file.
    jvm_build: HashMap<String, Option<(&'static str, bool)>>,
    /// Per folder: the text of its `Package.swift`, if it has one.
    swift_package: HashMap<String, Option<String>>,
    /// Per folder: its `.csproj` (file name, builds a library), if it has one.
    csproj: HashMap<String, Option<(String, bool)>>,
    /// Per folder: whether its `composer.json` is a library, if it has one.
    composer: HashMap<String, Option<bool>>,
}

impl Facts {
    fn indexed(&mut self, index: &Index, path: &str) -> Result<bool, ToolError> {
        if let Some(b) = self.indexed.get(path) {
            return Ok(*b);
        }
        let b = index.is_indexed(path)?;
        self.indexed.insert(path.to_owned(), b);
        Ok(b)
    }

    fn text(&mut self, root: &Path, path: &str) -> Option<&str> {
        self.texts
            .entry(path.to_owned())
            .or_insert_with(|| crate::security::read_text_in_root(root, path).ok())
            .as_deref()
    }

    fn package_imports(&mut self, index: &Index) -> Result<&[PackageImport], ToolError> {
        if self.package_imports.is_none() {
            self.package_imports = Some(index.package_imports()?);
        }
        Ok(self.package_imports.as_deref().unwrap_or_default())
    }

    /// The public-API reason of `s`, or `None`.
    pub fn reason(
        &mut self,
        index: &Index,
        root: &Path,
        s: &Subject,
    ) -> Result<Option<String>, ToolError> {
        if s.is_test || tsa_lang::is_test_path(&s.file) {
            return Ok(None);
        }
        let rule = tsa_lang::Language::from_name(&s.language)
            .and_then(|l| l.conventions().public_api.get().copied());
        match rule {
            Some(PublicApi::PythonPackage) => self.python(index, root, s),
            Some(PublicApi::RustLibraryCrate) => self.rust(index, s),
            Some(PublicApi::GoExported) => Ok(self.go(root, s)),
            Some(PublicApi::EcmaPackageExport) => Ok(self.js(root, s)),
            Some(PublicApi::JvmLibrary) => Ok(self.jvm(root, s)),
            Some(PublicApi::SwiftLibrary) => Ok(self.swift(root, s)),
            Some(PublicApi::DotnetLibrary) => Ok(self.dotnet(root, s)),
            Some(PublicApi::ComposerLibrary) => Ok(self.composer(root, s)),
            Some(PublicApi::Undetected) | None => Ok(None),
        }
    }

    fn python(
        &mut self,
        index: &Index,
        root: &Path,
        s: &Subject,
    ) -> Result<Option<String>, ToolError> {
        // The top-level definition that carries the API: itself, or its class.
        let top = match s.parent.as_deref() {
            None => s,
            Some(p) if p.parent.is_none() && p.kind == "class" => {
                if s.name.starts_with('_') && !is_dunder(&s.name) {
                    return Ok(None);
                }
                p
            }
            Some(_) => return Ok(None),
        };
        if top.name.starts_with('_') || !matches!(top.kind.as_str(), "function" | "class") {
            return Ok(None);
        }
        let what = if top.qualname == s.qualname {
            format!("'{}'", s.qualname)
        } else {
            format!("'{}' (a method of public class '{}')", s.qualname, top.name)
        };
        let dir = dir_of(&s.file);
        let init = join(dir, "__init__.py");
        if s.file == init {
            return Ok(Some(format!(
                "{what} is defined in package {}",
                if dir.is_empty() { "." } else { dir }
            )));
        }
        if !self.indexed(index, &init)? {
            return Ok(None);
        }
        let reexport = self
            .package_imports(index)?
            .iter()
            .find(|pi| match pi.target_id {
                Some(t) => top.id == Some(t),
                None => {
                    pi.target_file.as_deref() == Some(s.file.as_str())
                        && pi.name.as_deref() == Some(top.name.as_str())
                }
            });
        if let Some(pi) = reexport {
            return Ok(Some(format!("{what} is re-exported by {}", pi.init_file)));
        }
        for file in [s.file.clone(), init] {
            if self
                .text(root, &file)
                .is_some_and(|t| all_names(t).contains(&top.name))
            {
                return Ok(Some(format!("{what} is named in __all__ of {file}")));
            }
        }
        Ok(None)
    }

    fn rust(&mut self, index: &Index, s: &Subject) -> Result<Option<String>, ToolError> {
        if let Some(m) = split_markers(&s.signature).0.first() {
            return Ok(Some(format!(
                "'{}' is exported to another language ({m})",
                s.qualname
            )));
        }
        let visible = rust_pub(&s.signature)
            || s.parent
                .as_deref()
                .is_some_and(|p| p.kind == "trait" && rust_pub(&p.signature));
        if !visible {
            return Ok(None);
        }
        for d in ancestors(dir_of(&s.file)) {
            if self.indexed(index, &join(d, "src/lib.rs"))? {
                let rel = if d.is_empty() {
                    s.file.as_str()
                } else {
                    &s.file[d.len() + 1..]
                };
                let binary = rel == "src/main.rs"
                    || rel.starts_with("src/bin/")
                    || rel == "build.rs"
                    || ["examples/", "benches/", "tests/"]
                        .iter()
                        .any(|p| rel.starts_with(p));
                if binary {
                    return Ok(None);
                }
                return Ok(Some(format!(
                    "'{}' is pub in the library crate at {}",
                    s.qualname,
                    if d.is_empty() { "." } else { d }
                )));
            }
            if self.indexed(index, &join(d, "src/main.rs"))? {
                return Ok(None);
            }
        }
        Ok(None)
    }

    fn go(&mut self, root: &Path, s: &Subject) -> Option<String> {
        if let Some(m) = split_markers(&s.signature).0.first() {
            return Some(format!(
                "'{}' is exported to another language ({m})",
                s.qualname
            ));
        }
        let exported = |n: &str| n.chars().next().is_some_and(char::is_uppercase);
        if !exported(&s.name) {
            return None;
        }
        let owner = s
            .parent
            .as_deref()
            .map(|p| p.name.as_str())
            .or(s.owner.as_deref());
        if owner.is_some_and(|o| !exported(o)) {
            return None;
        }
        if s.file.split('/').any(|seg| seg == "internal") {
            return None;
        }
        let pkg = self.text(root, &s.file).and_then(|t| {
            t.lines()
                .map(str::trim_start)
                .find_map(|l| l.strip_prefix("package "))
                .map(|p| p.trim().to_owned())
        })?;
        if pkg == "main" {
            return None;
        }
        Some(format!(
            "'{}' is exported from Go package {pkg}",
            s.qualname
        ))
    }

    fn js(&mut self, root: &Path, s: &Subject) -> Option<String> {
        let top = match s.parent.as_deref() {
            None => s,
            Some(p) if p.parent.is_none() && p.kind == "class" => {
                let private = s.name.starts_with('#')
                    || s.name.starts_with('_')
                    || s.signature.starts_with("private ")
                    || s.signature.starts_with("protected ");
                if private {
                    return None;
                }
                p
            }
            Some(_) => return None,
        };
        let text = self.text(root, &s.file)?;
        let own_line = text
            .lines()
            .nth(top.line.saturating_sub(1) as usize)
            .unwrap_or("")
            .trim_start();
        let exported = top.signature.starts_with("export ")
            || own_line.starts_with("export ")
            || js_exported_names(text).contains(top.name.as_str());
        if !exported {
            return None;
        }
        let package = self.package_of(root, &s.file)?;
        Some(if top.qualname == s.qualname {
            format!("'{}' is exported by package {package}", s.qualname)
        } else {
            format!(
                "'{}' is a public method of class '{}', exported by package {package}",
                s.qualname, top.name
            )
        })
    }

    fn jvm(&mut self, root: &Path, s: &Subject) -> Option<String> {
        let mut cur = Some(s);
        while let Some(d) = cur {
            if !jvm_visible(&s.language, d) {
                return None;
            }
            cur = d.parent.as_deref();
        }
        for d in ancestors(dir_of(&s.file)) {
            let found = match self.jvm_build.get(d) {
                Some(f) => *f,
                None => {
                    let f = JVM_BUILD_FILES.iter().find_map(|&name| {
                        let text = crate::security::read_text_in_root(root, &join(d, name)).ok()?;
                        Some((name, jvm_application(&text)))
                    });
                    self.jvm_build.insert(d.to_owned(), f);
                    f
                }
            };
            if let Some((file, application)) = found {
                return (!application).then(|| {
                    format!(
                        "'{}' is public in the library module at {} ({file})",
                        s.qualname,
                        if d.is_empty() { "." } else { d }
                    )
                });
            }
        }
        None
    }

    fn swift(&mut self, root: &Path, s: &Subject) -> Option<String> {
        let mut cur = Some(s);
        while let Some(d) = cur {
            if !swift_visible(d) {
                return None;
            }
            cur = d.parent.as_deref();
        }
        for d in ancestors(dir_of(&s.file)) {
            let text = self
                .swift_package
                .entry(d.to_owned())
                .or_insert_with(|| {
                    crate::security::read_text_in_root(root, &join(d, "Package.swift")).ok()
                })
                .as_deref();
            let Some(text) = text else { continue };
            let squashed: String = text.split_whitespace().collect();
            if !squashed.contains(".library(") {
                return None;
            }
            // `Sources/<target>/...`: an executable target is no library's API.
            let rel = if d.is_empty() {
                s.file.as_str()
            } else {
                s.file.get(d.len() + 1..).unwrap_or("")
            };
            let target = rel
                .strip_prefix("Sources/")
                .and_then(|r| r.split('/').next());
            if let Some(t) = target {
                let exe = format!(".executableTarget(name:\"{t}\"");
                if squashed.contains(&exe) || rel.ends_with("/main.swift") {
                    return None;
                }
            }
            return Some(format!(
                "'{}' is public in the Swift package at {} (Package.swift declares a library)",
                s.qualname,
                if d.is_empty() { "." } else { d }
            ));
        }
        None
    }

    fn dotnet(&mut self, root: &Path, s: &Subject) -> Option<String> {
        let mut cur = Some(s);
        while let Some(d) = cur {
            if d.kind != "module" && !dotnet_visible(d) {
                return None;
            }
            cur = d.parent.as_deref();
        }
        for d in ancestors(dir_of(&s.file)) {
            let found = self
                .csproj
                .entry(d.to_owned())
                .or_insert_with(|| {
                    // The folder's entries are read only to find the project's name.
                    let mut names: Vec<String> = std::fs::read_dir(root.join(d))
                        .ok()?
                        .filter_map(|e| e.ok()?.file_name().into_string().ok())
                        .filter(|n| n.ends_with(".csproj"))
                        .collect();
                    names.sort();
                    let name = names.into_iter().next()?;
                    let text = crate::security::read_text_in_root(root, &join(d, &name)).ok()?;
                    Some((name, !dotnet_application(&text)))
                })
                .clone();
            if let Some((name, library)) = found {
                return library.then(|| {
                    format!(
                        "'{}' is public in the library project {}",
                        s.qualname,
                        join(d, &name)
                    )
                });
            }
        }
        None
    }

    fn composer(&mut self, root: &Path, s: &Subject) -> Option<String> {
        let mut cur = Some(s);
        while let Some(d) = cur {
            if jvm_modifiers(&d.signature, &d.name).contains(&"private") {
                return None;
            }
            cur = d.parent.as_deref();
        }
        for d in ancestors(dir_of(&s.file)) {
            let found = *self.composer.entry(d.to_owned()).or_insert_with(|| {
                let text =
                    crate::security::read_text_in_root(root, &join(d, "composer.json")).ok()?;
                let squashed: String = text.split_whitespace().collect();
                Some(!squashed.contains("\"type\":\"project\""))
            });
            if let Some(library) = found {
                return library.then(|| {
                    format!(
                        "'{}' is public in the Composer package at {}",
                        s.qualname,
                        if d.is_empty() { "." } else { d }
                    )
                });
            }
        }
        None
    }

    /// The folder of the nearest package.json above `file`, when that package is
    /// not marked `"private": true`.
    fn package_of(&mut self, root: &Path, file: &str) -> Option<String> {
        for d in ancestors(dir_of(file)) {
            let private = match self.package_json.get(d) {
                Some(p) => *p,
                None => {
                    let p = crate::security::read_text_in_root(root, &join(d, "package.json"))
                        .ok()
                        .map(|t| {
                            let squashed: String = t.split_whitespace().collect();
                            squashed.contains("\"private\":true")
                        });
                    self.package_json.insert(d.to_owned(), p);
                    p
                }
            };
            if let Some(private) = private {
                return (!private).then(|| {
                    if d.is_empty() {
                        ".".to_owned()
                    } else {
                        d.to_owned()
                    }
                });
            }
        }
        None
    }
}

/// Build files of a JVM module, nearest first in a folder.
const JVM_BUILD_FILES: [&str; 6] = [
    "pom.xml",
    "build.gradle.kts",
    "build.gradle",
    "build.xml",
    "BUILD.bazel",
    "BUILD",
];

/// Whether a JVM build file builds an application rather than a library.
fn jvm_application(text: &str) -> bool {
    let squashed: String = text.split_whitespace().collect();
    [
        "id(\"application\")",
        "id'application'",
        "id\"application\"",
        "plugin:'application'",
        "plugin:\"application\"",
        "org.springframework.boot",
        "spring-boot-maven-plugin",
        "<packaging>war</packaging>",
        "java_binary(",
    ]
    .iter()
    .any(|m| squashed.contains(m))
}

/// The modifier words of a signature: the words before the definition's name,
/// annotations and attributes (`@Deprecated("x")`, `@available(iOS 13, *)`) and
/// their arguments skipped.
fn jvm_modifiers<'a>(signature: &'a str, name: &str) -> Vec<&'a str> {
    let mut rest = signature.trim_start();
    // C# attributes: `[Obsolete("x")] public void F()`.
    while rest.starts_with('[') {
        let close = rest.find(']').map_or(rest.len(), |i| i + 1);
        rest = rest[close..].trim_start();
    }
    while let Some(after) = rest.strip_prefix('@') {
        let end = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(after.len());
        let mut tail = &after[end..];
        if tail.starts_with('(') {
            let mut depth = 0usize;
            let mut close = tail.len();
            for (i, c) in tail.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            close = i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            tail = &tail[close..];
        }
        rest = tail.trim_start();
    }
    let head = rest.split('(').next().unwrap_or(rest);
    let head = head.find(&format!(" {name}")).map_or(head, |i| &head[..i]);
    head.split_whitespace().collect()
}

/// Whether a `.csproj` builds an application or a test project, not a library.
fn dotnet_application(text: &str) -> bool {
    let squashed: String = text.split_whitespace().collect();
    [
        "<OutputType>Exe</OutputType>",
        "<OutputType>WinExe</OutputType>",
        "Sdk=\"Microsoft.NET.Sdk.Web\"",
        "<IsTestProject>true</IsTestProject>",
        "Include=\"Microsoft.NET.Test.Sdk\"",
    ]
    .iter()
    .any(|m| squashed.contains(&m.split_whitespace().collect::<String>()))
}

/// Whether a C# definition is visible outside its assembly by its own modifiers:
/// `public` or `protected` (not `private protected`), or an interface's member
/// with no narrower word.
fn dotnet_visible(d: &Subject) -> bool {
    let words = jvm_modifiers(&d.signature, &d.name);
    if words.contains(&"private") {
        return false;
    }
    if words.iter().any(|w| matches!(*w, "public" | "protected")) {
        return true;
    }
    !words.contains(&"internal") && d.parent.as_deref().is_some_and(|p| p.kind == "interface")
}

/// Whether a Swift definition is visible outside its module by its own modifiers
/// or its container's: `public`/`open`, or no narrower word inside a public
/// protocol or a `public extension`; an extension itself passes unless private.
fn swift_visible(d: &Subject) -> bool {
    let words = jvm_modifiers(&d.signature, &d.name);
    let narrow = words
        .iter()
        .any(|w| matches!(*w, "private" | "fileprivate" | "internal"));
    if narrow {
        return false;
    }
    if words.iter().any(|w| matches!(*w, "public" | "open")) || d.kind == "impl" {
        return true;
    }
    d.parent.as_deref().is_some_and(|p| {
        let public = jvm_modifiers(&p.signature, &p.name).contains(&"public");
        public && matches!(p.kind.as_str(), "interface" | "impl")
    })
}

/// Whether a JVM definition is visible outside its module by its own modifiers.
fn jvm_visible(language: &str, d: &Subject) -> bool {
    let words = jvm_modifiers(&d.signature, &d.name);
    match language {
        "java" => {
            let in_interface = d.parent.as_deref().is_some_and(|p| p.kind == "interface");
            words.iter().any(|w| matches!(*w, "public" | "protected"))
                || (in_interface && !words.contains(&"private"))
        }
        _ => !words
            .iter()
            .any(|w| matches!(*w, "private" | "internal" | "private[this]")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jvm_visibility_and_applications() {
        let subject = |kind: &str, name: &str, sig: &str, parent: Option<Subject>| Subject {
            id: None,
            name: name.into(),
            qualname: name.into(),
            kind: kind.into(),
            owner: None,
            file: "lib/src/main/java/a/A.java".into(),
            language: "java".into(),
            signature: sig.into(),
            line: 1,
            is_test: false,
            parent: parent.map(Box::new),
        };
        let iface = subject("interface", "Api", "public interface Api", None);
        let m = subject("method", "run", "void run();", Some(iface.clone()));
        assert!(jvm_visible("java", &m));
        let p = subject("method", "go", "@Override public final int go(int a)", None);
        assert!(jvm_visible("java", &p));
        let q = subject("method", "hook", "protected void hook()", None);
        assert!(jvm_visible("java", &q));
        let pkg = subject("method", "local", "static int local()", None);
        assert!(!jvm_visible("java", &pkg));
        let pri = subject("method", "secret", "private void secret()", Some(iface));
        assert!(!jvm_visible("java", &pri));
        let ann = subject(
            "method",
            "old",
            "@Deprecated(since = \"2\") public void old()",
            None,
        );
        assert!(jvm_visible("java", &ann));
        let k = subject("function", "open", "fun open(path: String): Buffer", None);
        assert!(jvm_visible("kotlin", &k));
        let ki = subject("function", "hidden", "internal fun hidden()", None);
        assert!(!jvm_visible("kotlin", &ki));
        assert!(jvm_application("plugins {\n  id 'application'\n}"));
        assert!(jvm_application(
            "plugins { id(\"org.springframework.boot\") }"
        ));
        assert!(!jvm_application(
            "<project><packaging>jar</packaging></project>"
        ));
    }

    #[test]
    fn dotnet_and_composer_rules() {
        let subject = |kind: &str, name: &str, sig: &str, parent: Option<Subject>| Subject {
            id: None,
            name: name.into(),
            qualname: name.into(),
            kind: kind.into(),
            owner: None,
            file: "src/Lib/A.cs".into(),
            language: "csharp".into(),
            signature: sig.into(),
            line: 1,
            is_test: false,
            parent: parent.map(Box::new),
        };
        let c = subject("class", "Log", "public static class Log", None);
        let m = subject(
            "method",
            "Write",
            "[Obsolete(\"x\")] public static void Write(string s)",
            Some(c.clone()),
        );
        assert!(dotnet_visible(&m));
        let p = subject(
            "method",
            "Hook",
            "protected internal void Hook()",
            Some(c.clone()),
        );
        assert!(dotnet_visible(&p));
        let pp = subject(
            "method",
            "Peek",
            "private protected void Peek()",
            Some(c.clone()),
        );
        assert!(!dotnet_visible(&pp));
        let dflt = subject("method", "Tick", "void Tick()", Some(c));
        assert!(!dotnet_visible(&dflt));
        let i = subject("interface", "ILog", "public interface ILog", None);
        let req = subject("method", "Emit", "void Emit(string s);", Some(i));
        assert!(dotnet_visible(&req));
        let top = subject("class", "Impl", "class Impl", None);
        assert!(!dotnet_visible(&top));
        assert!(dotnet_application(
            "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><OutputType>Exe</OutputType></PropertyGroup></Project>"
        ));
        assert!(dotnet_application(
            "<Project Sdk=\"Microsoft.NET.Sdk.Web\"></Project>"
        ));
        assert!(!dotnet_application(
            "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>"
        ));
        assert_eq!(
            jvm_modifiers("private function secret($x)", "secret"),
            ["private", "function"]
        );
    }

    #[test]
    fn swift_visibility() {
        let subject = |kind: &str, name: &str, sig: &str, parent: Option<Subject>| Subject {
            id: None,
            name: name.into(),
            qualname: name.into(),
            kind: kind.into(),
            owner: None,
            file: "Sources/Net/A.swift".into(),
            language: "swift".into(),
            signature: sig.into(),
            line: 1,
            is_test: false,
            parent: parent.map(Box::new),
        };
        let e = subject("enum", "Endpoint", "public enum Endpoint", None);
        let m = subject(
            "method",
            "delay",
            "@available(iOS 13, *) public static func delay(_ s: Int) -> Endpoint",
            Some(e.clone()),
        );
        assert!(swift_visible(&m) && swift_visible(&e));
        let internal = subject("method", "tick", "static func tick()", Some(e));
        assert!(!swift_visible(&internal));
        let proto = subject("interface", "Shape", "public protocol Shape", None);
        let req = subject("method", "area", "func area() -> Double", Some(proto));
        assert!(swift_visible(&req));
        let ext = subject("impl", "Circle", "public extension Circle", None);
        let by_ext = subject("method", "grow", "func grow()", Some(ext.clone()));
        assert!(swift_visible(&by_ext));
        let hidden = subject("method", "peek", "fileprivate func peek()", Some(ext));
        assert!(!swift_visible(&hidden));
        let plain = subject("impl", "Circle", "extension Circle", None);
        let member = subject("method", "shrink", "func shrink()", Some(plain));
        assert!(!swift_visible(&member));
    }

    #[test]
    fn all_and_export_statements_are_read() {
        let py =
            "__all__ = ['a', \"b\"]\n__all__ += ('c',)\n__all__.extend([\"d\"])\nx = '__all__'\n";
        let mut all = all_names(py);
        all.sort();
        assert_eq!(all, ["a", "b", "c", "d"]);
        let js = "function a() {}\nexport { a, b as c };\nexport default d;\nmodule.exports = { e, f: g };\nexports.h = 1;\nmodule.exports.i = 2;\nexport default function k() {}\n";
        let names = js_exported_names(js);
        for n in ["a", "b", "d", "e", "f", "h", "i"] {
            assert!(names.contains(n), "{n} in {names:?}");
        }
        assert!(!names.contains("k") && !names.contains("function"));
        assert_eq!(ancestors("a/b"), ["a/b", "a", ""]);
        assert!(rust_pub("pub fn x()") && !rust_pub("pub(crate) fn x()"));
        // Language-binding markers an extractor may prefix to a signature.
        assert!(rust_pub("#[pyfunction] pub fn x()"));
        assert_eq!(
            split_markers("#[napi(js_name = \"x\")] #[no_mangle] fn x()"),
            (vec!["#[napi(js_name = \"x\")]", "#[no_mangle]"], "fn x()")
        );
        assert_eq!(
            split_markers("//export Add func Add(a, b C.int) C.int"),
            (vec!["//export Add"], "func Add(a, b C.int) C.int")
        );
        assert_eq!(split_markers("fn plain()"), (vec![], "fn plain()"));
    }
}
