//! C: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("c/definitions.scm", include_str!("definitions.scm")),
    calls: ("c/calls.scm", include_str!("calls.scm")),
    imports: ("c/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::RelativePath,
    ..LanguageSpec::new(
        "c",
        &["c", "h"],
        || tree_sitter::Language::new(tree_sitter_c::LANGUAGE),
        Family::C,
    )
};
