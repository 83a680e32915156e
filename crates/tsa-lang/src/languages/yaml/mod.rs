//! YAML (structure tier): an outline of mapping keys, nested keys qualified with `.`.

use super::{Family, LanguageSpec, ModuleStyle, Tier};
use crate::conventions::{Convention, Conventions};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Structure,
    definitions: ("yaml/definitions.scm", include_str!("definitions.scm")),
    calls: ("yaml/calls.scm", include_str!("calls.scm")),
    imports: ("yaml/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::None,
    conventions: Conventions {
        ripgrep_type: Convention::Is("yaml"),
        ..Conventions::DATA
    },
    ..LanguageSpec::new(
        "yaml",
        &["yml", "yaml"],
        || tree_sitter::Language::new(tree_sitter_yaml::LANGUAGE),
        Family::Data,
    )
};
