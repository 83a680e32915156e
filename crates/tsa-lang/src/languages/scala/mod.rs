//! Scala: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle, Tier};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Symbol,
    definitions: ("scala/definitions.scm", include_str!("definitions.scm")),
    calls: ("scala/calls.scm", include_str!("calls.scm")),
    imports: ("scala/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &["this"],
    module_style: ModuleStyle::Qualified,
    ..LanguageSpec::new(
        "scala",
        &["scala"],
        || tree_sitter::Language::new(tree_sitter_scala::LANGUAGE),
        Family::Jvm,
    )
};
