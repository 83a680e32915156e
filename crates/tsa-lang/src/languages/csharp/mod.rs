//! C#: namespaces (block and file-scoped), classes, records, structs, interfaces,
//! enums and delegates with their bases; methods, constructors and local functions;
//! calls (`F()`, `x.F()`, `this.F()`, `Type.F()`, `new Foo()`); `using` directives.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, LineSyntax, ReturnForm, TestEntry,
    TestExt, TestFiles, TestNames,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("csharp/definitions.scm", include_str!("definitions.scm")),
    calls: ("csharp/calls.scm", include_str!("calls.scm")),
    imports: ("csharp/imports.scm", include_str!("imports.scm")),
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
            names: &["Main"],
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
            imports: &["using ", "namespace "],
            quotes: &['"'],
        }),
        default_visibility: Convention::Is(DefaultVisibility::Fixed("private")),
        return_type: Convention::Is(ReturnForm::BeforeName),
        ripgrep_type: Convention::Is("csharp"),
        doc_path_extensions: Convention::Is(&["cs"]),
        public_api: Convention::Is(crate::conventions::PublicApi::DotnetLibrary),
        routes: Convention::Is(crate::conventions::Routes::None),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "csharp",
        &["cs"],
        || tree_sitter::Language::new(tree_sitter_c_sharp::LANGUAGE),
        Family::CSharp,
    )
};

/// `using A.B;` (also `static` and `global`) brings in a namespace's names: module
/// `A.B`, alias `*`. `using X = A.B.C;` binds `X` to the type `C` of `A.B`.
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let alias = node.child_by_field_name("name");
    let mut cursor = node.walk();
    let target = node
        .named_children(&mut cursor)
        .filter(|c| Some(c.id()) != alias.map(|a| a.id()))
        .filter(|c| {
            matches!(
                c.kind(),
                "identifier" | "qualified_name" | "generic_name" | "alias_qualified_name"
            )
        })
        .last();
    let Some(target) = target else { return };
    let path: String = text(target, src).split_whitespace().collect();
    // `global::A.B` names the root namespace explicitly.
    let path = path.trim_start_matches("global::").to_owned();
    if path.is_empty() {
        return;
    }
    let line = node.start_position().row as u32 + 1;
    let Some(alias) = alias.map(|a| text(a, src).to_owned()) else {
        out.push(Import {
            module: path,
            name: None,
            alias: "*".into(),
            level: 0,
            line,
        });
        return;
    };
    // Generic arguments (`List<Acme.Item>`) are not part of the aliased path.
    let plain = path.split('<').next().unwrap_or(&path);
    let (module, name) = match plain.rsplit_once('.') {
        Some((module, name)) if !module.is_empty() && !name.is_empty() => {
            (module.to_owned(), Some(name.to_owned()))
        }
        _ => (plain.to_owned(), None),
    };
    out.push(Import {
        module,
        name,
        alias,
        level: 0,
        line,
    });
}

/// Test attributes of xUnit, NUnit and MSTest on a method or class.
fn is_test_def(node: Node<'_>, src: &[u8]) -> bool {
    const TEST_ATTRIBUTES: [&str; 10] = [
        "Fact",
        "Theory",
        "Test",
        "TestCase",
        "TestCaseSource",
        "TestMethod",
        "DataTestMethod",
        "TestFixture",
        "TestClass",
        "SetUp",
    ];
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .filter(|c| c.kind() == "attribute_list")
        .any(|list| {
            let mut cursor = list.walk();
            list.named_children(&mut cursor)
                .filter(|a| a.kind() == "attribute")
                .filter_map(|a| a.child_by_field_name("name"))
                .any(|n| {
                    let name = text(n, src);
                    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
                    let last = last.strip_suffix("Attribute").unwrap_or(last);
                    TEST_ATTRIBUTES.contains(&last)
                })
        })
}

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    #[test]
    fn csharp_defs_calls_imports() {
        let src = br#"// Greeter.
using System;
using static System.Math;
using Fmt = Acme.Util.Formatter;
namespace Acme.Core;

public class Greeter : GreeterBase, IGreeter, System.IDisposable
{
    public Greeter(string p) { }
    public string Name { get; set; }
    [Fact]
    public string Greet(string n) { this.Log(n); var g = new Greeter("x"); Console.WriteLine(n); return Fmt.Upper(n); }
}
public struct Money : IEquatable<Money> { }
public interface IGreeter : IBase { string Greet(string name); }
public record Person(string Name) : Base(Name), IThing { }
"#;
        let x = extract(Language::CSharp, src).unwrap();
        let defs: Vec<_> = x.def_rows();
        assert_eq!(
            defs,
            [
                ("Acme.Core", "module", false),
                ("Acme.Core.Greeter", "class", false),
                ("Acme.Core.Greeter.Greeter", "method", false),
                ("Acme.Core.Greeter.Greet", "method", true),
                ("Acme.Core.Money", "struct", false),
                ("Acme.Core.IGreeter", "interface", false),
                ("Acme.Core.IGreeter.Greet", "method", false),
                ("Acme.Core.Person", "class", false),
            ]
        );
        let bases = |i: usize| -> Vec<String> {
            x.defs[i]
                .bases
                .iter()
                .map(|b| format!("{} {}", b.kind.as_str(), b.name))
                .collect()
        };
        assert_eq!(
            bases(1),
            [
                "extends GreeterBase",
                "implements IGreeter",
                "implements IDisposable"
            ]
        );
        assert_eq!(bases(4), ["implements IEquatable"]);
        assert_eq!(bases(5), ["extends IBase"]);
        assert_eq!(bases(7), ["extends Base", "implements IThing"]);
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref()))
            .collect();
        assert_eq!(
            calls,
            [
                ("Log", Some("this")),
                ("Greeter", None),
                ("WriteLine", Some("Console")),
                ("Upper", Some("Fmt")),
            ]
        );
        let imports: Vec<_> = x.import_rows();
        assert_eq!(
            imports,
            [
                ("System", None, "*"),
                ("System.Math", None, "*"),
                ("Acme.Util", Some("Formatter"), "Fmt"),
            ]
        );
        assert_eq!(x.parse_errors, 0);
    }
}
