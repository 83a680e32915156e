//! Kotlin: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("kotlin/definitions.scm", include_str!("definitions.scm")),
    calls: ("kotlin/calls.scm", include_str!("calls.scm")),
    imports: ("kotlin/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &["this"],
    module_style: ModuleStyle::Qualified,
    ..LanguageSpec::new(
        "kotlin",
        &["kt", "kts"],
        || tree_sitter::Language::new(tree_sitter_kotlin_ng::LANGUAGE),
        Family::Jvm,
    )
};
