//! Go: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("go/definitions.scm", include_str!("definitions.scm")),
    calls: ("go/calls.scm", include_str!("calls.scm")),
    imports: ("go/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::GoPackage,
    ..LanguageSpec::new(
        "go",
        &["go"],
        || tree_sitter::Language::new(tree_sitter_go::LANGUAGE),
        Family::Go,
    )
};
