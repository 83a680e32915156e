//! Java: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("java/definitions.scm", include_str!("definitions.scm")),
    calls: ("java/calls.scm", include_str!("calls.scm")),
    imports: ("java/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &["this"],
    module_style: ModuleStyle::Qualified,
    ..LanguageSpec::new(
        "java",
        &["java"],
        || tree_sitter::Language::new(tree_sitter_java::LANGUAGE),
        Family::Jvm,
    )
};
