//! SQL (structure tier): an outline of the tables (with their columns), views, types,
//! functions, indexes, triggers, schemas and sequences a script creates.

use super::{Family, LanguageSpec, ModuleStyle, Tier};
use crate::conventions::{Convention, Conventions};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Structure,
    definitions: ("sql/definitions.scm", include_str!("definitions.scm")),
    calls: ("sql/calls.scm", include_str!("calls.scm")),
    imports: ("sql/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::None,
    conventions: Conventions {
        ripgrep_type: Convention::Is("sql"),
        ..Conventions::DATA
    },
    ..LanguageSpec::new(
        "sql",
        &["sql"],
        || tree_sitter::Language::new(tree_sitter_sequel::LANGUAGE),
        Family::Data,
    )
};
