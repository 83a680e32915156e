//! Rust: items, calls (`f()`, `Type::f()`, `recv.f()`), `use` trees, test attributes.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, Export, LineSyntax, ReturnForm,
    TestEntry, TestExt, TestFiles, TestNames, TestPaths, TestRunner,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("rust/definitions.scm", include_str!("definitions.scm")),
    calls: ("rust/calls.scm", include_str!("calls.scm")),
    imports: ("rust/imports.scm", include_str!("imports.scm")),
    qual_sep: "::",
    imports_of,
    is_test_def,
    self_receivers: &["self", "Self"],
    // Members are reached through the receiver only (`self.x`, `@x`).
    implicit_self: false,
    module_style: ModuleStyle::Rust,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::Is(EntryPoints {
            names: &["main"],
            prefixes: &[],
        }),
        class_methods_are_api: Convention::Is(false),
        signature_annotations: Convention::Is(false),
        export: Convention::Is(Export::PubInLibrary),
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        test_names: Convention::Is(TestNames::GENERIC),
        test_entry: Convention::Is(TestEntry::Attribute {
            exact: &["#[test]"],
            suffixes: &["::test]"],
            infixes: &["::test("],
            prefixes: &["#[rstest"],
        }),
        test_files: Convention::Is(TestFiles {
            names: &["{stem}"],
            ext: TestExt::Is("rs"),
            same_dir: false,
            under: Some("tests"),
            stem_in: None,
            inline_marker: Some("#[cfg(test)]"),
        }),
        test_paths: Convention::Is(TestPaths {
            suffixes: &["_test.rs"],
            prefixed: &[],
        }),
        test_runner: Convention::Is(TestRunner::Cargo),
        line_syntax: Convention::Is(LineSyntax {
            comments: LineSyntax::C_LIKE_COMMENTS,
            imports: &[
                "use ",
                "pub use ",
                "pub(crate) use ",
                "extern crate ",
                "mod ",
            ],
            quotes: &['"'],
        }),
        default_visibility: Convention::Is(DefaultVisibility::Fixed("private")),
        return_type: Convention::Is(ReturnForm::Arrow),
        ripgrep_type: Convention::Is("rust"),
        doc_path_extensions: Convention::Is(&["rs"]),
        public_api: Convention::Is(crate::conventions::PublicApi::RustLibraryCrate),
        routes: Convention::Is(crate::conventions::Routes::RustWeb),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "rust",
        &["rs"],
        || tree_sitter::Language::new(tree_sitter_rust::LANGUAGE),
        Family::Rust,
    )
};

/// Attributes directly before `node` (`#[test]`, `#[cfg(test)]`, `#[tokio::test]`).
fn is_test_def(node: Node<'_>, src: &[u8]) -> bool {
    let mut prev = node.prev_sibling();
    while let Some(p) = prev {
        if p.kind() == "attribute_item" {
            let t: String = text(p, src)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            if t == "#[test]" || t.ends_with("::test]") || t.contains("cfg(test)") {
                return true;
            }
        } else if p.kind() != "line_comment" && p.kind() != "block_comment" {
            break;
        }
        prev = p.prev_sibling();
    }
    false
}

fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let line = node.start_position().row as u32 + 1;
    let mut flat = Vec::new();
    flatten(node, src, &[], 0, &mut flat);
    for (path, alias) in flat {
        let (module, name) = match path.split_last() {
            Some((last, rest)) => (rest.join("::"), Some(last.clone())),
            None => continue,
        };
        out.push(Import {
            module,
            name,
            alias,
            level: 0,
            line,
        });
    }
}

fn segments(node: Node<'_>, src: &[u8]) -> Vec<String> {
    text(node, src)
        .split("::")
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Use trees nested deeper than this are not followed (real ones nest a few levels;
/// a pathological file must not exhaust the stack).
const MAX_USE_DEPTH: usize = 64;

/// Flattens a use tree into (full path, bound name); star imports bind `*`.
fn flatten(
    node: Node<'_>,
    src: &[u8],
    prefix: &[String],
    depth: usize,
    out: &mut Vec<(Vec<String>, String)>,
) {
    if depth > MAX_USE_DEPTH {
        return;
    }
    match node.kind() {
        "identifier" | "scoped_identifier" | "crate" | "super" | "self" | "metavariable" => {
            let mut path = prefix.to_vec();
            let segs = segments(node, src);
            if segs.as_slice() == ["self"] && !prefix.is_empty() {
                // `use a::b::{self}` binds `b`.
                let alias = prefix.last().cloned().unwrap_or_default();
                out.push((path, alias));
                return;
            }
            path.extend(segs);
            let alias = path.last().cloned().unwrap_or_default();
            out.push((path, alias));
        }
        "use_as_clause" => {
            let mut path = prefix.to_vec();
            if let Some(p) = node.child_by_field_name("path") {
                path.extend(segments(p, src));
            }
            let alias = node
                .child_by_field_name("alias")
                .map(|a| text(a, src).to_owned())
                .unwrap_or_default();
            out.push((path, alias));
        }
        "scoped_use_list" => {
            let mut path = prefix.to_vec();
            if let Some(p) = node.child_by_field_name("path") {
                path.extend(segments(p, src));
            }
            if let Some(list) = node.child_by_field_name("list") {
                flatten(list, src, &path, depth + 1, out);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                flatten(child, src, prefix, depth + 1, out);
            }
        }
        "use_wildcard" => {
            let mut path = prefix.to_vec();
            let t = text(node, src).trim_end_matches('*').trim_end_matches("::");
            path.extend(t.split("::").filter(|s| !s.is_empty()).map(str::to_owned));
            path.push("*".into());
            out.push((path, "*".into()));
        }
        _ => {}
    }
}
