//! Ruby: classes, modules, methods, calls and `require` / `require_relative` imports.
//!
//! `Foo.new(...)` is recorded as a call named `Foo` (no receiver), so it binds to the
//! class definition like a Python constructor call; every other constant receiver
//! (`Foo.bar`, `App::Foo.bar`) is a path naming the last segment.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, text};
use crate::conventions::{
    Convention, Conventions, DefaultVisibility, LineSyntax, TestEntry, TestExt, TestFiles,
    TestNames, TestPaths,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("ruby/definitions.scm", include_str!("definitions.scm")),
    calls: ("ruby/calls.scm", include_str!("calls.scm")),
    imports: ("ruby/imports.scm", include_str!("imports.scm")),
    imports_of,
    qual_sep: "::",
    self_receivers: &["self"],
    builtins: include_str!("builtins.txt"),
    stdlib: include_str!("stdlib.txt"),
    module_style: ModuleStyle::RelativePath,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::NotApplicable,
        class_methods_are_api: Convention::Is(true),
        signature_annotations: Convention::Is(false),
        export: Convention::NotApplicable,
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        test_names: Convention::Is(TestNames::GENERIC),
        test_entry: Convention::Is(TestEntry::Names {
            prefixes: &["test"],
            boundary: false,
            spaced: true,
        }),
        test_files: Convention::Is(TestFiles {
            names: &["{stem}_spec", "test_{stem}", "{stem}_test"],
            ext: TestExt::Any,
            same_dir: false,
            under: None,
            stem_in: None,
            inline_marker: None,
        }),
        test_paths: Convention::Is(TestPaths {
            suffixes: &["_spec.rb"],
            prefixed: &[],
        }),
        test_runner: Convention::NotApplicable,
        line_syntax: Convention::Is(LineSyntax {
            comments: &["#"],
            imports: &["require ", "require_relative ", "load "],
            quotes: &['"', '\''],
        }),
        default_visibility: Convention::Is(DefaultVisibility::LeadingMark),
        return_type: Convention::NotApplicable,
        ripgrep_type: Convention::Is("ruby"),
        doc_path_extensions: Convention::Is(&["rb"]),
        public_api: Convention::Is(crate::conventions::PublicApi::Undetected),
        routes: Convention::Is(crate::conventions::Routes::None),
        branches: Convention::Is(include_str!("branches.txt")),
    },
    ..LanguageSpec::new(
        "ruby",
        &["rb"],
        || tree_sitter::Language::new(tree_sitter_ruby::LANGUAGE),
        Family::Ruby,
    )
};

/// `require 'json'` binds module `json`; `require_relative 'lib/x'` binds `./lib/x`
/// (relative to the requiring file). Both bring in everything: alias `*`.
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    if node.kind() != "call" {
        return;
    }
    let Some(method) = node.child_by_field_name("method") else {
        return;
    };
    let relative = match text(method, src) {
        "require" => false,
        "require_relative" => true,
        _ => return,
    };
    let Some(arg) = node
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
        .filter(|a| a.kind() == "string")
    else {
        return;
    };
    // Only plain literals: an interpolated path names no file we can know.
    let mut cursor = arg.walk();
    let mut parts = arg.named_children(&mut cursor);
    let module = match (parts.next(), parts.next()) {
        (Some(c), None) if c.kind() == "string_content" => text(c, src).trim().to_owned(),
        _ => return,
    };
    if module.is_empty() {
        return;
    }
    let module = if relative && !module.starts_with("./") && !module.starts_with("../") {
        format!("./{module}")
    } else {
        module
    };
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
    fn ruby_defs_calls_imports() {
        let src = br#"
require 'json'
require_relative 'lib/store'
require "app/#{name}"

module App
  class Repo < Base::Store
    include Comparable
    def self.open(path) = new(path)
    def save(x)
      validate(x)
      self.flush
      JSON.generate(x)
      App::Util.log(x)
      Item.new(x).save
      x&.id
      count
    end
  end
end
"#;
        let x = extract(Language::Ruby, src).unwrap();
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str()))
            .collect();
        assert_eq!(
            defs,
            [
                ("App", "module"),
                ("App::Repo", "class"),
                ("App::Repo::open", "method"),
                ("App::Repo::save", "method"),
            ]
        );
        let bases: Vec<_> = x.defs[1]
            .bases
            .iter()
            .map(|b| (b.kind.as_str(), b.name.as_str()))
            .collect();
        assert_eq!(bases, [("extends", "Store"), ("implements", "Comparable")]);
        let calls: Vec<_> = x
            .calls
            .iter()
            .map(|c| (&*c.callee, c.receiver.as_deref(), c.path))
            .collect();
        assert_eq!(
            calls,
            [
                ("require", None, false),
                ("require_relative", None, false),
                ("require", None, false),
                ("include", None, false),
                ("new", None, false),
                ("validate", None, false),
                ("flush", Some("self"), false),
                ("generate", Some("JSON"), true),
                ("log", Some("Util"), true),
                ("Item", None, false),
                ("save", Some("Item.new(x)"), false),
                ("id", Some("x"), false),
            ]
        );
        let imports: Vec<_> = x
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.alias.as_str()))
            .collect();
        assert_eq!(imports, [("json", "*"), ("./lib/store", "*")]);
    }
}
