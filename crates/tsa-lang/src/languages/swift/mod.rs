//! Swift: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    definitions: ("swift/definitions.scm", include_str!("definitions.scm")),
    calls: ("swift/calls.scm", include_str!("calls.scm")),
    imports: ("swift/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &["self"],
    module_style: ModuleStyle::None,
    ..LanguageSpec::new(
        "swift",
        &["swift", "swiftinterface"],
        || tree_sitter::Language::new(tree_sitter_swift::LANGUAGE),
        Family::Swift,
    )
};
