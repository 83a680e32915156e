//! Markdown: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle, Tier};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Structure,
    definitions: ("markdown/definitions.scm", include_str!("definitions.scm")),
    calls: ("markdown/calls.scm", include_str!("calls.scm")),
    imports: ("markdown/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::None,
    ..LanguageSpec::new(
        "markdown",
        &["md", "markdown"],
        || tree_sitter::Language::new(tree_sitter_md::LANGUAGE),
        Family::Data,
    )
};
