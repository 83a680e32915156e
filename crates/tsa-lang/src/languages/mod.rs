//! The language registry: one line per language, one folder per language.

#[cfg(feature = "python")]
mod python;
#[cfg(feature = "rust")]
mod rust;

use tree_sitter::Node;

use crate::model::Import;

/// A language tsa indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    #[cfg(feature = "python")]
    Python,
    #[cfg(feature = "rust")]
    Rust,
}

/// What a language folder provides.
pub(crate) struct LanguageSpec {
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub grammar: fn() -> tree_sitter::Language,
    /// (file name, text) of the definitions, calls and imports queries.
    pub definitions: (&'static str, &'static str),
    pub calls: (&'static str, &'static str),
    pub imports: (&'static str, &'static str),
    /// Separator of qualified names (`.` or `::`).
    pub qual_sep: &'static str,
    /// Turns one captured import node into the names it binds.
    pub imports_of: fn(Node<'_>, &[u8], &mut Vec<Import>),
    /// Language rules that make a definition test-only (attributes, test modules).
    pub is_test_def: fn(Node<'_>, &[u8]) -> bool,
    /// Cleans a captured type name (`Foo<T>` -> `Foo`).
    pub clean_type_name: fn(&str) -> String,
}

impl Language {
    /// Every language of this build, in registry order.
    pub const ALL: &'static [Language] = &[
        #[cfg(feature = "python")]
        Language::Python,
        #[cfg(feature = "rust")]
        Language::Rust,
    ];

    pub(crate) fn spec(self) -> &'static LanguageSpec {
        match self {
            #[cfg(feature = "python")]
            Language::Python => &python::SPEC,
            #[cfg(feature = "rust")]
            Language::Rust => &rust::SPEC,
        }
    }

    /// The lower-case language token (`python`, `rust`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn from_name(name: &str) -> Option<Language> {
        let lower = name.to_ascii_lowercase();
        Language::ALL.iter().copied().find(|l| l.name() == lower)
    }

    /// The language of a path by its extension; `None` for anything unknown.
    pub fn from_path(path: &str) -> Option<Language> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        Language::ALL.iter().copied().find(|l| {
            l.spec()
                .extensions
                .iter()
                .any(|x| x.eq_ignore_ascii_case(ext))
        })
    }

    pub fn extensions(self) -> &'static [&'static str] {
        self.spec().extensions
    }

    /// The separator of qualified names in this language.
    pub fn qual_sep(self) -> &'static str {
        self.spec().qual_sep
    }
}

/// Leading-whitespace-insensitive text of a node.
pub(crate) fn text<'a>(node: Node<'_>, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or("")
}
