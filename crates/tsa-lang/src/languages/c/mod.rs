//! C: functions with bodies, structs, unions, enums, typedefs and function-like macros;
//! calls by name or through a struct field; `#include` as a whole-header import.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, EntryPoints, LineSyntax, ReturnForm, TestEntry, TestFiles, TestNames,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("c/definitions.scm", include_str!("definitions.scm")),
    calls: ("c/calls.scm", include_str!("calls.scm")),
    imports: ("c/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    imports_of,
    self_receivers: &[],
    builtins: include_str!("builtins.txt"),
    stdlib: include_str!("stdlib.txt"),
    module_style: ModuleStyle::RelativePath,
    noise_macros: include_str!("noise_macros.txt"),
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
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
        test_paths: Convention::NotApplicable,
        test_runner: Convention::NotApplicable,
        line_syntax: Convention::Is(LineSyntax {
            comments: LineSyntax::C_LIKE_COMMENTS,
            imports: &["#include", "#import", "using namespace "],
            quotes: &['"'],
        }),
        default_visibility: Convention::NotApplicable,
        return_type: Convention::Is(ReturnForm::BeforeName),
        ripgrep_type: Convention::Is("c"),
        doc_path_extensions: Convention::Is(&["c", "h"]),
        public_api: Convention::Is(crate::conventions::PublicApi::Undetected),
        routes: Convention::Is(crate::conventions::Routes::None),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "c",
        &["c", "h"],
        || tree_sitter::Language::new(tree_sitter_c::LANGUAGE),
        Family::C,
    )
};

/// The path of an `#include`: `"util.h"` gives `util.h` (a path relative to the
/// including file), `<stdio.h>` stays `<stdio.h>` (a system header, matched whole
/// against the stdlib list). An include brings in every name of the header: `*`.
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let raw = text(node, src).trim();
    let module = match node.kind() {
        "system_lib_string" => raw.to_owned(),
        _ => raw.trim_matches('"').trim().to_owned(),
    };
    if module.is_empty() || module == "<>" {
        return;
    }
    out.push(Import {
        module,
        name: None,
        alias: "*".into(),
        level: 0,
        line: node.start_position().row as u32 + 1,
    });
}

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    #[test]
    fn c_defs_calls_includes() {
        let src = br#"#include <stdio.h>
#include "geo/point.h"
#define SQUARE(x) ((x) * (x))
typedef double coord_t;
typedef struct { int w; } Rect;
typedef struct node { struct node *next; } Node;
typedef struct list_s { int n; } List;
typedef struct same { int n; } same;
enum color { RED };
int area(const Rect *r);
static char **split(const char *s) { return 0; }
Rect *rect_new(int w) { Rect *r = malloc(sizeof *r); r->ops->draw(r); printf("%d", SQUARE(w)); return r; }
"#;
        let x = extract(Language::C, src).unwrap();
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str(), d.line))
            .collect();
        assert_eq!(
            defs,
            [
                ("SQUARE", "function", 3),
                ("coord_t", "type", 4),
                ("Rect", "struct", 5),
                ("node", "struct", 6),
                ("Node", "type", 6),
                ("list_s", "struct", 7),
                ("List", "type", 7),
                ("same", "struct", 8),
                ("color", "enum", 9),
                ("split", "function", 11),
                ("rect_new", "function", 12),
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
                ("malloc", None),
                ("draw", Some("r->ops")),
                ("printf", None),
                ("SQUARE", None)
            ]
        );
        let imports: Vec<_> = x
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.alias.as_str()))
            .collect();
        assert_eq!(imports, [("<stdio.h>", "*"), ("geo/point.h", "*")]);
        assert_eq!(x.parse_errors, 0);
    }

    #[test]
    fn system_headers_are_stdlib_and_libc_is_builtin() {
        assert!(Language::C.is_stdlib_module("<stdio.h>"));
        assert!(Language::C.is_stdlib_module("<sys/types.h>"));
        assert!(!Language::C.is_stdlib_module("<curl/curl.h>"));
        assert!(!Language::C.is_stdlib_module("util.h"));
        assert!(Language::C.is_builtin("printf"));
        assert!(Language::C.is_builtin("memcpy"));
    }
}
