//! Php: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("php/definitions.scm", include_str!("definitions.scm")),
    calls: ("php/calls.scm", include_str!("calls.scm")),
    imports: ("php/imports.scm", include_str!("imports.scm")),
    qual_sep: "::",
    self_receivers: &["$this", "self", "static"],
    module_style: ModuleStyle::Qualified,
    ..LanguageSpec::new(
        "php",
        &["php"],
        || tree_sitter::Language::new(tree_sitter_php::LANGUAGE_PHP),
        Family::Php,
    )
};
