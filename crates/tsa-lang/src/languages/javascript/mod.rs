//! JavaScript (and JSX): definitions, calls with receivers, ES/CommonJS imports.
//! The import code in `ecma.rs` is shared with TypeScript.

mod ecma;

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: (
        "javascript/definitions.scm",
        include_str!("definitions.scm"),
    ),
    calls: ("javascript/calls.scm", include_str!("calls.scm")),
    imports: ("javascript/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    imports_of: ecma::imports_of,
    self_receivers: &["this"],
    builtins: include_str!("builtins.txt"),
    stdlib: include_str!("stdlib.txt"),
    module_style: ModuleStyle::RelativePath,
    implicit_self: false,
    conventions: ecma::CONVENTIONS,
    ..LanguageSpec::new(
        "javascript",
        &["js", "jsx", "mjs", "cjs"],
        || tree_sitter::Language::new(tree_sitter_javascript::LANGUAGE),
        Family::Js,
    )
};

#[cfg(test)]
mod tests {
    use crate::extract;
    use crate::languages::Language;

    fn imports(src: &[u8]) -> Vec<(String, Option<String>, String)> {
        extract::extract(Language::JavaScript, src)
            .unwrap()
            .imports
            .into_iter()
            .map(|i| (i.module, i.name, i.alias))
            .collect()
    }

    fn own(m: &str, n: Option<&str>, a: &str) -> (String, Option<String>, String) {
        (m.to_owned(), n.map(str::to_owned), a.to_owned())
    }

    #[test]
    fn es_commonjs_and_re_export_bindings() {
        let got = imports(
            br#"
import def, { a as b, c } from './m';
import * as ns from "node:fs";
import './side-effect';
export { x as y, z } from './r';
export * from './all';
export * as grouped from './g';
export { local };
const fs = require('fs');
const { p, q: r, s = 1 } = require('./cjs');
const only = require('./cjs').only;
const notImport = load('./x');
"#,
        );
        assert_eq!(
            got,
            [
                own("./m", Some("default"), "def"),
                own("./m", Some("a"), "b"),
                own("./m", Some("c"), "c"),
                own("node:fs", None, "ns"),
                own("./r", Some("x"), "y"),
                own("./r", Some("z"), "z"),
                own("./all", None, "*"),
                own("./g", None, "grouped"),
                own("fs", None, "fs"),
                own("./cjs", Some("p"), "p"),
                own("./cjs", Some("q"), "r"),
                own("./cjs", Some("s"), "s"),
                own("./cjs", Some("only"), "only"),
            ]
        );
    }

    #[test]
    fn definitions_and_calls() {
        let src = br#"
class A extends B {
  #p() { return this.#p(); }
  f = () => obj?.g();
}
const h = function () { return new A(); };
exports.k = () => <Widget.Item />;
const o = { notADef() {} };
"#;
        let x = extract::extract(Language::JavaScript, src).unwrap();
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.kind.as_str(), d.qualname.as_str()))
            .collect();
        assert_eq!(
            defs,
            [
                ("class", "A"),
                ("method", "A.#p"),
                ("method", "A.f"),
                ("function", "h"),
                ("function", "k"),
            ]
        );
        assert_eq!(x.defs[0].bases[0].name, "B");
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref()))
            .collect();
        assert_eq!(
            calls,
            [
                ("#p", Some("this")),
                ("g", Some("obj")),
                ("A", None),
                ("Item", Some("Widget")),
            ]
        );
    }
}
