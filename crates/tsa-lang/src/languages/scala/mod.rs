//! Scala (symbol tier): classes, objects, traits, enums, `def`s, top-level `val`s and
//! imports with selectors, renames and wildcards. No call edges.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, Tier, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, LineSyntax, ReturnForm, TestEntry,
    TestExt, TestFiles, TestNames,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Symbol,
    definitions: ("scala/definitions.scm", include_str!("definitions.scm")),
    calls: ("scala/calls.scm", include_str!("calls.scm")),
    imports: ("scala/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    imports_of,
    overloads: true,
    self_receivers: &["this"],
    stdlib: include_str!("stdlib.txt"),
    module_style: ModuleStyle::Qualified,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::Is(EntryPoints {
            names: &["main"],
            prefixes: &[],
        }),
        class_methods_are_api: Convention::Is(true),
        signature_annotations: Convention::Is(true),
        export: Convention::NotApplicable,
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        test_names: Convention::Is(TestNames::GENERIC),
        test_entry: Convention::Is(TestEntry::NotPrivate),
        test_files: Convention::Is(TestFiles {
            names: &["{stem}Test", "{stem}Tests", "Test{stem}"],
            ext: TestExt::Same,
            same_dir: false,
            under: None,
            stem_in: None,
            inline_marker: None,
        }),
        test_paths: Convention::NotApplicable,
        test_runner: Convention::NotApplicable,
        line_syntax: Convention::Is(LineSyntax {
            comments: LineSyntax::C_LIKE_COMMENTS,
            imports: &["import ", "package "],
            quotes: &['"'],
        }),
        default_visibility: Convention::Is(DefaultVisibility::LeadingMark),
        return_type: Convention::Is(ReturnForm::ColonAfterParams),
        ripgrep_type: Convention::Is("scala"),
        doc_path_extensions: Convention::NotApplicable,
        public_api: Convention::Is(crate::conventions::PublicApi::JvmLibrary),
        routes: Convention::Is(crate::conventions::Routes::None),
        branches: Convention::NotApplicable,
    },
    ..LanguageSpec::new(
        "scala",
        &["scala"],
        || tree_sitter::Language::new(tree_sitter_scala::LANGUAGE),
        Family::Jvm,
    )
};

/// Every name an `import` binds: `a.b.C` -> (a.b, C, C); `a.b.{C, D => E}` ->
/// (a.b, C, C), (a.b, D, E); `a.b._` / `a.b.*` -> (a.b, *, *); `a.B, c.D` -> two.
/// Hiding selectors (`D => _`) and `given` imports bind no name.
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    if node.kind() != "import_declaration" {
        return;
    }
    let line = node.start_position().row as u32 + 1;
    let mut segs: Vec<&str> = Vec::new();
    let mut consumed = false;
    let push = |out: &mut Vec<Import>, module: &str, name: &str, alias: &str| {
        if !name.is_empty() && !alias.is_empty() {
            out.push(Import {
                module: module.to_owned(),
                name: Some(name.to_owned()),
                alias: alias.to_owned(),
                level: 0,
                line,
            });
        }
    };
    let mut cursor = node.walk();
    for (i, child) in node.children(&mut cursor).enumerate() {
        let module = segs.join(".");
        match child.kind() {
            "identifier" | "operator_identifier"
                if node.field_name_for_child(i as u32) == Some("path") =>
            {
                segs.push(text(child, src));
            }
            "," => {
                flush(&segs, consumed, &mut |m, n| push(out, m, n, n));
                segs.clear();
                consumed = false;
            }
            "namespace_wildcard" => {
                consumed = true;
                if !text(child, src).contains("given") {
                    push(out, &module, "*", "*");
                }
            }
            "as_renamed_identifier" | "arrow_renamed_identifier" => {
                consumed = true;
                if let Some((n, a)) = renamed(child, src) {
                    push(out, &module, n, a);
                }
            }
            "namespace_selectors" => {
                consumed = true;
                let mut c = child.walk();
                for sel in child.named_children(&mut c) {
                    match sel.kind() {
                        "identifier" | "operator_identifier" => {
                            let n = text(sel, src);
                            push(out, &module, n, n);
                        }
                        "namespace_wildcard" if !text(sel, src).contains("given") => {
                            push(out, &module, "*", "*");
                        }
                        "as_renamed_identifier" | "arrow_renamed_identifier" => {
                            if let Some((n, a)) = renamed(sel, src) {
                                push(out, &module, n, a);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    flush(&segs, consumed, &mut |m, n| push(out, m, n, n));
}

/// A plain path import (`a.b.C`) not followed by selectors binds its last segment.
fn flush(segs: &[&str], consumed: bool, push: &mut impl FnMut(&str, &str)) {
    if consumed {
        return;
    }
    if let Some((last, rest)) = segs.split_last() {
        push(&rest.join("."), last);
    }
}

/// `D => E` / `D as E`: (D, E); `None` for a hiding rename (`D => _`).
fn renamed<'a>(node: Node<'_>, src: &'a [u8]) -> Option<(&'a str, &'a str)> {
    let name = text(node.child_by_field_name("name")?, src);
    let alias = node.child_by_field_name("alias")?;
    if alias.kind() == "wildcard" {
        return None;
    }
    Some((name, text(alias, src)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn scala_imports_and_definitions() {
        let src = br#"package a
import a.b.C
import a.b.{D, E => F, G => _, _}
import a.b.*
import a.b.H as I
import x.Y, z.W
import a.b.given

trait T
class K extends Base with T { def run(): Unit = () }
val Top = 1
"#;
        let x = crate::extract(crate::Language::Scala, src).unwrap();
        let imports: Vec<_> = x.import_rows();
        assert_eq!(
            imports,
            [
                ("a.b", Some("C"), "C"),
                ("a.b", Some("D"), "D"),
                ("a.b", Some("E"), "F"),
                ("a.b", Some("*"), "*"),
                ("a.b", Some("*"), "*"),
                ("a.b", Some("H"), "I"),
                ("x", Some("Y"), "Y"),
                ("z", Some("W"), "W"),
            ]
        );
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str()))
            .collect();
        assert_eq!(
            defs,
            [
                ("T", "trait"),
                ("K", "class"),
                ("K.run", "method"),
                ("Top", "variable"),
            ]
        );
        let bases: Vec<_> = x.defs[1].bases.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(bases, ["Base", "T"]);
        assert!(x.calls.is_empty());
    }
}
