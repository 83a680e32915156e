//! Markdown (structure tier): an outline of ATX and setext headings; ATX sections nest.

use super::{Family, LanguageSpec, ModuleStyle, Tier};
use crate::conventions::{Convention, Conventions};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Structure,
    definitions: ("markdown/definitions.scm", include_str!("definitions.scm")),
    calls: ("markdown/calls.scm", include_str!("calls.scm")),
    imports: ("markdown/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::None,
    conventions: Conventions {
        ripgrep_type: Convention::Is("md"),
        ..Conventions::DATA
    },
    ..LanguageSpec::new(
        "markdown",
        &["md", "markdown"],
        || tree_sitter::Language::new(tree_sitter_md::LANGUAGE),
        Family::Data,
    )
};

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    fn outline(src: &str) -> Vec<(u32, String, String)> {
        let x = extract(Language::Markdown, src.as_bytes()).unwrap();
        assert_eq!(x.parse_errors, 0);
        assert!(x.calls.is_empty() && x.imports.is_empty());
        x.defs
            .iter()
            .map(|d| (d.line, d.kind.as_str().to_owned(), d.qualname.clone()))
            .collect()
    }

    fn expect(rows: &[(u32, &str)]) -> Vec<(u32, String, String)> {
        rows.iter()
            .map(|(l, q)| (*l, "section".to_owned(), (*q).to_owned()))
            .collect()
    }

    /// The known answers of `tests/fixtures/markdown` (listed in its README).
    #[test]
    fn markdown_fixture_outline() {
        let guide = include_str!("../../../../../tests/fixtures/markdown/guide.md");
        assert_eq!(
            outline(guide),
            expect(&[
                (1, "Shop guide"),
                (5, "Shop guide.Install"),
                (12, "Shop guide.Install.From source"),
                (16, "Shop guide.Usage"),
                (20, "Shop guide.Usage.Configuration"),
                (25, "Appendix"),
                (27, "Appendix.FAQ"),
            ])
        );
        let setup = include_str!("../../../../../tests/fixtures/markdown/docs/setup.md");
        assert_eq!(
            outline(setup),
            expect(&[(1, "Setup"), (6, "Requirements"), (11, "Steps")])
        );
    }
}
