//! Css: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle, Tier};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Structure,
    definitions: ("css/definitions.scm", include_str!("definitions.scm")),
    calls: ("css/calls.scm", include_str!("calls.scm")),
    imports: ("css/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::None,
    ..LanguageSpec::new(
        "css",
        &["css"],
        || tree_sitter::Language::new(tree_sitter_css::LANGUAGE),
        Family::Data,
    )
};
