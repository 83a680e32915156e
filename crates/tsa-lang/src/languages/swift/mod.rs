//! Swift: classes, actors, structs, enums, protocols, extensions (impls of the
//! extended type), functions and initializers; calls (`f()`, `x.f()`, `self.f()`,
//! `Type.f()`); `import` of whole modules.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, LineSyntax, ReturnForm, TestEntry,
    TestFiles, TestNames,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("swift/definitions.scm", include_str!("definitions.scm")),
    calls: ("swift/calls.scm", include_str!("calls.scm")),
    imports: ("swift/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    imports_of,
    is_test_def,
    overloads: true,
    self_receivers: &["self"],
    builtins: include_str!("builtins.txt"),
    stdlib: include_str!("stdlib.txt"),
    module_style: ModuleStyle::None,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::Is(EntryPoints {
            names: &["main"],
            prefixes: &[],
        }),
        class_methods_are_api: Convention::Is(true),
        signature_annotations: Convention::Is(false),
        export: Convention::NotApplicable,
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        test_names: Convention::Is(TestNames::GENERIC),
        test_entry: Convention::Is(TestEntry::NotPrivate),
        test_files: Convention::Is(TestFiles::GENERIC),
        test_paths: Convention::NotApplicable,
        test_runner: Convention::NotApplicable,
        line_syntax: Convention::Is(LineSyntax {
            comments: LineSyntax::C_LIKE_COMMENTS,
            imports: &["import "],
            quotes: &['"'],
        }),
        default_visibility: Convention::Is(DefaultVisibility::LeadingMark),
        return_type: Convention::Is(ReturnForm::Arrow),
        ripgrep_type: Convention::Is("swift"),
        doc_path_extensions: Convention::Is(&["swift"]),
        public_api: Convention::Is(crate::conventions::PublicApi::SwiftLibrary),
        routes: Convention::Is(crate::conventions::Routes::None),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "swift",
        &["swift", "swiftinterface"],
        || tree_sitter::Language::new(tree_sitter_swift::LANGUAGE),
        Family::Swift,
    )
};

/// `import Foundation` brings in a whole module (`*`); `import struct os.Logger`
/// binds the one declaration `Logger` of module `os`.
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    let Some(path) = children.iter().find(|c| c.kind() == "identifier") else {
        return;
    };
    let mut cursor = path.walk();
    let segments: Vec<&str> = path
        .named_children(&mut cursor)
        .filter(|s| s.kind() == "simple_identifier")
        .map(|s| text(s, src))
        .collect();
    let line = node.start_position().row as u32 + 1;
    let single = children.iter().any(|c| {
        matches!(
            c.kind(),
            "typealias" | "struct" | "class" | "enum" | "protocol" | "let" | "var" | "func"
        )
    });
    match segments.split_last() {
        Some((name, module)) if single && !module.is_empty() => out.push(Import {
            module: module.join("."),
            name: Some((*name).to_owned()),
            alias: (*name).to_owned(),
            level: 0,
            line,
        }),
        Some(_) => out.push(Import {
            module: segments.join("."),
            name: None,
            alias: "*".into(),
            level: 0,
            line,
        }),
        None => {}
    }
}

/// XCTest cases (classes inheriting `XCTestCase`, whose methods inherit the mark) and
/// swift-testing's `@Test` functions and `@Suite` types.
fn is_test_def(node: Node<'_>, src: &[u8]) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| match c.kind() {
        "inheritance_specifier" => {
            let t = text(c, src).trim();
            t == "XCTestCase" || t.ends_with(".XCTestCase") || t == "QuickSpec"
        }
        "modifiers" => {
            let mut cursor = c.walk();
            c.children(&mut cursor)
                .filter(|a| a.kind() == "attribute")
                .any(|a| {
                    let t = text(a, src).trim_start_matches('@');
                    let name = t.split(['(', ' ']).next().unwrap_or(t);
                    name == "Test" || name == "Suite"
                })
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    #[test]
    fn swift_defs_calls_imports() {
        let src = br#"import Foundation
import struct os.Logger

protocol Shape: AnyObject { func area() -> Double }
struct Circle: Shape {
    init(radius: Double) { self.radius = radius }
    func area() -> Double { Double.pi * radius * radius }
}
extension Circle: CustomStringConvertible {
    func describe() -> String { self.area().description }
}
final class Tests: XCTestCase {
    func testArea() { XCTAssertEqual(Circle(radius: 1).area(), 3.14) }
}
let c = Circle.unit()
obj?.run()
"#;
        let x = extract(Language::Swift, src).unwrap();
        let defs: Vec<_> = x.def_rows();
        assert_eq!(
            defs,
            [
                ("Shape", "interface", false),
                ("Shape.area", "method", false),
                ("Circle", "struct", false),
                ("Circle.init", "method", false),
                ("Circle.area", "method", false),
                ("Circle", "impl", false),
                ("Circle.describe", "method", false),
                ("Tests", "class", true),
                ("Tests.testArea", "method", true),
            ]
        );
        assert_eq!(x.defs[6].owner.as_deref(), Some("Circle"));
        assert_eq!(x.defs[2].bases[0].name, "Shape");
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref()))
            .collect();
        assert_eq!(
            calls,
            [
                ("area", Some("self")),
                ("XCTAssertEqual", None),
                ("Circle", None),
                ("area", Some("Circle(radius: 1)")),
                ("unit", Some("Circle")),
                ("run", Some("obj")),
            ]
        );
        let imports: Vec<_> = x.import_rows();
        assert_eq!(
            imports,
            [("Foundation", None, "*"), ("os", Some("Logger"), "Logger")]
        );
    }
}
