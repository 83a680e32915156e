//! Kotlin: classes, objects, interfaces, enum classes, functions (member, top-level,
//! extension); calls (`f()`, `x.f()`, `Type.f()`); imports with `*` and `as`; `@Test`.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, LineSyntax, ReturnForm, TestEntry,
    TestExt, TestFiles, TestNames, TestRunner,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("kotlin/definitions.scm", include_str!("definitions.scm")),
    calls: ("kotlin/calls.scm", include_str!("calls.scm")),
    imports: ("kotlin/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    imports_of,
    is_test_def,
    overloads: true,
    self_receivers: &["this"],
    builtins: include_str!("builtins.txt"),
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
        test_runner: Convention::Is(TestRunner::MavenOrGradle),
        line_syntax: Convention::Is(LineSyntax {
            comments: LineSyntax::C_LIKE_COMMENTS,
            imports: &["import ", "package "],
            quotes: &['"'],
        }),
        default_visibility: Convention::Is(DefaultVisibility::LeadingMark),
        return_type: Convention::Is(ReturnForm::ColonAfterParams),
        ripgrep_type: Convention::Is("kotlin"),
        doc_path_extensions: Convention::Is(&["kt"]),
        public_api: Convention::Is(crate::conventions::PublicApi::JvmLibrary),
        routes: Convention::Is(crate::conventions::Routes::Spring),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "kotlin",
        &["kt", "kts"],
        || tree_sitter::Language::new(tree_sitter_kotlin_ng::LANGUAGE),
        Family::Jvm,
    )
};

/// `import a.b.C` -> (a.b, C, C); `import a.b.*` -> (a.b, *, *);
/// `import a.b.C as D` -> (a.b, C, D).
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    if node.kind() != "import" {
        return;
    }
    let mut path = None;
    let mut star = false;
    let mut alias = None;
    let mut after_as = false;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "qualified_identifier" => path = Some(text(child, src)),
            "identifier" if after_as => alias = Some(text(child, src)),
            "identifier" if path.is_none() => path = Some(text(child, src)),
            "*" => star = true,
            "as" => after_as = true,
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
    let alias = match alias {
        Some(a) if !star && !a.is_empty() => a.to_owned(),
        _ => name.clone(),
    };
    out.push(Import {
        module,
        name: Some(name),
        alias,
        level: 0,
        line,
    });
}

/// Test annotations on a function (`@Test`, `@org.junit.Test`, `@ParameterizedTest`).
fn is_test_def(node: Node<'_>, src: &[u8]) -> bool {
    if node.kind() != "function_declaration" {
        return false;
    }
    let mut cursor = node.walk();
    let Some(mods) = node.children(&mut cursor).find(|c| c.kind() == "modifiers") else {
        return false;
    };
    let mut cursor = mods.walk();
    mods.children(&mut cursor)
        .filter(|a| a.kind() == "annotation")
        .any(|a| {
            let t = text(a, src).trim_start_matches('@');
            let t = t.split('(').next().unwrap_or(t).trim();
            let last = t.rsplit(['.', ':']).next().unwrap_or(t);
            matches!(
                last,
                "Test" | "ParameterizedTest" | "RepeatedTest" | "TestFactory" | "TestTemplate"
            )
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn kotlin_imports_kinds_and_calls() {
        let src = br#"package a
import com.acme.util.slug as makeSlug
import com.acme.util.*
import kotlin.math.max

enum class Color { RED }
data class P(val x: Int) : Base(x), Shape
interface Shape {}
object Registry {
    fun add() {}
}
class Order {
    companion object {
        fun of(): Order = Order()
    }

    @Test
    fun works() {
        this.add()
        Registry.add()
        max(1, 2)
    }
}
"#;
        let x = crate::extract(crate::Language::Kotlin, src).unwrap();
        let imports: Vec<_> = x.import_rows();
        assert_eq!(
            imports,
            [
                ("com.acme.util", Some("slug"), "makeSlug"),
                ("com.acme.util", Some("*"), "*"),
                ("kotlin.math", Some("max"), "max"),
            ]
        );
        let defs: Vec<_> = x.def_rows();
        assert_eq!(
            defs,
            [
                ("Color", "enum", false),
                ("P", "class", false),
                ("Shape", "interface", false),
                ("Registry", "class", false),
                ("Registry.add", "method", false),
                ("Order", "class", false),
                ("Order.of", "method", false),
                ("Order.works", "method", true),
            ]
        );
        let bases: Vec<_> = x.defs[1].bases.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(bases, ["Base", "Shape"]);
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref()))
            .collect();
        assert_eq!(
            calls,
            [
                ("Order", None),
                ("add", Some("this")),
                ("add", Some("Registry")),
                ("max", None),
            ]
        );
    }
}
