//! Bash: definitions, calls and imports (queries beside this file).

use super::{Family, LanguageSpec, ModuleStyle, Tier};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Symbol,
    definitions: ("bash/definitions.scm", include_str!("definitions.scm")),
    calls: ("bash/calls.scm", include_str!("calls.scm")),
    imports: ("bash/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::RelativePath,
    ..LanguageSpec::new(
        "bash",
        &["sh", "bash", "zsh"],
        || tree_sitter::Language::new(tree_sitter_bash::LANGUAGE),
        Family::Shell,
    )
};
