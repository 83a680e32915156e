//! Cpp: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("cpp/definitions.scm", include_str!("definitions.scm")),
    calls: ("cpp/calls.scm", include_str!("calls.scm")),
    imports: ("cpp/imports.scm", include_str!("imports.scm")),
    qual_sep: "::",
    self_receivers: &["this"],
    module_style: ModuleStyle::RelativePath,
    ..LanguageSpec::new(
        "cpp",
        &["cpp", "cc", "cxx", "hpp", "hxx", "hh"],
        || tree_sitter::Language::new(tree_sitter_cpp::LANGUAGE),
        Family::C,
    )
};
