//! Javascript: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: (
        "javascript/definitions.scm",
        include_str!("definitions.scm"),
    ),
    calls: ("javascript/calls.scm", include_str!("calls.scm")),
    imports: ("javascript/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &["this"],
    module_style: ModuleStyle::RelativePath,
    ..LanguageSpec::new(
        "javascript",
        &["js", "jsx", "mjs", "cjs"],
        || tree_sitter::Language::new(tree_sitter_javascript::LANGUAGE),
        Family::Js,
    )
};
