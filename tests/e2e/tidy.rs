//! Tidy: every Rust module starts with a `//!` line saying what it is for.

use std::path::Path;

fn visit(dir: &Path, bad: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if !path.ends_with("fixtures") && !path.ends_with("target") {
                visit(&path, bad);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            if !text.starts_with("//!") {
                bad.push(path.display().to_string());
            }
        }
    }
}

#[test]
fn every_module_starts_with_a_doc_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut bad = Vec::new();
    for dir in ["src", "crates", "tests/e2e"] {
        visit(&root.join(dir), &mut bad);
    }
    assert!(
        bad.is_empty(),
        "modules without a leading //! line:\n{}",
        bad.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Long functions, import cycles between modules, the direction of crate imports.
// Everything below reads the sources with tree-sitter's Rust grammar, never with
// regular expressions.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::PathBuf;

use tree_sitter::{Node, Parser, Tree};

/// The most lines a function may have, unless listed in [`LONG_FUNCTIONS`].
const MAX_FN_LINES: usize = 150;

/// The functions longer than [`MAX_FN_LINES`] today, as `path::name lines`: the
/// list only shrinks (a new long function, a listed one that grew, and a listed one
/// that is gone, shorter or now short all fail the test, which prints the list to
/// paste).
const LONG_FUNCTIONS: &str = "tests/tidy-long-functions.txt";

/// Import cycles between the top-level modules of a crate that exist today, each as
/// `crate: module module ...` (the modules of one strongly connected component,
/// sorted). The test fails for a cycle not listed and for a listed one that is gone.
const KNOWN_CYCLES: &[&str] = &[];

/// The layers of the workspace: a crate may depend (normal, build or dev
/// dependency) only on crates of a lower layer. A crate missing here fails the
/// test: give it its layer.
const LAYERS: &[(&str, u32)] = &[
    // The one-pass child listing tsa-lang walks trees with.
    ("tsa-tree", 0),
    ("tsa-envelope", 1),
    ("tsa-lang", 1),
    ("tsa-format", 2),
    // Its tests extract with tsa-lang on mimalloc.
    ("tsa-alloc", 2),
    ("tsa-index", 3),
    ("tsa-analysis", 4),
    ("tsa-scip", 4),
    ("tsa-tools", 5),
    ("tsa-watch", 6),
    ("tsa-mcp", 7),
    ("tsa-cli", 8),
    ("tsa", 9),
];

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir` (fixtures and build output left out), sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            if !path.ends_with("fixtures") && !path.ends_with("target") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn parse(text: &str) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_rust::LANGUAGE.into())
        .expect("the Rust grammar loads");
    parser.parse(text, None).expect("tree-sitter parses")
}

/// Generated code says so in its first lines.
fn is_generated(text: &str) -> bool {
    text.lines()
        .take(5)
        .any(|l| l.contains("@generated") || l.contains("DO NOT EDIT"))
}

fn text_of<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    &src[node.byte_range()]
}

fn field_text<'a>(node: Node<'_>, field: &str, src: &'a str) -> Option<&'a str> {
    node.child_by_field_name(field).map(|n| text_of(n, src))
}

/// Every function of one file with its length in lines, named
/// `path::Scope::name` (impl type, trait, module or enclosing function; `#2`, `#3`
/// after a name seen before in the file).
fn functions(rel: &str, src: &str) -> Vec<(String, usize)> {
    fn visit(node: Node<'_>, src: &str, scope: &mut Vec<String>, out: &mut Vec<(String, usize)>) {
        let name = match node.kind() {
            "function_item" => field_text(node, "name", src).map(|name| {
                let lines = node.end_position().row - node.start_position().row + 1;
                let mut full = scope.clone();
                full.push(name.to_owned());
                out.push((full.join("::"), lines));
                name.to_owned()
            }),
            "impl_item" => field_text(node, "type", src).map(|t| {
                let t = t.split('<').next().unwrap_or(t);
                t.rsplit("::").next().unwrap_or(t).trim().to_owned()
            }),
            "trait_item" | "mod_item" => field_text(node, "name", src).map(str::to_owned),
            _ => None,
        };
        let pushed = name.is_some();
        scope.extend(name);
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            visit(child, src, scope, out);
        }
        if pushed {
            scope.pop();
        }
    }
    let tree = parse(src);
    let mut found = Vec::new();
    visit(tree.root_node(), src, &mut Vec::new(), &mut found);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    found
        .into_iter()
        .map(|(name, lines)| {
            let n = seen.entry(name.clone()).or_default();
            *n += 1;
            let name = if *n == 1 { name } else { format!("{name}#{n}") };
            (format!("{rel}::{name}"), lines)
        })
        .collect()
}

#[test]
fn no_function_grows_past_150_lines() {
    let root = workspace();
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    rust_files(&root.join("src"), &mut files);
    let mut long: BTreeMap<String, usize> = BTreeMap::new();
    let mut counted = 0usize;
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        if is_generated(&src) {
            continue;
        }
        let rel = path.strip_prefix(root).unwrap().display().to_string();
        for (name, lines) in functions(&rel, &src) {
            counted += 1;
            if lines > MAX_FN_LINES {
                long.insert(name, lines);
            }
        }
    }
    assert!(
        counted > 1000,
        "only {counted} functions found: is the walk right?"
    );
    let listed_text = std::fs::read_to_string(root.join(LONG_FUNCTIONS)).unwrap_or_default();
    let mut listed: BTreeMap<String, usize> = BTreeMap::new();
    for line in listed_text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, lines) = line.rsplit_once(' ').expect("`path::name lines`");
        listed.insert(name.to_owned(), lines.parse().expect("a line count"));
    }
    let mut problems = Vec::new();
    for (name, &lines) in &long {
        match listed.get(name) {
            None => problems.push(format!(
                "{name}: {lines} lines, more than {MAX_FN_LINES}: split it"
            )),
            Some(&was) if lines > was => {
                problems.push(format!("{name}: grew from {was} to {lines} lines"))
            }
            Some(&was) if lines < was => problems.push(format!(
                "{name}: {lines} lines, listed with {was}: lower the entry"
            )),
            Some(_) => {}
        }
    }
    for name in listed.keys().filter(|n| !long.contains_key(*n)) {
        problems.push(format!(
            "{name}: listed, but gone or now at most {MAX_FN_LINES} lines: remove the entry"
        ));
    }
    if !problems.is_empty() {
        let list: Vec<String> = long.iter().map(|(n, l)| format!("{n} {l}")).collect();
        panic!(
            "functions longer than {MAX_FN_LINES} lines:\n  {}\n\n{LONG_FUNCTIONS} may only \
             shrink (split a new long function rather than list it); the exact list of \
             today's long functions is:\n{}{}",
            problems.join("\n  "),
            header(&listed_text),
            list.join("\n")
        );
    }
}

/// The comment lines that open the allowlist, kept when it is rewritten.
fn header(text: &str) -> String {
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The path segments of a path node (`crate::a::b` -> `[crate, a, b]`).
fn segments(node: Node<'_>, src: &str) -> Vec<String> {
    match node.kind() {
        "scoped_identifier" | "scoped_type_identifier" => {
            let mut out = node
                .child_by_field_name("path")
                .map(|p| segments(p, src))
                .unwrap_or_default();
            out.extend(field_text(node, "name", src).map(str::to_owned));
            out
        }
        _ => vec![text_of(node, src).to_owned()],
    }
}

/// The paths a `use` tree names, each with the name it binds.
fn flatten_use(node: Node<'_>, prefix: &[String], src: &str, out: &mut Vec<(Vec<String>, String)>) {
    let joined =
        |tail: Vec<String>| -> Vec<String> { prefix.iter().cloned().chain(tail).collect() };
    match node.kind() {
        "use_as_clause" => {
            let path = node
                .child_by_field_name("path")
                .map(|p| segments(p, src))
                .unwrap_or_default();
            let alias = field_text(node, "alias", src)
                .unwrap_or_default()
                .to_owned();
            out.push((joined(path), alias));
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                flatten_use(child, prefix, src, out);
            }
        }
        "scoped_use_list" => {
            let path = node
                .child_by_field_name("path")
                .map(|p| segments(p, src))
                .unwrap_or_default();
            if let Some(list) = node.child_by_field_name("list") {
                flatten_use(list, &joined(path), src, out);
            }
        }
        "use_wildcard" => {
            let mut cursor = node.walk();
            let path = node
                .named_children(&mut cursor)
                .next()
                .map(|p| segments(p, src))
                .unwrap_or_default();
            out.push((joined(path), "*".to_owned()));
        }
        "identifier" | "scoped_identifier" | "crate" | "self" | "super" => {
            let path = joined(segments(node, src));
            let bound = path.last().cloned().unwrap_or_default();
            out.push((path, bound));
        }
        _ => {}
    }
}

/// Whether `node` is an item under `#[cfg(test)]` (its attributes precede it).
fn is_test_only(node: Node<'_>, src: &str) -> bool {
    let mut at = node.prev_sibling();
    while let Some(prev) = at.filter(|p| matches!(p.kind(), "attribute_item" | "line_comment")) {
        if prev.kind() == "attribute_item" && text_of(prev, src).replace(' ', "") == "#[cfg(test)]"
        {
            return true;
        }
        at = prev.prev_sibling();
    }
    false
}

/// The names one file reaches through `crate::` (the segment after `crate`): in
/// `use` declarations, in paths, and in macro arguments. Test-only items
/// (`#[cfg(test)]`) are left out: tests may use any module.
fn crate_mentions(src: &str) -> BTreeSet<String> {
    fn visit(node: Node<'_>, src: &str, out: &mut BTreeSet<String>) {
        if node.kind().ends_with("_item") && is_test_only(node, src) {
            return;
        }
        match node.kind() {
            "use_declaration" => {
                if let Some(arg) = node.child_by_field_name("argument") {
                    let mut paths = Vec::new();
                    flatten_use(arg, &[], src, &mut paths);
                    for (path, _) in paths {
                        if path.first().is_some_and(|s| s == "crate")
                            && let Some(next) = path.get(1)
                        {
                            out.insert(next.clone());
                        }
                    }
                }
                return;
            }
            "token_tree" => {
                // Macro arguments are tokens, not paths: read `crate::name` off them.
                let text = text_of(node, src);
                let mut rest = text;
                while let Some(at) = rest.find("crate::") {
                    let after = &rest[at + "crate::".len()..];
                    let name: String = after
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.insert(name);
                    }
                    rest = after;
                }
                return;
            }
            "crate" => {
                if let Some(parent) = node.parent()
                    && matches!(
                        parent.kind(),
                        "scoped_identifier" | "scoped_type_identifier"
                    )
                    && parent.child_by_field_name("path") == Some(node)
                    && let Some(name) = field_text(parent, "name", src)
                {
                    out.insert(name.to_owned());
                }
            }
            _ => {}
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            visit(child, src, out);
        }
    }
    let tree = parse(src);
    let mut out = BTreeSet::new();
    visit(tree.root_node(), src, &mut out);
    out
}

/// The crates of the workspace: (package name, folder).
fn workspace_crates() -> Vec<(String, PathBuf)> {
    let root = workspace();
    let mut out = vec![("tsa".to_owned(), root.to_path_buf())];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        out.push((name, dir));
    }
    out
}

/// The import graph between the top-level modules of the crate whose sources are
/// in `src`: module -> the modules it names through `crate::`. A name the crate
/// root re-exports (`pub use context::Context`) stands for its module.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let module_of = |path: &Path| -> Option<String> {
        let rel = path.strip_prefix(src).ok()?;
        let first = rel.components().next()?.as_os_str().to_string_lossy();
        let name = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
        (!matches!(name.as_str(), "lib" | "main" | "bin")).then_some(name)
    };
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    for root_file in ["lib.rs", "main.rs"] {
        let Ok(text) = std::fs::read_to_string(src.join(root_file)) else {
            continue;
        };
        let tree = parse(&text);
        let top = tree.root_node();
        let mut cursor = top.walk();
        for item in top.named_children(&mut cursor) {
            if item.kind() != "use_declaration" {
                continue;
            }
            let Some(arg) = item.child_by_field_name("argument") else {
                continue;
            };
            let mut paths = Vec::new();
            flatten_use(arg, &[], &text, &mut paths);
            for (path, bound) in paths {
                let path: &[String] = match path.first().map(String::as_str) {
                    Some("crate" | "self") => &path[1..],
                    _ => &path,
                };
                if let Some(first) = path.first()
                    && modules.contains(first)
                {
                    reexports.insert(bound, first.clone());
                }
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(from) = module_of(file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let targets = graph.entry(from.clone()).or_default();
        for name in crate_mentions(&text) {
            let to = if modules.contains(&name) {
                Some(name)
            } else {
                reexports.get(&name).cloned()
            };
            if let Some(to) = to.filter(|t| *t != from) {
                targets.insert(to);
            }
        }
    }
    graph
}

/// The strongly connected components of `graph` with more than one module, each
/// with one cycle through its first module.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<(Vec<String>, Vec<String>)> {
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(n) = stack.pop() {
            for next in graph.get(&n).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|k| (k, reach(k))).collect();
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for (node, reached) in &reaches {
        if done.contains(*node) || !reached.contains(*node) {
            continue;
        }
        let component: Vec<String> = reached
            .iter()
            .filter(|m| reaches.get(m).is_some_and(|r| r.contains(*node)))
            .cloned()
            .collect();
        done.extend(component.iter().cloned());
        if component.len() < 2 {
            continue;
        }
        // One shortest way round, through the component only.
        let mut previous: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = VecDeque::from([(*node).clone()]);
        let mut closing = None;
        while let Some(n) = queue.pop_front() {
            for next in graph.get(&n).into_iter().flatten() {
                if next == *node {
                    closing = Some(n.clone());
                    break;
                }
                if component.contains(next) && !previous.contains_key(next) {
                    previous.insert(next.clone(), n.clone());
                    queue.push_back(next.clone());
                }
            }
            if closing.is_some() {
                break;
            }
        }
        let mut way_back = Vec::new();
        let mut at = closing.unwrap_or_else(|| (*node).clone());
        while at != **node {
            way_back.push(at.clone());
            at = previous[&at].clone();
        }
        let path = std::iter::once((*node).clone())
            .chain(way_back.into_iter().rev())
            .chain(std::iter::once((*node).clone()))
            .collect();
        out.push((component, path));
    }
    out
}

#[test]
fn no_import_cycle_between_the_modules_of_a_crate() {
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    let mut modules = 0usize;
    for (name, dir) in workspace_crates() {
        let graph = module_graph(&dir.join("src"));
        if std::env::var_os("TSA_TIDY_GRAPH").is_some() {
            for (from, to) in &graph {
                eprintln!("{name}: {from} -> {to:?}");
            }
        }
        modules += graph.len();
        for (component, path) in cycles(&graph) {
            found.insert(
                format!("{name}: {}", component.join(" ")),
                format!("{name}: {}", path.join(" -> ")),
            );
        }
    }
    assert!(
        modules > 50,
        "only {modules} modules found: is the walk right?"
    );
    let mut problems = Vec::new();
    for (key, path) in &found {
        if !KNOWN_CYCLES.contains(&key.as_str()) {
            problems.push(format!("new import cycle {path} (modules {key})"));
        }
    }
    for known in KNOWN_CYCLES {
        if !found.contains_key(*known) {
            problems.push(format!(
                "KNOWN_CYCLES lists `{known}`, which is no longer a cycle: remove the entry"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The workspace crates a manifest depends on (normal, build and dev dependencies).
fn tsa_dependencies(manifest: &str, known: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let section = line.trim_matches(['[', ']']);
            in_deps = section == "dependencies"
                || section == "build-dependencies"
                || section == "dev-dependencies"
                || (section.starts_with("target.") && section.ends_with("dependencies"));
            continue;
        }
        if !in_deps || line.starts_with('#') {
            continue;
        }
        let key = line.split(['=', '.']).next().unwrap_or("").trim();
        if known.contains(key) {
            out.push(key.to_owned());
        }
    }
    out
}

#[test]
fn crates_import_only_lower_layers() {
    let crates = workspace_crates();
    let names: BTreeSet<String> = crates.iter().map(|(n, _)| n.clone()).collect();
    let layer = |name: &str| LAYERS.iter().find(|(n, _)| *n == name).map(|(_, l)| *l);
    let mut problems = Vec::new();
    for (name, dir) in &crates {
        let Some(own) = layer(name) else {
            problems.push(format!("crate {name} has no layer in LAYERS: add it"));
            continue;
        };
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        for dep in tsa_dependencies(&manifest, &names) {
            match layer(&dep) {
                Some(l) if l < own => {}
                Some(l) => problems.push(format!(
                    "{name} (layer {own}) depends on {dep} (layer {l}): a crate may only \
                     depend on lower layers"
                )),
                None => {} // reported as a crate without a layer
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
