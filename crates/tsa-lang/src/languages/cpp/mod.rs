//! C++: functions and methods (in-class and out-of-class), classes and structs with
//! their bases, namespaces, typedefs and aliases; calls by name, through a value
//! (`obj.m()`, `p->m()`, `this->m()`) or a path (`ns::f()`, `Type::f()`);
//! `#include` and `using std::...` as imports.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, EntryPoints, LineSyntax, ReturnForm, TestEntry, TestFiles, TestNames,
    TestPaths,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("cpp/definitions.scm", include_str!("definitions.scm")),
    calls: ("cpp/calls.scm", include_str!("calls.scm")),
    imports: ("cpp/imports.scm", include_str!("imports.scm")),
    qual_sep: "::",
    imports_of,
    is_test_def,
    overloads: true,
    self_receivers: &["this"],
    // The cast keywords parse as template calls; C++ code calls the C library
    // unqualified just as C does.
    builtins: concat!(
        include_str!("builtins.txt"),
        include_str!("../c/builtins.txt")
    ),
    stdlib: concat!(include_str!("stdlib.txt"), include_str!("../c/stdlib.txt")),
    module_style: ModuleStyle::RelativePath,
    noise_macros: include_str!("../c/noise_macros.txt"),
    conventions: Conventions {
        complexity: Convention::Is(include_str!("../c/complexity.yml")),
        entry_points: Convention::Is(EntryPoints {
            names: &["main", "WinMain"],
            prefixes: &[],
        }),
        class_methods_are_api: Convention::Is(false),
        signature_annotations: Convention::Is(false),
        export: Convention::NotApplicable,
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        test_names: Convention::Is(TestNames::GENERIC),
        test_entry: Convention::Is(TestEntry::Any),
        test_files: Convention::Is(TestFiles::GENERIC),
        test_paths: Convention::Is(TestPaths {
            suffixes: &["_test.cc", "_test.cpp", "_test.cxx"],
            prefixed: &[],
        }),
        test_runner: Convention::NotApplicable,
        line_syntax: Convention::Is(LineSyntax {
            comments: LineSyntax::C_LIKE_COMMENTS,
            imports: &["#include", "#import", "using namespace "],
            quotes: &['"'],
        }),
        default_visibility: Convention::NotApplicable,
        return_type: Convention::Is(ReturnForm::BeforeName),
        ripgrep_type: Convention::Is("cpp"),
        doc_path_extensions: Convention::Is(&["cpp"]),
        public_api: Convention::Is(crate::conventions::PublicApi::Undetected),
        routes: Convention::Is(crate::conventions::Routes::None),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "cpp",
        &["cpp", "cc", "cxx", "hpp", "hxx", "hh"],
        || tree_sitter::Language::new(tree_sitter_cpp::LANGUAGE),
        Family::C,
    )
};

fn line(node: Node<'_>) -> u32 {
    node.start_position().row as u32 + 1
}

fn is_std(path: &str) -> bool {
    path == "std" || path.starts_with("std::")
}

/// `#include` brings in a whole header (`*`): `"x.hpp"` is a path relative to the
/// including file, `<vector>` stays as written for the stdlib list.
/// `using namespace std;` and `using std::move;` bind standard names; other
/// `using` declarations name namespaces, which are no file, and are skipped.
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    match node.kind() {
        "system_lib_string" | "string_literal" => {
            let raw = text(node, src).trim();
            let module = if node.kind() == "system_lib_string" {
                raw.to_owned()
            } else {
                raw.trim_matches('"').trim().to_owned()
            };
            if !module.is_empty() && module != "<>" {
                out.push(Import {
                    module,
                    name: None,
                    alias: "*".into(),
                    level: 0,
                    line: line(node),
                });
            }
        }
        "using_declaration" => {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            let namespace = children.iter().any(|c| c.kind() == "namespace");
            let Some(target) = children
                .iter()
                .rev()
                .find(|c| matches!(c.kind(), "identifier" | "qualified_identifier"))
            else {
                return;
            };
            let path: String = text(*target, src).split_whitespace().collect();
            if namespace {
                if is_std(&path) {
                    out.push(Import {
                        module: path,
                        name: None,
                        alias: "*".into(),
                        level: 0,
                        line: line(node),
                    });
                }
            } else if let Some((module, name)) = path.rsplit_once("::")
                && is_std(module)
                && !name.is_empty()
            {
                out.push(Import {
                    module: module.to_owned(),
                    name: Some(name.to_owned()),
                    alias: name.to_owned(),
                    level: 0,
                    line: line(node),
                });
            }
        }
        _ => {}
    }
}

/// Test-framework macros that define a test body: `TEST(Suite, Name) { ... }` parses as
/// a function named after the macro.
fn is_test_def(node: Node<'_>, src: &[u8]) -> bool {
    const TEST_MACROS: [&str; 7] = [
        "TEST",
        "TEST_F",
        "TEST_P",
        "TYPED_TEST",
        "TYPED_TEST_P",
        "BOOST_AUTO_TEST_CASE",
        "BOOST_FIXTURE_TEST_CASE",
    ];
    if node.kind() != "function_definition" {
        return false;
    }
    node.child_by_field_name("declarator")
        .filter(|d| d.kind() == "function_declarator")
        .and_then(|d| d.child_by_field_name("declarator"))
        .is_some_and(|n| n.kind() == "identifier" && TEST_MACROS.contains(&text(n, src)))
}

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    #[test]
    fn cpp_defs_calls_imports() {
        let src = br#"#include <vector>
#include "shapes.hpp"
using namespace std;
using std::move;
using geo::Circle;
namespace geo {
class Circle : public Shape, private Mixin<int> {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override;
    static Circle make(double r) { return Circle(r); }
    Circle& self() { this->touch(); return *this; }
};
}
double geo::Circle::area() const { return std::pow(r_, 2); }
TEST(CircleTest, Area) { EXPECT_EQ(1, 1); }
int main() {
    auto c = std::make_unique<geo::Circle>(1.0);
    geo::Circle::make(2.0);
    c->area();
    return 0;
}
"#;
        let x = extract(Language::Cpp, src).unwrap();
        let defs: Vec<_> = x.def_rows();
        assert_eq!(
            defs,
            [
                ("geo", "module", false),
                ("geo::Circle", "class", false),
                ("geo::Circle::Circle", "method", false),
                ("geo::Circle::make", "method", false),
                ("geo::Circle::self", "method", false),
                ("area", "function", false),
                ("TEST", "function", true),
                ("main", "function", false),
            ]
        );
        let bases: Vec<_> = x.defs[1].bases.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(bases, ["Shape", "Mixin"]);
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref(), c.path))
            .collect();
        assert_eq!(
            calls,
            [
                ("Circle", None, false),
                ("touch", Some("this"), false),
                ("pow", Some("std"), true),
                ("EXPECT_EQ", None, false),
                ("make_unique", Some("std"), true),
                ("make", Some("Circle"), true),
                ("area", Some("c"), false),
            ]
        );
        let imports: Vec<_> = x.import_rows();
        assert_eq!(
            imports,
            [
                ("<vector>", None, "*"),
                ("shapes.hpp", None, "*"),
                ("std", None, "*"),
                ("std", Some("move"), "move"),
            ]
        );
        assert!(Language::Cpp.is_stdlib_module("std::chrono"));
        assert!(Language::Cpp.is_stdlib_module("<cstdio>"));
        assert!(Language::Cpp.is_stdlib_module("<stdio.h>"));
        assert!(Language::Cpp.is_builtin("printf"));
    }
}
