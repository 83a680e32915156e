//! Python: definitions, calls and `import` / `from ... import` bindings.

use tree_sitter::Node;

use super::{Family, Language, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, LineSyntax, ReturnForm, TestEntry,
    TestExt, TestFiles, TestNames, TestPaths, TestRunner,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("python/definitions.scm", include_str!("definitions.scm")),
    calls: ("python/calls.scm", include_str!("calls.scm")),
    imports: ("python/imports.scm", include_str!("imports.scm")),
    imports_of,
    clean_type_name: |s| s.to_owned(),
    self_receivers: &["self", "cls"],
    // Members are reached through the receiver only (`self.x`, `@x`).
    implicit_self: false,
    module_style: ModuleStyle::Python,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::Is(EntryPoints {
            names: &[
                "main",
                "__main__",
                "setup",
                "run",
                "app",
                "create_app",
                "wsgi",
                "asgi",
                "pytest_configure",
                "unittest_main",
                "load_tests",
            ],
            prefixes: &["visit_", "depart_", "do_", "help_", "complete_"],
        }),
        class_methods_are_api: Convention::Is(true),
        signature_annotations: Convention::Is(false),
        export: Convention::NotApplicable,
        module_variables: Convention::Is(crate::conventions::ModuleVariables::AssignmentLines),
        test_names: Convention::Is(TestNames::GENERIC),
        test_entry: Convention::Is(TestEntry::Names {
            prefixes: &["test"],
            boundary: false,
            spaced: false,
        }),
        test_files: Convention::Is(TestFiles {
            names: &["test_{stem}", "{stem}_test"],
            ext: TestExt::Is("py"),
            same_dir: false,
            under: None,
            stem_in: None,
            inline_marker: None,
        }),
        test_paths: Convention::Is(TestPaths {
            suffixes: &["_test.py"],
            prefixed: &[("test_", ".py")],
        }),
        test_runner: Convention::Is(TestRunner::Pytest),
        line_syntax: Convention::Is(LineSyntax {
            comments: &["#"],
            imports: &["import ", "from "],
            quotes: &['"', '\''],
        }),
        default_visibility: Convention::Is(DefaultVisibility::Underscore),
        return_type: Convention::Is(ReturnForm::Arrow),
        ripgrep_type: Convention::Is("py"),
        doc_path_extensions: Convention::Is(&["py"]),
        public_api: Convention::Is(crate::conventions::PublicApi::PythonPackage),
        routes: Convention::Is(crate::conventions::Routes::PythonWeb),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "python",
        &["py", "pyi"],
        || tree_sitter::Language::new(tree_sitter_python::LANGUAGE),
        Family::Python,
    )
};

fn line(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let ln = line(node);
    match node.kind() {
        "import_statement" => {
            let mut cursor = node.walk();
            for child in node.children_by_field_name("name", &mut cursor) {
                match child.kind() {
                    // `import a.b` binds `a`; the receiver text `a.b` still names module a.b.
                    "dotted_name" => {
                        let module = text(child, src).to_owned();
                        let alias = module.split('.').next().unwrap_or("").to_owned();
                        out.push(Import {
                            module,
                            name: None,
                            alias,
                            level: 0,
                            line: ln,
                        });
                    }
                    "aliased_import" => {
                        let module = Language::Python
                            .field(child, "name")
                            .map(|n| text(n, src))
                            .unwrap_or("");
                        let alias = Language::Python
                            .field(child, "alias")
                            .map(|n| text(n, src))
                            .unwrap_or("");
                        out.push(Import {
                            module: module.to_owned(),
                            name: None,
                            alias: alias.to_owned(),
                            level: 0,
                            line: ln,
                        });
                    }
                    _ => {}
                }
            }
        }
        "import_from_statement" => {
            let (module, level) = match Language::Python.field(node, "module_name") {
                Some(m) if m.kind() == "relative_import" => {
                    let t = text(m, src);
                    let level = t.chars().take_while(|c| *c == '.').count() as u32;
                    (t.trim_start_matches('.').to_owned(), level)
                }
                Some(m) => (text(m, src).to_owned(), 0),
                None => (String::new(), 0),
            };
            let mut cursor = node.walk();
            let mut any_star = false;
            for child in node.children(&mut cursor) {
                if child.kind() == "wildcard_import" {
                    any_star = true;
                }
            }
            if any_star {
                out.push(Import {
                    module: module.clone(),
                    name: None,
                    alias: "*".into(),
                    level,
                    line: ln,
                });
            }
            let mut cursor = node.walk();
            for child in node.children_by_field_name("name", &mut cursor) {
                let (name, alias) = match child.kind() {
                    "dotted_name" => {
                        let t = text(child, src);
                        (t.to_owned(), t.to_owned())
                    }
                    "aliased_import" => (
                        Language::Python
                            .field(child, "name")
                            .map(|n| text(n, src))
                            .unwrap_or("")
                            .to_owned(),
                        Language::Python
                            .field(child, "alias")
                            .map(|n| text(n, src))
                            .unwrap_or("")
                            .to_owned(),
                    ),
                    _ => continue,
                };
                out.push(Import {
                    module: module.clone(),
                    name: Some(name),
                    alias,
                    level,
                    line: ln,
                });
            }
        }
        _ => {}
    }
}
