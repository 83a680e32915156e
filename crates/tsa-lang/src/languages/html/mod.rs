//! HTML (structure tier): an outline of the elements with an `id` and the h1-h3 headings.

use super::{Family, LanguageSpec, ModuleStyle, Tier};
use crate::conventions::{Convention, Conventions};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Structure,
    definitions: ("html/definitions.scm", include_str!("definitions.scm")),
    calls: ("html/calls.scm", include_str!("calls.scm")),
    imports: ("html/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::None,
    conventions: Conventions {
        ripgrep_type: Convention::Is("html"),
        // Not excluded from dead code's indexed variables (unlike JSON, YAML, Markdown, SQL).
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        ..Conventions::DATA
    },
    ..LanguageSpec::new(
        "html",
        &["html", "htm"],
        || tree_sitter::Language::new(tree_sitter_html::LANGUAGE),
        Family::Data,
    )
};
