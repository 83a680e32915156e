//! Json: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle, Tier};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Structure,
    definitions: ("json/definitions.scm", include_str!("definitions.scm")),
    calls: ("json/calls.scm", include_str!("calls.scm")),
    imports: ("json/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::None,
    ..LanguageSpec::new(
        "json",
        &["json"],
        || tree_sitter::Language::new(tree_sitter_json::LANGUAGE),
        Family::Data,
    )
};
