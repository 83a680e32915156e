//! Csharp: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("csharp/definitions.scm", include_str!("definitions.scm")),
    calls: ("csharp/calls.scm", include_str!("calls.scm")),
    imports: ("csharp/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &["this"],
    module_style: ModuleStyle::Qualified,
    ..LanguageSpec::new(
        "csharp",
        &["cs"],
        || tree_sitter::Language::new(tree_sitter_c_sharp::LANGUAGE),
        Family::CSharp,
    )
};
