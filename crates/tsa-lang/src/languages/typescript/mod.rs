//! TypeScript and TSX: definitions (classes, interfaces, type aliases, enums,
//! namespaces), calls with receivers, ES/CommonJS imports. One set of queries for
//! both grammars, plus JSX component calls for TSX; import code and resolver data
//! are shared with JavaScript (`../javascript/`).

// The JavaScript import code, compiled here too so TypeScript builds without the
// `javascript` feature.
#[allow(clippy::duplicate_mod)]
#[path = "../javascript/ecma.rs"]
mod ecma;

use super::{Family, LanguageSpec, ModuleStyle};
use crate::conventions::{Convention, Conventions, ReturnForm, TestPaths};

const BASE: LanguageSpec = LanguageSpec {
    definitions: (
        "typescript/definitions.scm",
        include_str!("definitions.scm"),
    ),
    calls: ("typescript/calls.scm", include_str!("calls.scm")),
    imports: ("typescript/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    imports_of: ecma::imports_of,
    self_receivers: &["this"],
    builtins: include_str!("../javascript/builtins.txt"),
    stdlib: include_str!("../javascript/stdlib.txt"),
    module_style: ModuleStyle::RelativePath,
    implicit_self: false,
    conventions: Conventions {
        test_paths: Convention::Is(TestPaths {
            suffixes: &[".test.ts", ".spec.ts"],
            prefixed: &[],
        }),
        return_type: Convention::Is(ReturnForm::ColonAfterParams),
        ripgrep_type: Convention::Is("ts"),
        doc_path_extensions: Convention::Is(&["ts"]),
        branches: Convention::Is(include_str!("branches.txt")),
        ..ecma::CONVENTIONS
    },
    ..LanguageSpec::new(
        "typescript",
        &["ts", "mts", "cts"],
        || tree_sitter::Language::new(tree_sitter_typescript::LANGUAGE_TYPESCRIPT),
        Family::Js,
    )
};

pub(crate) static SPEC: LanguageSpec = BASE;

/// TSX: the TypeScript queries over the TSX grammar, with JSX elements as calls.
pub(crate) static TSX: LanguageSpec = LanguageSpec {
    name: "tsx",
    extensions: &["tsx"],
    grammar: || tree_sitter::Language::new(tree_sitter_typescript::LANGUAGE_TSX),
    calls: (
        "typescript/calls.scm+jsx_calls.scm",
        concat!(include_str!("calls.scm"), include_str!("jsx_calls.scm")),
    ),
    conventions: Conventions {
        test_paths: Convention::Is(TestPaths {
            suffixes: &[".test.tsx", ".spec.tsx"],
            prefixed: &[],
        }),
        ripgrep_type: Convention::Is("tsx"),
        doc_path_extensions: Convention::Is(&["tsx"]),
        ..BASE.conventions
    },
    ..BASE
};

#[cfg(test)]
mod tests {
    use crate::extract;
    use crate::languages::Language;

    #[test]
    fn type_definitions_bases_and_import_require() {
        let src = br#"
import fs = require('fs');
import type { T } from './t';
namespace A.B { export function f() {} }
abstract class C<X> extends Base<X> implements I, ns.J<X> {
  abstract m(): void;
  n(): void {}
  n(a?: number): void;
}
interface I extends K<string> { g(): void; p: number }
type Alias = { h(): void };
enum E { One }
"#;
        let x = extract::extract(Language::TypeScript, src).unwrap();
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.kind.as_str(), d.qualname.as_str()))
            .collect();
        assert_eq!(
            defs,
            [
                ("module", "A.B"),
                ("function", "A.B.f"),
                ("class", "C"),
                ("method", "C.m"),
                ("method", "C.n"),
                ("interface", "I"),
                ("method", "I.g"),
                ("type", "Alias"),
                ("enum", "E"),
            ]
        );
        let bases: Vec<_> = x.defs[2]
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
        assert_eq!(x.defs[5].bases[0].name, "K");
        let imports: Vec<_> = x.import_rows();
        assert_eq!(imports, [("fs", None, "fs"), ("./t", Some("T"), "T")]);
    }

    #[test]
    fn tsx_elements_are_calls_and_ts_has_no_jsx() {
        let src = b"const App = () => <Layout><Card.Body /><div /></Layout>;\n";
        let x = extract::extract(Language::Tsx, src).unwrap();
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref()))
            .collect();
        assert_eq!(calls, [("Layout", None), ("Body", Some("Card"))]);
        let ts =
            extract::extract(Language::TypeScript, b"const v = f<number>(new X());\n").unwrap();
        let callees: Vec<_> = ts.calls.iter().map(|c| &*c.callee).collect();
        assert_eq!(callees, ["f", "X"]);
    }
}
