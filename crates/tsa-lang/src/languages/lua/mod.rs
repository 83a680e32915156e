//! Lua: global and local functions, functions and methods on tables (`function M.f()`,
//! `function M:f()`), top-level tables as modules, and `require` imports.
//! A symbol-tier language: definitions and imports, no call edges.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, Tier, text};
use crate::conventions::{
    Convention, Conventions, LineSyntax, TestEntry, TestExt, TestFiles, TestNames, TestPaths,
};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Symbol,
    definitions: ("lua/definitions.scm", include_str!("definitions.scm")),
    calls: ("lua/calls.scm", include_str!("calls.scm")),
    imports: ("lua/imports.scm", include_str!("imports.scm")),
    imports_of,
    owner_of,
    qual_sep: ".",
    self_receivers: &["self"],
    builtins: include_str!("builtins.txt"),
    stdlib: include_str!("stdlib.txt"),
    // `require "a.b"` names `a/b.lua`.
    module_style: ModuleStyle::Qualified,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::NotApplicable,
        class_methods_are_api: Convention::NotApplicable,
        signature_annotations: Convention::Is(false),
        export: Convention::NotApplicable,
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        test_names: Convention::Is(TestNames::GENERIC),
        // busted's `it("...", function() end)` tests are calls, not definitions.
        test_entry: Convention::Is(TestEntry::Any),
        test_files: Convention::Is(TestFiles {
            names: &["{stem}_spec", "test_{stem}", "{stem}_test"],
            ext: TestExt::Is("lua"),
            same_dir: false,
            under: None,
            stem_in: None,
            inline_marker: None,
        }),
        test_paths: Convention::Is(TestPaths {
            suffixes: &["_spec.lua", "_test.lua"],
            prefixed: &[],
        }),
        test_runner: Convention::NotApplicable,
        line_syntax: Convention::Is(LineSyntax {
            comments: &["--"],
            imports: &["require"],
            quotes: &['"', '\''],
        }),
        default_visibility: Convention::NotApplicable,
        return_type: Convention::NotApplicable,
        ripgrep_type: Convention::Is("lua"),
        doc_path_extensions: Convention::Is(&["lua"]),
        public_api: Convention::Is(crate::conventions::PublicApi::Undetected),
        routes: Convention::Is(crate::conventions::Routes::None),
        branches: Convention::NotApplicable,
    },
    ..LanguageSpec::new(
        "lua",
        &["lua"],
        || tree_sitter::Language::new(tree_sitter_lua::LANGUAGE),
        Family::Lua,
    )
};

/// `function M.f()` and `function M:f()` belong to the table `M` (`self` is the
/// receiver of the `:` form).
fn owner_of(node: Node<'_>, src: &[u8]) -> Option<(String, Option<String>)> {
    if node.kind() != "function_declaration" {
        return None;
    }
    let name = node.child_by_field_name("name")?;
    let receiver = match name.kind() {
        "dot_index_expression" => None,
        "method_index_expression" => Some("self".to_owned()),
        _ => return None,
    };
    let table = name.child_by_field_name("table")?;
    Some((text(table, src).to_owned(), receiver))
}

/// `local json = require("json")` binds `json`; a bare `require "a.b"` binds the last
/// segment of the module name.
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let Some(module) = node
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
        .filter(|s| s.kind() == "string")
        .map(|s| literal(s, src))
        .filter(|m| !m.is_empty())
    else {
        return;
    };
    let alias = assigned_name(node, src)
        .unwrap_or_else(|| module.rsplit('.').next().unwrap_or(&module).to_owned());
    out.push(Import {
        module,
        name: None,
        alias,
        level: 0,
        line: node.start_position().row as u32 + 1,
    });
}

/// The text of a string literal without its quotes.
fn literal(string: Node<'_>, src: &[u8]) -> String {
    let mut cursor = string.walk();
    let content = string
        .named_children(&mut cursor)
        .find(|c| c.kind() == "string_content");
    match content {
        Some(c) => text(c, src).to_owned(),
        None => String::new(),
    }
}

/// The variable a `require` call is assigned to (`local x = require(...)`).
fn assigned_name(call: Node<'_>, src: &[u8]) -> Option<String> {
    let list = call.parent().filter(|p| p.kind() == "expression_list")?;
    let assignment = list
        .parent()
        .filter(|p| p.kind() == "assignment_statement")?;
    let names = assignment
        .named_children(&mut assignment.walk())
        .find(|c| c.kind() == "variable_list")?;
    let first = names.child_by_field_name("name")?;
    (first.kind() == "identifier").then(|| text(first, src).to_owned())
}

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    #[test]
    fn lua_defs_and_imports() {
        let src = br#"local json = require("json")
require "app.util"
local M = {}
local VERSION = "1.0"
function M.new(name) return setmetatable({ name = name }, M) end
function M:greet() return "hi " .. self.name end
local function helper() end
function main() end
"#;
        let x = extract(Language::Lua, src).unwrap();
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str(), d.line))
            .collect();
        assert_eq!(
            defs,
            [
                ("M", "module", 3),
                ("M.new", "method", 5),
                ("M.greet", "method", 6),
                ("helper", "function", 7),
                ("main", "function", 8),
            ]
        );
        assert!(x.calls.is_empty());
        let imports: Vec<_> = x
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.alias.as_str(), i.line))
            .collect();
        assert_eq!(imports, [("json", "json", 1), ("app.util", "util", 2)]);
    }
}
