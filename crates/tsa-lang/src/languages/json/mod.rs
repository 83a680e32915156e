//! JSON (structure tier): an outline of object keys, nested keys qualified with `.`.

use super::{Family, LanguageSpec, ModuleStyle, Tier};
use crate::conventions::{Convention, Conventions};

pub(crate) static SPEC: LanguageSpec = LanguageSpec {
    tier: Tier::Structure,
    definitions: ("json/definitions.scm", include_str!("definitions.scm")),
    calls: ("json/calls.scm", include_str!("calls.scm")),
    imports: ("json/imports.scm", include_str!("imports.scm")),
    qual_sep: ".",
    self_receivers: &[],
    module_style: ModuleStyle::None,
    conventions: Conventions {
        ripgrep_type: Convention::Is("json"),
        ..Conventions::DATA
    },
    ..LanguageSpec::new(
        "json",
        &["json"],
        || tree_sitter::Language::new(tree_sitter_json::LANGUAGE),
        Family::Data,
    )
};

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    fn outline(src: &str) -> Vec<(u32, String, String)> {
        let x = extract(Language::Json, src.as_bytes()).unwrap();
        assert_eq!(x.parse_errors, 0);
        assert!(x.calls.is_empty() && x.imports.is_empty());
        x.defs
            .iter()
            .map(|d| (d.line, d.kind.as_str().to_owned(), d.qualname.clone()))
            .collect()
    }

    fn expect(rows: &[(u32, &str)]) -> Vec<(u32, String, String)> {
        rows.iter()
            .map(|(l, q)| (*l, "variable".to_owned(), (*q).to_owned()))
            .collect()
    }

    /// The known answers of `tests/fixtures/json` (listed in its README: JSON has no
    /// comments to hold directives).
    #[test]
    fn json_fixture_outline() {
        let package = include_str!("../../../../../tests/fixtures/json/package.json");
        assert_eq!(
            outline(package),
            expect(&[
                (2, "name"),
                (3, "version"),
                (4, "private"),
                (5, "scripts"),
                (6, "scripts.build"),
                (7, "scripts.test"),
                (9, "dependencies"),
                (10, "dependencies.vue"),
                (12, "workspaces"),
            ])
        );
        let servers = include_str!("../../../../../tests/fixtures/json/config/servers.json");
        assert_eq!(
            outline(servers),
            expect(&[
                (2, "servers"),
                (4, "servers.host"),
                (5, "servers.port"),
                (6, "servers.tags"),
                (6, "servers.tags.region"),
                (9, "retry"),
                (9, "retry.attempts"),
                (9, "retry.backoff.ms"),
                (10, "empty"),
            ])
        );
        let x = extract(Language::Json, servers.as_bytes()).unwrap();
        assert_eq!(x.defs[7].name, "backoff.ms");
    }
}
