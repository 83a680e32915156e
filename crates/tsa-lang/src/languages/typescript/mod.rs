//! Typescript: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

const BASE: LanguageSpec = LanguageSpec {
    definitions: (
        "typescript/definitions.scm",
        include_str!("definitions.scm"),
    ),
    calls: ("typescript/calls.scm", include_str!("calls.scm")),
    imports: ("typescript/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &["this"],
    module_style: ModuleStyle::RelativePath,
    ..LanguageSpec::new(
        "typescript",
        &["ts", "mts", "cts"],
        || tree_sitter::Language::new(tree_sitter_typescript::LANGUAGE_TYPESCRIPT),
        Family::Js,
    )
};

pub(crate) static SPEC: LanguageSpec = BASE;

/// TSX: the TypeScript queries over the TSX grammar.
pub(crate) static TSX: LanguageSpec = LanguageSpec {
    name: "tsx",
    extensions: &["tsx"],
    grammar: || tree_sitter::Language::new(tree_sitter_typescript::LANGUAGE_TSX),
    ..BASE
};
