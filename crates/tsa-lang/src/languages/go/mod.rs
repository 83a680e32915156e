//! Go: functions, methods with receivers, named types, calls (`f()`, `pkg.F()`,
//! `x.m()`) and import specs bound to their package names.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, Export, LineSyntax, ReturnForm,
    TestEntry, TestExt, TestFiles, TestNames, TestPaths, TestRunner,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("go/definitions.scm", include_str!("definitions.scm")),
    calls: ("go/calls.scm", include_str!("calls.scm")),
    imports: ("go/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    imports_of,
    // Go has no fixed self name: a receiver is whatever the method calls it.
    self_receivers: &[],
    builtins: include_str!("builtins.txt"),
    stdlib: include_str!("stdlib.txt"),
    module_style: ModuleStyle::GoPackage,
    owner_of,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::Is(EntryPoints {
            names: &["main", "init", "TestMain"],
            prefixes: &[],
        }),
        class_methods_are_api: Convention::Is(false),
        signature_annotations: Convention::Is(false),
        export: Convention::Is(Export::Capitalised),
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        test_names: Convention::Is(TestNames {
            prefixes: &["Test", "Benchmark", "Example", "Fuzz"],
            ignore_case: false,
            hooks: &[],
        }),
        test_entry: Convention::Is(TestEntry::Names {
            prefixes: &["Test", "Benchmark", "Example", "Fuzz"],
            boundary: true,
            spaced: false,
        }),
        test_files: Convention::Is(TestFiles {
            names: &["{stem}_test"],
            ext: TestExt::Is("go"),
            same_dir: true,
            under: None,
            stem_in: None,
            inline_marker: None,
        }),
        test_paths: Convention::Is(TestPaths {
            suffixes: &["_test.go"],
            prefixed: &[],
        }),
        test_runner: Convention::Is(TestRunner::GoTest),
        line_syntax: Convention::Is(LineSyntax {
            comments: LineSyntax::C_LIKE_COMMENTS,
            imports: &["import ", "package "],
            quotes: &['"', '`'],
        }),
        default_visibility: Convention::Is(DefaultVisibility::Capitalised),
        return_type: Convention::Is(ReturnForm::AfterParams),
        ripgrep_type: Convention::Is("go"),
        doc_path_extensions: Convention::Is(&["go"]),
        public_api: Convention::Is(crate::conventions::PublicApi::GoExported),
        routes: Convention::Is(crate::conventions::Routes::Gin),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "go",
        &["go"],
        || tree_sitter::Language::new(tree_sitter_go::LANGUAGE),
        Family::Go,
    )
};

/// One `import_spec`: the path without quotes is the module; the alias is the explicit
/// name, `*` for a dot import, `_` for a blank import, else the package name the path
/// conventionally declares.
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    if node.kind() != "import_spec" {
        return;
    }
    let Some(path) = node.child_by_field_name("path") else {
        return;
    };
    let module = text(path, src)
        .trim_matches(|c| c == '"' || c == '`')
        .trim()
        .to_owned();
    if module.is_empty() {
        return;
    }
    let alias = match node.child_by_field_name("name") {
        Some(n) if n.kind() == "dot" => "*".to_owned(),
        Some(n) => text(n, src).to_owned(),
        None => package_name(&module),
    };
    if alias.is_empty() {
        return;
    }
    out.push(Import {
        module,
        name: None,
        alias,
        level: 0,
        line: node.start_position().row as u32 + 1,
    });
}

/// The package name an import path conventionally declares: its last segment, skipping
/// a major-version suffix (`/v2`, `yaml.v3`) and a `go-` prefix or `-go` suffix.
fn package_name(path: &str) -> String {
    let is_version = |s: &str| {
        s.strip_prefix('v')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if segs.len() > 1 && segs.last().is_some_and(|s| is_version(s)) {
        segs.pop();
    }
    let mut last = segs.last().copied().unwrap_or("");
    if let Some((head, tail)) = last.rsplit_once('.')
        && is_version(tail)
    {
        last = head;
    }
    let last = last.strip_prefix("go-").unwrap_or(last);
    let last = last.strip_suffix("-go").unwrap_or(last);
    last.to_owned()
}

/// `func (s *Store) Get()` -> (`Store`, `s`): the receiver's type owns the method.
fn owner_of(node: tree_sitter::Node<'_>, src: &[u8]) -> Option<(String, Option<String>)> {
    if node.kind() != "method_declaration" {
        return None;
    }
    let receiver = node.child_by_field_name("receiver")?;
    let mut cursor = receiver.walk();
    let param = receiver
        .named_children(&mut cursor)
        .find(|c| c.kind() == "parameter_declaration")?;
    let ty = param.child_by_field_name("type")?;
    let text = |n: tree_sitter::Node<'_>| {
        std::str::from_utf8(&src[n.byte_range()])
            .unwrap_or("")
            .to_owned()
    };
    let name = param.child_by_field_name("name").map(text);
    Some((text(ty), name))
}

#[cfg(test)]
mod tests {
    use super::package_name;

    #[test]
    fn package_names_from_import_paths() {
        assert_eq!(package_name("fmt"), "fmt");
        assert_eq!(package_name("net/http"), "http");
        assert_eq!(package_name("example.com/shop/store"), "store");
        assert_eq!(package_name("github.com/go-chi/chi/v5"), "chi");
        assert_eq!(package_name("gopkg.in/yaml.v3"), "yaml");
        assert_eq!(package_name("github.com/mattn/go-sqlite3"), "sqlite3");
        assert_eq!(package_name("v2"), "v2");
    }

    #[test]
    fn go_imports_methods_and_calls() {
        let src = br#"package main

import (
	"fmt"
	h "net/http"
	_ "embed"
	. "example.com/x/util"
	"github.com/go-chi/chi/v5"
)

type Server struct{ Base }

func (s *Server) Start() { fmt.Println(s.addr()); Helper[int](1) }
"#;
        let x = crate::extract(crate::Language::Go, src).unwrap();
        let imports: Vec<_> = x
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.alias.as_str()))
            .collect();
        assert_eq!(
            imports,
            [
                ("fmt", "fmt"),
                ("net/http", "h"),
                ("embed", "_"),
                ("example.com/x/util", "*"),
                ("github.com/go-chi/chi/v5", "chi"),
            ]
        );
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str(), d.owner.as_deref()))
            .collect();
        assert_eq!(
            defs,
            [
                ("Server", "struct", None),
                ("Server.Start", "method", Some("Server"))
            ]
        );
        assert_eq!(x.defs[0].bases[0].name, "Base");
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref()))
            .collect();
        assert_eq!(
            calls,
            [
                ("Println", Some("fmt")),
                ("addr", Some("s")),
                ("Helper", None)
            ]
        );
    }
}
