//! The project's layout as its manifests state it: Python source roots
//! (`pyproject.toml`, `setup.cfg`, `setup.py`), Go module paths (`go.mod`), Rust
//! crates with their names and path dependencies (`Cargo.toml`), and JS/TS
//! packages (`package.json`), C and C++ include folders (`compile_commands.json`:
//! its `-I`, `-isystem`, `-iquote` and `-idirafter` folders). The resolver reads it to tell a project import from
//! a third-party one; a build stores it (meta key `layout`) and re-resolves every
//! call when it changes.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// File names the walk hands to [`Layout::read`].
pub const MANIFESTS: [&str; 7] = [
    "compile_commands.json",
    "pyproject.toml",
    "setup.cfg",
    "setup.py",
    "go.mod",
    "Cargo.toml",
    "package.json",
];

/// Largest manifest read (bigger ones are generated or not manifests).
const MAX_MANIFEST: u64 = 512 * 1024;

/// Largest `compile_commands.json` read (a whole kernel's is about 60 MiB).
const MAX_COMPILE_COMMANDS: u64 = 256 * 1024 * 1024;

/// Most include folders kept from a `compile_commands.json`.
const MAX_INCLUDE_DIRS: usize = 512;

/// What the manifests say, project-relative and `/`-separated (`""` is the root).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Folders that hold top-level Python packages or modules (a `src/` layout,
    /// maturin's `python-source`, setuptools' `package-dir`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub python_roots: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub go_modules: Vec<GoModule>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rust_crates: Vec<RustCrate>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub js_packages: Vec<JsPackage>,
    /// C and C++ include folders a `compile_commands.json` names, in the order its
    /// commands first name them (project-relative; folders outside the project are
    /// left out). Empty: the resolver infers them from the tree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub c_include_dirs: Vec<String>,
}

/// A `go.mod`: the folder it sits in and the module path it declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoModule {
    pub dir: String,
    pub path: String,
}

/// A Cargo package: its folder, the name its library is used by (`-` as `_`), and
/// the names its code uses for the project crates it depends on by path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RustCrate {
    pub dir: String,
    pub name: String,
    /// Whether the package has a library target (`src/lib.rs` or `[lib]`).
    #[serde(default)]
    pub lib: bool,
    /// (name in code, folder of the crate).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deps: Vec<(String, String)>,
}

/// A `package.json` with a name: what `import "name"` and `"name/sub"` mean.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsPackage {
    pub dir: String,
    pub name: String,
    /// Entry files named by `exports["."]`, `module`, `main`, `types`/`typings`,
    /// project-relative, in that order of preference (none: `index.*` is tried).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<String>,
}

fn dir_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Joins a manifest-relative path onto the manifest's folder, lexically.
fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for seg in rel.trim().split(['/', '\\']) {
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

impl Layout {
    /// Reads the manifests at `manifests` (project-relative), confined to `root`;
    /// an unreadable or malformed manifest adds nothing.
    pub fn read(root: &Path, manifests: &[String]) -> Layout {
        let mut out = Layout::default();
        let mut cargo: Vec<(String, toml_edit::Document<String>)> = Vec::new();
        for rel in manifests {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            let cap = if name == "compile_commands.json" {
                MAX_COMPILE_COMMANDS
            } else {
                MAX_MANIFEST
            };
            let Ok(Ok(bytes)) = crate::read_confined_capped(root, rel, cap) else {
                continue;
            };
            if name == "compile_commands.json" {
                out.c_include_dirs
                    .extend(compile_commands_dirs(root, dir_of(rel), &bytes));
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            let dir = dir_of(rel);
            match rel.rsplit('/').next().unwrap_or(rel) {
                "pyproject.toml" => {
                    if let Ok(doc) = text.parse::<toml_edit::Document<String>>() {
                        out.python_roots.extend(pyproject_roots(dir, &doc));
                    }
                }
                "setup.cfg" => out.python_roots.extend(setup_cfg_roots(dir, &text)),
                "setup.py" => out.python_roots.extend(setup_py_roots(dir, &text)),
                "go.mod" => {
                    if let Some(path) = go_module_path(&text) {
                        out.go_modules.push(GoModule {
                            dir: dir.to_owned(),
                            path,
                        });
                    }
                }
                "Cargo.toml" => {
                    if let Ok(doc) = text.parse::<toml_edit::Document<String>>() {
                        cargo.push((dir.to_owned(), doc));
                    }
                }
                "package.json" => {
                    if let Some(p) = js_package(dir, &text) {
                        out.js_packages.push(p);
                    }
                }
                _ => {}
            }
        }
        out.rust_crates = rust_crates(root, &cargo);
        out.python_roots.sort();
        out.python_roots.dedup();
        out.go_modules.sort_by(|a, b| a.dir.cmp(&b.dir));
        out.rust_crates.sort_by(|a, b| a.dir.cmp(&b.dir));
        out.js_packages.sort_by(|a, b| a.dir.cmp(&b.dir));
        let mut seen = std::collections::HashSet::new();
        out.c_include_dirs.retain(|d| seen.insert(d.clone()));
        out.c_include_dirs.truncate(MAX_INCLUDE_DIRS);
        out
    }

    /// The stored form (compact JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The stored form read back; a missing or unreadable one is the empty layout.
    pub fn from_json(s: Option<&str>) -> Layout {
        s.and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default()
    }
}

/// One command of a compilation database.
#[derive(Deserialize)]
struct CompileCommand {
    #[serde(default)]
    directory: String,
    #[serde(default)]
    arguments: Vec<String>,
    #[serde(default)]
    command: String,
}

/// The include folders of a `compile_commands.json` at `dir` (project-relative),
/// project-relative, in the order the commands first name them.
fn compile_commands_dirs(root: &Path, dir: &str, bytes: &[u8]) -> Vec<String> {
    let Ok(commands) = serde_json::from_slice::<Vec<CompileCommand>>(bytes) else {
        return Vec::new();
    };
    let root_text = root.to_string_lossy().replace('\\', "/");
    let root_text = root_text.trim_end_matches('/');
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for c in &commands {
        // The command's folder, project-relative (absolute under the root, or
        // relative to the database's own folder).
        let cwd = match c.directory.strip_prefix(root_text) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                rest.trim_start_matches('/').to_owned()
            }
            _ if c.directory.is_empty() => dir.to_owned(),
            _ if !c.directory.starts_with('/') => match join(dir, &c.directory) {
                Some(d) => d,
                None => continue,
            },
            _ => continue,
        };
        let words: Vec<&str> = if c.arguments.is_empty() {
            c.command.split_whitespace().collect()
        } else {
            c.arguments.iter().map(String::as_str).collect()
        };
        let mut it = words.iter().peekable();
        while let Some(w) = it.next() {
            let flag = ["-I", "-isystem", "-iquote", "-idirafter"]
                .into_iter()
                .find(|f| w.starts_with(f));
            let Some(flag) = flag else { continue };
            let attached = w[flag.len()..].trim_matches('"');
            let path = if attached.is_empty() {
                match it.next() {
                    Some(p) => p.trim_matches('"'),
                    None => break,
                }
            } else {
                attached
            };
            let rel = match path.strip_prefix(root_text) {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                    Some(rest.trim_start_matches('/').to_owned())
                }
                _ if path.starts_with('/') => None,
                _ => join(&cwd, path),
            };
            if let Some(rel) = rel
                && seen.insert(rel.clone())
            {
                out.push(rel);
            }
        }
    }
    out
}

fn str_at(item: Option<&toml_edit::Item>) -> Option<&str> {
    item.and_then(toml_edit::Item::as_str)
}

fn path_get<'a>(doc: &'a toml_edit::Table, path: &[&str]) -> Option<&'a toml_edit::Item> {
    let mut cur = doc.get(path[0])?;
    for key in &path[1..] {
        cur = cur.get(key)?;
    }
    Some(cur)
}

/// Strings of an item that is a string or an array of strings.
fn strings(item: Option<&toml_edit::Item>) -> Vec<String> {
    match item {
        Some(i) if i.is_str() => i.as_str().map(str::to_owned).into_iter().collect(),
        Some(i) => i
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        None => Vec::new(),
    }
}

/// Source roots a `pyproject.toml` declares, for setuptools, hatch, poetry, pdm and
/// maturin.
fn pyproject_roots(dir: &str, doc: &toml_edit::Document<String>) -> Vec<String> {
    let t = doc.as_table();
    let mut roots = Vec::new();
    // setuptools: package-dir = {"" = "src"}; packages.find.where = ["src"].
    if let Some(pd) =
        path_get(t, &["tool", "setuptools", "package-dir"]).and_then(|i| i.as_table_like())
    {
        for (k, v) in pd.iter() {
            if let Some(v) = v.as_str() {
                if k.is_empty() {
                    roots.push(v.to_owned());
                } else if let Some(parent) = v.rsplit_once('/').map(|(p, _)| p) {
                    roots.push(parent.to_owned());
                }
            }
        }
    }
    roots.extend(strings(path_get(
        t,
        &["tool", "setuptools", "packages", "find", "where"],
    )));
    // hatch: packages = ["src/pkg"] -> src; sources = ["src"].
    for key in ["wheel", "sdist"] {
        for p in strings(path_get(
            t,
            &["tool", "hatch", "build", "targets", key, "packages"],
        )) {
            roots.push(
                p.rsplit_once('/')
                    .map_or(String::new(), |(d, _)| d.to_owned()),
            );
        }
    }
    if let Some(src) = path_get(t, &["tool", "hatch", "build", "sources"]) {
        if let Some(tbl) = src.as_table_like() {
            for (k, _) in tbl.iter() {
                roots.push(k.to_owned());
            }
        } else {
            roots.extend(strings(Some(src)));
        }
    }
    // poetry: packages = [{ include = "pkg", from = "src" }].
    if let Some(arr) =
        path_get(t, &["tool", "poetry", "packages"]).and_then(toml_edit::Item::as_array)
    {
        for v in arr.iter() {
            if let Some(from) = v.as_inline_table().and_then(|t| t.get("from")?.as_str()) {
                roots.push(from.to_owned());
            }
        }
    }
    if let Some(arr) =
        path_get(t, &["tool", "poetry", "packages"]).and_then(toml_edit::Item::as_array_of_tables)
    {
        for tbl in arr.iter() {
            if let Some(from) = str_at(tbl.get("from")) {
                roots.push(from.to_owned());
            }
        }
    }
    // pdm and maturin.
    roots.extend(strings(path_get(
        t,
        &["tool", "pdm", "build", "package-dir"],
    )));
    roots.extend(strings(path_get(t, &["tool", "maturin", "python-source"])));
    roots.iter().filter_map(|r| join(dir, r)).collect()
}

/// `[options] package_dir = =src` and `[options.packages.find] where = src`.
fn setup_cfg_roots(dir: &str, text: &str) -> Vec<String> {
    let mut roots = Vec::new();
    let mut section = String::new();
    let mut key = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || trimmed.starts_with(';') || trimmed.is_empty() {
            continue;
        }
        if trimmed.starts_with('[') {
            section = trimmed.trim_matches(['[', ']']).trim().to_owned();
            key.clear();
            continue;
        }
        let continuation = line.starts_with([' ', '\t']);
        let value = if continuation {
            trimmed
        } else if let Some((k, v)) = trimmed.split_once('=') {
            key = k.trim().to_owned();
            v.trim()
        } else {
            continue;
        };
        match (section.as_str(), key.as_str()) {
            ("options", "package_dir") => {
                // `=src` (the root package dir) or `pkg = src/pkg`.
                if let Some((k, v)) = value.split_once('=') {
                    let v = v.trim();
                    if k.trim().is_empty() && !v.is_empty() {
                        roots.push(v.to_owned());
                    }
                }
            }
            ("options.packages.find", "where") if !value.is_empty() => {
                roots.push(value.to_owned());
            }
            _ => {}
        }
    }
    roots.iter().filter_map(|r| join(dir, r)).collect()
}

/// `package_dir={"": "src"}` and `find_packages("src")` / `where="src"` in a
/// `setup.py` (read as text, never run).
fn setup_py_roots(dir: &str, text: &str) -> Vec<String> {
    let mut roots = Vec::new();
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    for (open, close) in [("package_dir={\"\":\"", '"'), ("package_dir={'':'", '\'')] {
        let mut rest = compact.as_str();
        while let Some(i) = rest.find(open) {
            rest = &rest[i + open.len()..];
            if let Some(end) = rest.find(close) {
                roots.push(rest[..end].to_owned());
            }
        }
    }
    for pat in [
        "find_packages(\"",
        "find_packages('",
        "find_packages(where=\"",
        "find_packages(where='",
        "find_namespace_packages(where=\"",
        "find_namespace_packages(where='",
    ] {
        let mut rest = compact.as_str();
        while let Some(i) = rest.find(pat) {
            rest = &rest[i + pat.len()..];
            let close = if pat.ends_with('"') { '"' } else { '\'' };
            if let Some(end) = rest.find(close) {
                roots.push(rest[..end].to_owned());
            }
        }
    }
    roots.iter().filter_map(|r| join(dir, r)).collect()
}

/// The `module` line of a `go.mod`.
fn go_module_path(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let l = l.split("//").next().unwrap_or("").trim();
        let rest = l.strip_prefix("module")?;
        if !rest.starts_with([' ', '\t']) {
            return None;
        }
        let p = rest.trim().trim_matches('"').to_owned();
        (!p.is_empty()).then_some(p)
    })
}

/// Every Cargo package with its library name and its path dependencies, workspace
/// inherited ones (`dep = { workspace = true }`) included.
fn rust_crates(root: &Path, docs: &[(String, toml_edit::Document<String>)]) -> Vec<RustCrate> {
    // Workspace-level path dependencies: (workspace dir, key) -> crate dir.
    let mut workspace_deps: Vec<(String, String, String)> = Vec::new();
    for (dir, doc) in docs {
        if let Some(deps) =
            path_get(doc.as_table(), &["workspace", "dependencies"]).and_then(|d| d.as_table_like())
        {
            for (key, spec) in deps.iter() {
                if let Some(p) = spec.get("path").and_then(|p| p.as_str())
                    && let Some(target) = join(dir, p)
                {
                    workspace_deps.push((dir.clone(), key.to_owned(), target));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (dir, doc) in docs {
        let t = doc.as_table();
        let Some(package) = str_at(path_get(t, &["package", "name"])) else {
            continue;
        };
        let lib_name = str_at(path_get(t, &["lib", "name"])).unwrap_or(package);
        let lib_path = str_at(path_get(t, &["lib", "path"])).unwrap_or("src/lib.rs");
        let lib =
            t.get("lib").is_some() || join(dir, lib_path).is_some_and(|p| root.join(&p).is_file());
        let mut deps = Vec::new();
        let mut tables: Vec<&dyn toml_edit::TableLike> = Vec::new();
        for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
            if let Some(d) = t.get(key).and_then(|d| d.as_table_like()) {
                tables.push(d);
            }
        }
        if let Some(targets) = t.get("target").and_then(|d| d.as_table_like()) {
            for (_, target) in targets.iter() {
                for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
                    if let Some(d) = target.get(key).and_then(|d| d.as_table_like()) {
                        tables.push(d);
                    }
                }
            }
        }
        for table in tables {
            for (key, spec) in table.iter() {
                // A dependency is named in code by its key when renamed
                // (`tk = { package = "tok-core" }`), else by its library's name.
                let renamed = spec.get("package").is_some();
                let target = if let Some(p) = spec.get("path").and_then(|p| p.as_str()) {
                    join(dir, p)
                } else if spec
                    .get("workspace")
                    .and_then(|w| w.as_bool())
                    .unwrap_or(false)
                {
                    // The nearest workspace above (or at) this package that declares it.
                    workspace_deps
                        .iter()
                        .filter(|(ws, k, _)| {
                            k == key
                                && (ws.is_empty()
                                    || dir == ws
                                    || dir.starts_with(&format!("{ws}/")))
                        })
                        .max_by_key(|(ws, _, _)| ws.len())
                        .map(|(_, _, t)| t.clone())
                } else {
                    None
                };
                if let Some(target) = target {
                    let key = if renamed {
                        key.replace('-', "_")
                    } else {
                        format!("\u{0}{}", key.replace('-', "_"))
                    };
                    deps.push((key, target));
                }
            }
        }
        out.push(RustCrate {
            dir: dir.clone(),
            name: lib_name.replace('-', "_"),
            lib,
            deps,
        });
    }
    // Dependencies not renamed are named by their library's name in code.
    let lib_names: Vec<(String, String)> = out
        .iter()
        .map(|c| (c.dir.clone(), c.name.clone()))
        .collect();
    for c in &mut out {
        for (name, dir) in &mut c.deps {
            if let Some(key) = name.strip_prefix('\u{0}') {
                *name = lib_names
                    .iter()
                    .find(|(d, _)| d == dir)
                    .map_or_else(|| key.to_owned(), |(_, n)| n.clone());
            }
        }
        c.deps.sort();
        c.deps.dedup();
    }
    out
}

/// A named `package.json` and its entry files.
fn js_package(dir: &str, text: &str) -> Option<JsPackage> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let name = v.get("name")?.as_str()?.to_owned();
    if name.is_empty() {
        return None;
    }
    let mut entries = Vec::new();
    // `exports`: a string, `{".": ...}`, or conditions (`import`, `require`, `default`, `types`).
    fn conditions(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Object(m) => {
                for key in [
                    "source", "import", "module", "require", "node", "default", "types",
                ] {
                    if let Some(x) = m.get(key) {
                        conditions(x, out);
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(exports) = v.get("exports") {
        match exports {
            serde_json::Value::Object(m) if m.keys().any(|k| k.starts_with('.')) => {
                if let Some(dot) = m.get(".") {
                    conditions(dot, &mut entries);
                }
            }
            other => conditions(other, &mut entries),
        }
    }
    for key in ["source", "module", "main", "types", "typings"] {
        if let Some(s) = v.get(key).and_then(|s| s.as_str()) {
            entries.push(s.to_owned());
        }
    }
    let mut seen = std::collections::HashSet::new();
    let entries = entries
        .iter()
        .filter_map(|e| join(dir, e))
        .filter(|e| seen.insert(e.clone()))
        .collect();
    Some(JsPackage {
        dir: dir.to_owned(),
        name,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_commands_name_include_folders_inside_the_project() {
        let db = r#"[
          {"directory": "/src/linux", "file": "mm/slab.c",
           "command": "gcc -I./arch/x86/include -I ./include -isystem /usr/include -iquote include/uapi -c mm/slab.c"},
          {"directory": "/src/linux/tools/perf", "file": "main.c",
           "arguments": ["cc", "-I../include", "-I", "/src/linux/include", "-Dx", "main.c"]},
          {"directory": "/elsewhere", "file": "x.c", "arguments": ["cc", "-Iinclude"]}
        ]"#;
        let dirs = compile_commands_dirs(Path::new("/src/linux"), "", db.as_bytes());
        assert_eq!(
            dirs,
            [
                "arch/x86/include",
                "include",
                "include/uapi",
                "tools/include"
            ]
        );
        assert!(compile_commands_dirs(Path::new("/src/linux"), "", b"not json").is_empty());
    }

    fn toml(s: &str) -> toml_edit::Document<String> {
        s.to_owned().parse().unwrap()
    }

    #[test]
    fn python_roots_from_each_build_backend() {
        let doc = toml("[tool.setuptools]\npackage-dir = {\"\" = \"src\"}\n");
        assert_eq!(pyproject_roots("", &doc), ["src"]);
        let doc = toml("[tool.setuptools.packages.find]\nwhere = [\"lib\"]\n");
        assert_eq!(pyproject_roots("pkg", &doc), ["pkg/lib"]);
        let doc = toml("[tool.hatch.build.targets.wheel]\npackages = [\"src/foo\"]\n");
        assert_eq!(pyproject_roots("", &doc), ["src"]);
        let doc = toml("[tool.poetry]\npackages = [{ include = \"foo\", from = \"src\" }]\n");
        assert_eq!(pyproject_roots("", &doc), ["src"]);
        let doc = toml("[tool.maturin]\npython-source = \"py_src\"\n");
        assert_eq!(
            pyproject_roots("bindings/python", &doc),
            ["bindings/python/py_src"]
        );
        assert_eq!(
            setup_cfg_roots(
                "",
                "[options]\npackage_dir =\n    =src\n[options.packages.find]\nwhere = src\n"
            ),
            ["src", "src"]
        );
        assert_eq!(
            setup_py_roots(
                "",
                "setup(package_dir={'': 'lib'}, packages=find_packages('lib'))"
            ),
            ["lib", "lib"]
        );
    }

    #[test]
    fn go_module_lines() {
        assert_eq!(
            go_module_path("// c\nmodule github.com/gin-gonic/gin\n\ngo 1.25\n").as_deref(),
            Some("github.com/gin-gonic/gin")
        );
        assert_eq!(go_module_path("modulex foo\n"), None);
    }

    #[test]
    fn js_entries_in_preference_order() {
        let p = js_package(
            "packages/a",
            r#"{"name":"@x/a","exports":{".":{"import":"./dist/a.mjs","types":"./dist/a.d.ts"}},"main":"dist/a.js"}"#,
        )
        .unwrap();
        assert_eq!(p.name, "@x/a");
        assert_eq!(
            p.entries,
            [
                "packages/a/dist/a.mjs",
                "packages/a/dist/a.d.ts",
                "packages/a/dist/a.js"
            ]
        );
    }

    #[test]
    fn cargo_path_and_workspace_deps() {
        let dir = tempfile::tempdir().unwrap();
        let docs = vec![
            (
                String::new(),
                toml(
                    "[workspace]\nmembers=[\"a\",\"b\"]\n[workspace.dependencies]\nb-core = { path = \"b\" }\n",
                ),
            ),
            (
                "a".to_owned(),
                toml(
                    "[package]\nname = \"a-bin\"\n[lib]\nname = \"alib\"\n[dependencies]\nb-core = { workspace = true }\nserde = \"1\"\n",
                ),
            ),
            ("b".to_owned(), toml("[package]\nname = \"b-core\"\n")),
        ];
        let crates = rust_crates(dir.path(), &docs);
        assert_eq!(crates.len(), 2);
        assert_eq!(crates[0].name, "alib");
        assert!(crates[0].lib);
        assert_eq!(crates[0].deps, [("b_core".to_owned(), "b".to_owned())]);
        assert_eq!(crates[1].name, "b_core");
        assert!(!crates[1].lib);
        let docs = vec![
            (
                "a".to_owned(),
                toml(
                    "[package]\nname = \"a\"\n[dependencies]\nx = { path = \"../b\" }\ny = { package = \"b-core\", path = \"../b\" }\n",
                ),
            ),
            (
                "b".to_owned(),
                toml("[package]\nname = \"b-core\"\n[lib]\nname = \"blib\"\n"),
            ),
        ];
        let crates = rust_crates(dir.path(), &docs);
        assert_eq!(
            crates[0].deps,
            [
                ("blib".to_owned(), "b".to_owned()),
                ("y".to_owned(), "b".to_owned())
            ]
        );
    }
}
