//! PHP: namespaces, classes, interfaces, traits, enums, functions and methods;
//! calls (`f()`, `$o->m()`, `Foo::m()`, `new Foo()`); `use` imports and file inclusion.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, LineSyntax, ReturnForm, TestEntry, TestFiles,
    TestNames,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("php/definitions.scm", include_str!("definitions.scm")),
    calls: ("php/calls.scm", include_str!("calls.scm")),
    imports: ("php/imports.scm", include_str!("imports.scm")),
    imports_of,
    qual_sep: "::",
    self_receivers: &["$this", "self", "static"],
    builtins: include_str!("builtins.txt"),
    stdlib: include_str!("stdlib.txt"),
    module_style: ModuleStyle::Qualified,
    implicit_self: false,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::NotApplicable,
        class_methods_are_api: Convention::Is(true),
        signature_annotations: Convention::Is(false),
        export: Convention::NotApplicable,
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        test_names: Convention::Is(TestNames::GENERIC),
        test_entry: Convention::Is(TestEntry::Names {
            prefixes: &["test"],
            boundary: false,
            spaced: false,
        }),
        test_files: Convention::Is(TestFiles::GENERIC),
        test_paths: Convention::NotApplicable,
        test_runner: Convention::NotApplicable,
        line_syntax: Convention::Is(LineSyntax {
            comments: &["//", "#", "/*", "* ", "*/"],
            imports: &["use ", "require", "include", "namespace "],
            quotes: &['"', '\''],
        }),
        default_visibility: Convention::Is(DefaultVisibility::Fixed("public")),
        return_type: Convention::Is(ReturnForm::ColonAfterParams),
        ripgrep_type: Convention::Is("php"),
        doc_path_extensions: Convention::Is(&["php"]),
        public_api: Convention::Is(crate::conventions::PublicApi::ComposerLibrary),
        routes: Convention::Is(crate::conventions::Routes::None),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "php",
        &["php"],
        || tree_sitter::Language::new(tree_sitter_php::LANGUAGE_PHP),
        Family::Php,
    )
};

fn line(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    match node.kind() {
        "namespace_use_declaration" => use_declaration(node, src, out),
        "require_expression"
        | "require_once_expression"
        | "include_expression"
        | "include_once_expression" => inclusion(node, src, out),
        _ => {}
    }
}

/// `use A\B\C;` binds `C` from module `A\B`; `use A\B\{C, D as E};` binds `C` and `E`;
/// `use C;` (a global name) binds `C` from module `C`, so the resolver finds `C.php`.
fn use_declaration(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let ln = line(node);
    // The group prefix of `use A\B\{...}`.
    let mut group_prefix = String::new();
    let mut clauses = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "namespace_name" => group_prefix = text(child, src).trim_start_matches('\\').to_owned(),
            "namespace_use_clause" => clauses.push(child),
            "namespace_use_group" => {
                let mut c = child.walk();
                clauses.extend(
                    child
                        .named_children(&mut c)
                        .filter(|n| n.kind() == "namespace_use_clause"),
                );
            }
            _ => {}
        }
    }
    for clause in clauses {
        let alias = clause.child_by_field_name("alias").map(|a| text(a, src));
        let mut c = clause.walk();
        let target = clause.named_children(&mut c).find(|n| {
            matches!(n.kind(), "qualified_name" | "name")
                && Some(*n) != clause.child_by_field_name("alias")
        });
        let Some(target) = target else { continue };
        let full = text(target, src).trim_start_matches('\\');
        let (prefix, name) = match full.rsplit_once('\\') {
            Some((p, n)) => (p, n),
            None => ("", full),
        };
        if name.is_empty() {
            continue;
        }
        let module = match (group_prefix.is_empty(), prefix.is_empty()) {
            (true, true) => name.to_owned(),
            (true, false) => prefix.to_owned(),
            (false, true) => group_prefix.clone(),
            (false, false) => format!("{group_prefix}\\{prefix}"),
        };
        out.push(Import {
            module,
            name: Some(name.to_owned()),
            alias: alias.unwrap_or(name).to_owned(),
            level: 0,
            line: ln,
        });
    }
}

/// `require_once 'lib/db.php'` / `require __DIR__ . '/db.php'`: the file brings in all
/// its top-level names (alias `*`); the module is the path without `./` and `.php`,
/// which the qualified-name resolver matches as a path suffix.
fn inclusion(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let Some(arg) = node.named_child(0) else {
        return;
    };
    let string = match arg.kind() {
        "string" | "encapsed_string" => Some(arg),
        // `__DIR__ . '/x.php'`, `dirname(__FILE__) . '/x.php'`.
        "binary_expression" => arg
            .child_by_field_name("right")
            .filter(|r| matches!(r.kind(), "string" | "encapsed_string")),
        _ => None,
    };
    let Some(string) = string else { return };
    let mut cursor = string.walk();
    let mut parts = string.named_children(&mut cursor);
    let raw = match (parts.next(), parts.next()) {
        (Some(c), None) if c.kind() == "string_content" => text(c, src),
        _ => return,
    };
    let path = raw.trim().trim_start_matches("./").trim_start_matches('/');
    let path = path.strip_suffix(".php").unwrap_or(path);
    if path.is_empty() {
        return;
    }
    out.push(Import {
        module: path.to_owned(),
        name: None,
        alias: "*".into(),
        level: 0,
        line: line(node),
    });
}

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    #[test]
    fn php_defs_calls_imports() {
        let src = br#"<?php
namespace App\Models;

use App\Contracts\Jsonable;
use App\Support\{Str, Arr as A};
use function App\Support\helper;
use Exception;
require_once __DIR__ . '/lib/db.php';

interface Shape extends Base { public function area(): float; }
trait Greets { public function hi() { return strlen("x"); } }
class User extends Model implements Jsonable {
    use Greets;
    public function toJson(): string {
        $this->save();
        self::make();
        parent::boot();
        Str::lower($x);
        \App\Support\helper(1);
        $u = new User();
        $x?->foo();
        return json_encode(\count([]));
    }
}
function top() {}
"#;
        let x = extract(Language::Php, src).unwrap();
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str()))
            .collect();
        assert_eq!(
            defs,
            [
                ("App\\Models", "module"),
                ("Shape", "interface"),
                ("Shape::area", "method"),
                ("Greets", "trait"),
                ("Greets::hi", "method"),
                ("User", "class"),
                ("User::toJson", "method"),
                ("top", "function"),
            ]
        );
        let bases: Vec<_> = x.defs[5]
            .bases
            .iter()
            .map(|b| (b.kind.as_str(), b.name.as_str()))
            .collect();
        assert_eq!(
            bases,
            [
                ("extends", "Model"),
                ("implements", "Jsonable"),
                ("implements", "Greets")
            ]
        );
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref(), c.path))
            .collect();
        assert_eq!(
            calls,
            [
                ("strlen", None, false),
                ("save", Some("$this"), false),
                ("make", Some("self"), true),
                ("boot", Some("parent"), true),
                ("lower", Some("Str"), true),
                ("helper", Some("App\\Support"), true),
                ("User", None, false),
                ("foo", Some("$x"), false),
                ("json_encode", None, false),
                ("count", None, false),
            ]
        );
        let imports: Vec<_> = x.import_rows();
        assert_eq!(
            imports,
            [
                ("App\\Contracts", Some("Jsonable"), "Jsonable"),
                ("App\\Support", Some("Str"), "Str"),
                ("App\\Support", Some("Arr"), "A"),
                ("App\\Support", Some("helper"), "helper"),
                ("Exception", Some("Exception"), "Exception"),
                ("lib/db", None, "*"),
            ]
        );
    }
}
