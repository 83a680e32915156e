//! CSS (structure tier): an outline of rule sets, @media / @supports / @layer blocks and
//! @keyframes.

use super::{Family, LanguageSpec, ModuleStyle, Tier};
use crate::conventions::{Convention, Conventions};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Structure,
    definitions: ("css/definitions.scm", include_str!("definitions.scm")),
    calls: ("css/calls.scm", include_str!("calls.scm")),
    imports: ("css/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::None,
    conventions: Conventions {
        ripgrep_type: Convention::Is("css"),
        // Not excluded from dead code's indexed variables (unlike JSON, YAML, Markdown, SQL).
        module_variables: Convention::Is(crate::conventions::ModuleVariables::Indexed),
        ..Conventions::DATA
    },
    ..LanguageSpec::new(
        "css",
        &["css"],
        || tree_sitter::Language::new(tree_sitter_css::LANGUAGE),
        Family::Data,
    )
};

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    #[test]
    fn css_outline_names_selectors_and_conditions() {
        let src = br#"@import url("base.css");
.nav a, .nav button:hover { color: red; }
@media screen and (max-width: 600px) {
  .nav { display: none; }
}
@layer base { body { margin: 0; } }
@keyframes spin { from { opacity: 0; } to { opacity: 1; } }
.card {
  &:hover { color: blue; }
}
"#;
        let x = extract(Language::Css, src).unwrap();
        let defs: Vec<_> = x
            .defs
            .iter()
            .map(|d| (d.qualname.as_str(), d.kind.as_str(), d.line))
            .collect();
        assert_eq!(
            defs,
            [
                (".nav a, .nav button:hover", "section", 2),
                ("screen and (max-width: 600px)", "module", 3),
                ("screen and (max-width: 600px)..nav", "section", 4),
                ("base", "module", 6),
                ("base.body", "section", 6),
                ("spin", "section", 7),
                (".card", "section", 8),
                (".card.&:hover", "section", 9),
            ]
        );
        assert!(x.calls.is_empty() && x.imports.is_empty());
    }

    #[test]
    fn css_selector_list_over_several_lines_is_one_section() {
        let x = extract(Language::Css, b".nav a,\n.nav button {\n  color: red;\n}\n").unwrap();
        assert_eq!(x.defs.len(), 1);
        let name = x.defs[0]
            .name
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(name, ".nav a, .nav button");
        assert_eq!((x.defs[0].line, x.defs[0].end_line), (1, 4));
    }
}
