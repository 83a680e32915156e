//! Java: classes, interfaces, enums, records, methods and constructors; calls
//! (`m()`, `x.m()`, `new Foo()`); single-type, on-demand and static imports; `@Test`.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, LineSyntax, ReturnForm, TestEntry,
    TestExt, TestFiles, TestNames, TestRunner,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("java/definitions.scm", include_str!("definitions.scm")),
    calls: ("java/calls.scm", include_str!("calls.scm")),
    imports: ("java/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    imports_of,
    is_test_def,
    overloads: true,
    fixed_arity: true,
    self_receivers: &["this"],
    builtins: include_str!("builtins.txt"),
    stdlib: include_str!("stdlib.txt"),
    module_style: ModuleStyle::Qualified,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::Is(EntryPoints {
            names: &["main", "init", "destroy", "doGet", "doPost", "service"],
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
        test_runner: Convention::Is(TestRunner::MavenOrGradle),
        line_syntax: Convention::Is(LineSyntax {
            comments: LineSyntax::C_LIKE_COMMENTS,
            imports: &["import ", "package "],
            quotes: &['"'],
        }),
        default_visibility: Convention::Is(DefaultVisibility::Fixed("package")),
        return_type: Convention::Is(ReturnForm::BeforeName),
        ripgrep_type: Convention::Is("java"),
        doc_path_extensions: Convention::Is(&["java"]),
        public_api: Convention::Is(crate::conventions::PublicApi::JvmLibrary),
        routes: Convention::Is(crate::conventions::Routes::Spring),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "java",
        &["java"],
        || tree_sitter::Language::new(tree_sitter_java::LANGUAGE),
        Family::Jvm,
    )
};

/// `import a.b.C;` -> (a.b, C, C); `import a.b.*;` -> (a.b, *, *);
/// `import static a.b.C.f;` -> (a.b.C, f, f).
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    if node.kind() != "import_declaration" {
        return;
    }
    let mut path = None;
    let mut star = false;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "scoped_identifier" | "identifier" => path = Some(text(child, src)),
            "asterisk" => star = true,
            _ => {}
        }
    }
    let Some(path) = path else { return };
    let path: String = path.chars().filter(|c| !c.is_whitespace()).collect();
    if path.is_empty() {
        return;
    }
    let line = node.start_position().row as u32 + 1;
    let (module, name) = if star {
        (path, "*".to_owned())
    } else {
        match path.rsplit_once('.') {
            Some((m, n)) => (m.to_owned(), n.to_owned()),
            None => (String::new(), path),
        }
    };
    out.push(Import {
        module,
        alias: name.clone(),
        name: Some(name),
        level: 0,
        line,
    });
}

/// JUnit-style test annotations on a method (`@Test`, `@org.junit.Test`,
/// `@ParameterizedTest`, ...).
fn is_test_def(node: Node<'_>, src: &[u8]) -> bool {
    if node.kind() != "method_declaration" {
        return false;
    }
    let mut cursor = node.walk();
    let Some(mods) = node.children(&mut cursor).find(|c| c.kind() == "modifiers") else {
        return false;
    };
    let mut cursor = mods.walk();
    mods.children(&mut cursor)
        .filter(|a| a.kind() == "marker_annotation" || a.kind() == "annotation")
        .filter_map(|a| a.child_by_field_name("name"))
        .any(|n| {
            let name = text(n, src);
            let last = name.rsplit('.').next().unwrap_or(name);
            matches!(
                last,
                "Test" | "ParameterizedTest" | "RepeatedTest" | "TestFactory" | "TestTemplate"
            )
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn java_imports_tests_and_calls() {
        let src = br#"package a;
import static com.acme.M.f;
import com.acme.util.*;
import com.acme.util.Helper;

class FooTest extends Base implements I, J<K> {
    FooTest() { super(); }
    @Test void works() { System.out.println(new Helper().run()); this.go(); }
    @org.junit.jupiter.api.Disabled void skipped() {}
}
"#;
        let x = crate::extract(crate::Language::Java, src).unwrap();
        let imports: Vec<_> = x.import_rows();
        assert_eq!(
            imports,
            [
                ("com.acme.M", Some("f"), "f"),
                ("com.acme.util", Some("*"), "*"),
                ("com.acme.util", Some("Helper"), "Helper"),
            ]
        );
        let defs: Vec<_> = x.def_rows();
        assert_eq!(
            defs,
            [
                ("FooTest", "class", false),
                ("FooTest.FooTest", "method", false),
                ("FooTest.works", "method", true),
                ("FooTest.skipped", "method", false),
            ]
        );
        let bases: Vec<_> = x.defs[0]
            .bases
            .iter()
            .map(|b| (b.kind.as_str(), b.name.as_str()))
            .collect();
        assert_eq!(
            bases,
            [
                ("extends", "Base"),
                ("implements", "I"),
                ("implements", "J")
            ]
        );
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref()))
            .collect();
        assert_eq!(
            calls,
            [
                ("println", Some("System")),
                ("Helper", None),
                ("run", Some("new Helper()")),
                ("go", Some("this")),
            ]
        );
    }
}
