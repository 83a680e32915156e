//! Shell (bash, sh, zsh): functions, top-level variables and `source` / `.` imports.
//! A symbol-tier language: definitions and imports, no call edges.

use tree_sitter::Node;

use super::{Family, LanguageSpec, ModuleStyle, Tier, text};
use crate::conventions::{Convention, Conventions, LineSyntax, TestEntry, TestFiles, TestNames};
use crate::model::Import;

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Symbol,
    definitions: ("bash/definitions.scm", include_str!("definitions.scm")),
    calls: ("bash/calls.scm", include_str!("calls.scm")),
    imports: ("bash/imports.scm", include_str!("imports.scm")),
    imports_of,
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::RelativePath,
    conventions: Conventions {
        complexity: Convention::Is(include_str!("complexity.yml")),
        entry_points: Convention::NotApplicable,
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
            comments: &["#"],
            imports: &["source ", ". "],
            quotes: &['"', '\''],
        }),
        default_visibility: Convention::NotApplicable,
        return_type: Convention::NotApplicable,
        ripgrep_type: Convention::Is("sh"),
        doc_path_extensions: Convention::NotApplicable,
        public_api: Convention::Is(crate::conventions::PublicApi::Undetected),
        routes: Convention::Is(crate::conventions::Routes::None),
        branches: Convention::NotApplicable,
    },
    ..LanguageSpec::new(
        "bash",
        &["sh", "bash", "zsh"],
        || tree_sitter::Language::new(tree_sitter_bash::LANGUAGE),
        Family::Shell,
    )
};

/// `source lib/x.sh` / `. ./x.sh` bind everything in the file (alias `*`); the module
/// is the path as written. A path that starts with an expansion naming the script's
/// directory (`"$DIR/x.sh"`, `"$(dirname "$0")/x.sh"`) becomes `./x.sh`; any other
/// expansion names no file we can know, and is skipped.
fn imports_of(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    if node.kind() != "command" {
        return;
    }
    let Some(arg) = node.child_by_field_name("argument") else {
        return;
    };
    let Some(module) = literal_path(arg, src) else {
        return;
    };
    out.push(Import {
        module,
        name: None,
        alias: "*".into(),
        level: 0,
        line: node.start_position().row as u32 + 1,
    });
}

fn is_expansion(kind: &str) -> bool {
    matches!(
        kind,
        "simple_expansion" | "expansion" | "command_substitution"
    )
}

fn literal_path(arg: Node<'_>, src: &[u8]) -> Option<String> {
    let path = match arg.kind() {
        "word" => text(arg, src).to_owned(),
        "raw_string" => text(arg, src).trim_matches('\'').to_owned(),
        "string" | "concatenation" => {
            // Literal pieces, allowing one leading expansion (the script's directory).
            let mut cursor = arg.walk();
            let parts: Vec<Node<'_>> = arg.named_children(&mut cursor).collect();
            let (lead, rest) = match parts.split_first() {
                Some((first, rest)) if is_expansion(first.kind()) => (true, rest),
                _ => (false, parts.as_slice()),
            };
            let mut s = String::new();
            for p in rest {
                match p.kind() {
                    "word" | "string_content" => s.push_str(text(*p, src)),
                    "raw_string" => s.push_str(text(*p, src).trim_matches('\'')),
                    "string" => s.push_str(&literal_path(*p, src)?),
                    _ => return None,
                }
            }
            if lead {
                let tail = s.strip_prefix('/')?;
                format!("./{tail}")
            } else {
                s
            }
        }
        _ => return None,
    };
    let path = path.trim();
    (!path.is_empty()).then(|| path.to_owned())
}

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    #[test]
    fn bash_defs_and_imports() {
        let src = br#"#!/usr/bin/env bash
source ./lib/common.sh
. "$DIR/util.sh"
source "$(dirname "$0")/log.sh"
source lib/$name.sh
export PATH=/bin
VERSION=1.2
greet() { echo hi; }
function deploy {
  local y=1
  Z=2
}
"#;
        let x = extract(Language::Bash, src).unwrap();
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str(), d.line))
            .collect();
        assert_eq!(
            defs,
            [
                ("PATH", "variable", 6),
                ("VERSION", "variable", 7),
                ("greet", "function", 8),
                ("deploy", "function", 9),
            ]
        );
        assert!(x.calls.is_empty());
        let imports: Vec<_> = x
            .imports
            .iter()
            .map(|i| (i.module.as_str(), i.alias.as_str()))
            .collect();
        assert_eq!(
            imports,
            [
                ("./lib/common.sh", "*"),
                ("./util.sh", "*"),
                ("./log.sh", "*")
            ]
        );
    }
}
