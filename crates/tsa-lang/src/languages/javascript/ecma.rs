//! Import bindings shared by JavaScript, TypeScript and TSX (the TypeScript folder
//! includes this file too): ES `import`, re-exporting `export ... from`, CommonJS
//! `require`, and TypeScript `import x = require()`.

use tree_sitter::Node;

use crate::conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, Export, LineSyntax, TestEntry,
    TestExt, TestFiles, TestNames, TestPaths, TestRunner,
};
use crate::languages::text;
use crate::model::Import;

fn line(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

/// The text of a string literal without its quotes (`'./m'` -> `./m`).
fn unquote(node: Node<'_>, src: &[u8]) -> String {
    text(node, src)
        .trim()
        .trim_matches(|c| c == '\'' || c == '"' || c == '`')
        .to_owned()
}

fn push(out: &mut Vec<Import>, module: &str, name: Option<&str>, alias: &str, ln: u32) {
    if module.is_empty() || alias.is_empty() {
        return;
    }
    out.push(Import {
        module: module.to_owned(),
        name: name.map(str::to_owned),
        alias: alias.to_owned(),
        level: 0,
        line: ln,
    });
}

/// Turns one captured import node into the names it binds.
pub(crate) fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    match node.kind() {
        "import_statement" => import_statement(node, src, out),
        "export_statement" => re_export(node, src, out),
        "variable_declarator" => require(node, src, out),
        _ => {}
    }
}

/// `import x, {a as b}, * as ns from './m'`; TypeScript `import x = require('./m')`.
/// A side-effect import (`import './polyfill'`) binds no name and is not recorded.
fn import_statement(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let ln = line(node);
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "import_clause" => {
                let Some(source) = node.child_by_field_name("source") else {
                    continue;
                };
                let module = unquote(source, src);
                let mut c2 = child.walk();
                for part in child.named_children(&mut c2) {
                    match part.kind() {
                        // `import x from './m'`: the default export, bound as x.
                        "identifier" => push(out, &module, Some("default"), text(part, src), ln),
                        // `import * as ns from './m'`: the module, bound as ns.
                        "namespace_import" => {
                            if let Some(id) = first_named(part, "identifier") {
                                push(out, &module, None, text(id, src), ln);
                            }
                        }
                        "named_imports" => {
                            let mut c3 = part.walk();
                            for spec in part.named_children(&mut c3) {
                                if spec.kind() != "import_specifier" {
                                    continue;
                                }
                                let Some(name) = spec.child_by_field_name("name") else {
                                    continue;
                                };
                                let name = unquote(name, src);
                                let alias = spec
                                    .child_by_field_name("alias")
                                    .map(|a| text(a, src).to_owned())
                                    .unwrap_or_else(|| name.clone());
                                push(out, &module, Some(&name), &alias, ln);
                            }
                        }
                        _ => {}
                    }
                }
            }
            // TypeScript: `import x = require('./m')` binds the module as x.
            "import_require_clause" => {
                let (Some(id), Some(source)) = (
                    first_named(child, "identifier"),
                    child.child_by_field_name("source"),
                ) else {
                    continue;
                };
                push(out, &unquote(source, src), None, text(id, src), ln);
            }
            _ => {}
        }
    }
}

/// `export {a as b} from './m'` (name a, alias b), `export * from './m'` (alias `*`),
/// `export * as ns from './m'` (alias ns): the names this file re-exports.
fn re_export(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let Some(source) = node.child_by_field_name("source") else {
        return;
    };
    let module = unquote(source, src);
    let ln = line(node);
    let mut any = false;
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "export_clause" => {
                any = true;
                let mut c2 = child.walk();
                for spec in child.named_children(&mut c2) {
                    if spec.kind() != "export_specifier" {
                        continue;
                    }
                    let Some(name) = spec.child_by_field_name("name") else {
                        continue;
                    };
                    let name = unquote(name, src);
                    let alias = spec
                        .child_by_field_name("alias")
                        .map(|a| unquote(a, src))
                        .unwrap_or_else(|| name.clone());
                    push(out, &module, Some(&name), &alias, ln);
                }
            }
            "namespace_export" => {
                any = true;
                if let Some(id) = child.named_child(0) {
                    push(out, &module, None, &unquote(id, src), ln);
                }
            }
            _ => {}
        }
    }
    if !any {
        // `export * from './m'`.
        push(out, &module, None, "*", ln);
    }
}

/// `const x = require('./m')`, `const {a, b: c} = require('./m')`,
/// `const f = require('./m').f`.
fn require(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let (Some(pattern), Some(value)) = (
        node.child_by_field_name("name"),
        node.child_by_field_name("value"),
    ) else {
        return;
    };
    let (call, member) = match value.kind() {
        "call_expression" => (value, None),
        "member_expression" => match (
            value.child_by_field_name("object"),
            value.child_by_field_name("property"),
        ) {
            (Some(obj), Some(prop)) if obj.kind() == "call_expression" => {
                (obj, Some(text(prop, src)))
            }
            _ => return,
        },
        _ => return,
    };
    let is_require = call
        .child_by_field_name("function")
        .is_some_and(|f| f.kind() == "identifier" && text(f, src) == "require");
    let source = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
        .filter(|s| s.kind() == "string");
    let (true, Some(source)) = (is_require, source) else {
        return;
    };
    let module = unquote(source, src);
    let ln = line(node);
    match pattern.kind() {
        "identifier" => push(out, &module, member, text(pattern, src), ln),
        // Destructuring binds names of the module (destructuring a member,
        // `const {x} = require('./m').y`, is left out).
        "object_pattern" if member.is_none() => {
            let mut cursor = pattern.walk();
            for prop in pattern.named_children(&mut cursor) {
                match prop.kind() {
                    "shorthand_property_identifier_pattern" => {
                        let n = text(prop, src);
                        push(out, &module, Some(n), n, ln);
                    }
                    "pair_pattern" => {
                        let key = prop.child_by_field_name("key").map(|k| unquote(k, src));
                        let val = prop
                            .child_by_field_name("value")
                            .filter(|v| v.kind() == "identifier");
                        if let (Some(key), Some(val)) = (key, val) {
                            push(out, &module, Some(&key), text(val, src), ln);
                        }
                    }
                    "object_assignment_pattern" => {
                        // `{a = fallback}`: binds a.
                        if let Some(left) = prop
                            .child_by_field_name("left")
                            .filter(|l| l.kind() == "shorthand_property_identifier_pattern")
                        {
                            let n = text(left, src);
                            push(out, &module, Some(n), n, ln);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn first_named<'a>(node: Node<'a>, kind: &str) -> Option<Node<'a>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|c| c.kind() == kind)
}

/// The conventions of JavaScript; TypeScript states only where it differs (its test
/// suffixes, return types, ripgrep type and documented extensions).
pub(crate) const CONVENTIONS: Conventions = Conventions {
    complexity: Convention::Is(include_str!("complexity.yml")),
    entry_points: Convention::Is(EntryPoints {
        names: &["main", "start", "bootstrap", "run", "handler"],
        prefixes: &[],
    }),
    class_methods_are_api: Convention::Is(true),
    signature_annotations: Convention::Is(false),
    export: Convention::Is(Export::ExportStatement),
    module_variables: Convention::Is(crate::conventions::ModuleVariables::DeclarationLines),
    test_names: Convention::Is(TestNames::GENERIC),
    test_entry: Convention::Is(TestEntry::Names {
        prefixes: &["test", "it", "should", "when", "describe"],
        boundary: false,
        spaced: true,
    }),
    test_files: Convention::Is(TestFiles {
        names: &["{stem}.test", "{stem}.spec"],
        ext: TestExt::Any,
        same_dir: false,
        under: None,
        stem_in: Some("__tests__"),
        inline_marker: None,
    }),
    test_paths: Convention::Is(TestPaths {
        suffixes: &[".test.js", ".test.jsx", ".spec.js", ".spec.jsx"],
        prefixed: &[],
    }),
    test_runner: Convention::Is(TestRunner::Node),
    line_syntax: Convention::Is(LineSyntax {
        comments: LineSyntax::C_LIKE_COMMENTS,
        imports: &["import ", "export * from", "export {"],
        quotes: &['"', '\'', '`'],
    }),
    default_visibility: Convention::Is(DefaultVisibility::LeadingMark),
    return_type: Convention::NotApplicable,
    ripgrep_type: Convention::Is("js"),
    doc_path_extensions: Convention::Is(&["js", "jsx"]),
    public_api: Convention::Is(crate::conventions::PublicApi::EcmaPackageExport),
    routes: Convention::Is(crate::conventions::Routes::Express),
    branches: Convention::Is(include_str!("branches.txt")),
};
