//! Ruby: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("ruby/definitions.scm", include_str!("definitions.scm")),
    calls: ("ruby/calls.scm", include_str!("calls.scm")),
    imports: ("ruby/imports.scm", include_str!("imports.scm")),
    qual_sep: "::",
    self_receivers: &["self"],
    module_style: ModuleStyle::RelativePath,
    ..LanguageSpec::new(
        "ruby",
        &["rb"],
        || tree_sitter::Language::new(tree_sitter_ruby::LANGUAGE),
        Family::Ruby,
    )
};
