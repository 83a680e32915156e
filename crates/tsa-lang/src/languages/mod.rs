//! The language registry: one folder per language, one line per language here.

#[cfg(feature = "bash")]
mod bash;
#[cfg(feature = "c")]
mod c;
#[cfg(feature = "cpp")]
mod cpp;
#[cfg(feature = "csharp")]
mod csharp;
#[cfg(feature = "css")]
mod css;
#[cfg(feature = "go")]
mod go;
#[cfg(feature = "html")]
mod html;
#[cfg(feature = "java")]
mod java;
#[cfg(feature = "javascript")]
mod javascript;
#[cfg(feature = "json")]
mod json;
#[cfg(feature = "kotlin")]
mod kotlin;
#[cfg(feature = "lua")]
mod lua;
#[cfg(feature = "markdown")]
mod markdown;
#[cfg(feature = "php")]
mod php;
#[cfg(feature = "python")]
mod python;
#[cfg(feature = "ruby")]
mod ruby;
#[cfg(feature = "rust")]
mod rust;
#[cfg(feature = "scala")]
mod scala;
#[cfg(feature = "sql")]
mod sql;
#[cfg(feature = "swift")]
mod swift;
#[cfg(feature = "typescript")]
mod typescript;
#[cfg(feature = "yaml")]
mod yaml;

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use tree_sitter::Node;

use crate::conventions::Conventions;
use crate::model::Import;

/// How much of a language tsa indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Definitions, calls with receivers, imports, inheritance: the call graph.
    Full,
    /// Definitions and imports, no call edges.
    Symbol,
    /// Single-file outline only (used by `structure`); never put in the index.
    Structure,
}

/// Languages whose code may call each other's definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Python,
    Rust,
    /// JavaScript, TypeScript and TSX.
    Js,
    Go,
    /// Java, Kotlin and Scala share the JVM.
    Jvm,
    /// C and C++ (C++ may call C, not the other way round).
    C,
    CSharp,
    Swift,
    Ruby,
    Php,
    Shell,
    Lua,
    /// Structure-tier languages: nothing calls into them.
    Data,
}

/// How an import names the module it brings in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleStyle {
    /// Python: dotted module paths (own resolver).
    Python,
    /// Rust: `crate::a::b` paths (own resolver).
    Rust,
    /// A file path relative to the importing file (`./x`, `"x.h"`, `require_relative`).
    RelativePath,
    /// Dotted or `\\`/`::`-separated names matched against path suffixes (Java, Kotlin,
    /// Scala, C#, PHP namespaces).
    Qualified,
    /// Go: an import path whose last segments name a package directory.
    GoPackage,
    /// Imports bind no names (Swift modules, shell).
    None,
}

/// Finds (owner type, receiver variable) of a method declared outside its type.
pub(crate) type OwnerOf = fn(Node<'_>, &[u8]) -> Option<(String, Option<String>)>;

/// What a language folder provides.
pub(crate) struct LanguageSpec {
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub grammar: fn() -> tree_sitter::Language,
    pub tier: Tier,
    pub family: Family,
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
    /// Receivers that mean "the enclosing type" (`self`, `this`, `$this`).
    pub self_receivers: &'static [&'static str],
    /// Builtin callables (`len`, `println`, `puts`), one per line.
    pub builtins: &'static str,
    /// Module prefixes of the standard library (`java.`, `System`, `fmt`), one per line.
    pub stdlib: &'static str,
    pub module_style: ModuleStyle,
    /// The owner type (and receiver variable) of a method declared outside its type,
    /// e.g. Go's `func (s *Store) Get()` -> (`Store`, `s`).
    pub owner_of: OwnerOf,
    /// A bare `f()` inside a method may mean `this.f()` (Java, C#, C++, Kotlin, Swift,
    /// Ruby); false where it never does (JavaScript, TypeScript, PHP).
    pub implicit_self: bool,
    /// Methods of one type may share a name, told apart by their parameters
    /// (Java, Kotlin, Scala, C#, C++, Swift): such a set is one callee name.
    pub overloads: bool,
    /// A call's argument count picks among overloads: parameters have no default
    /// values (Java; varargs take any count from their position on).
    pub fixed_arity: bool,
    /// What the analyses need to know about the language (`conventions.rs`).
    pub conventions: Conventions,
    /// Attribute-like macros blanked before parsing (one per line, `#` comments),
    /// so the definitions they decorate parse (`noise.rs`).
    pub noise_macros: &'static str,
}

impl LanguageSpec {
    /// A spec with every optional part at its default: full tier, no queries, no
    /// resolver data. Language folders override what they have.
    pub(crate) const fn new(
        name: &'static str,
        extensions: &'static [&'static str],
        grammar: fn() -> tree_sitter::Language,
        family: Family,
    ) -> LanguageSpec {
        LanguageSpec {
            name,
            extensions,
            grammar,
            tier: Tier::Full,
            family,
            definitions: ("", ""),
            calls: ("", ""),
            imports: ("", ""),
            qual_sep: ".",
            imports_of: |_, _, _| {},
            is_test_def: |_, _| false,
            clean_type_name: default_clean_type_name,
            self_receivers: &[],
            builtins: "",
            stdlib: "",
            module_style: ModuleStyle::None,
            implicit_self: true,
            overloads: false,
            fixed_arity: false,
            owner_of: |_, _| None,
            conventions: Conventions::UNSTATED,
            noise_macros: "",
        }
    }
}

/// `&'a mut foo::Bar<T>[]` -> `Bar`: drops generics, references, paths and array marks.
pub(crate) fn default_clean_type_name(s: &str) -> String {
    let s = s.split(['<', '(', '[']).next().unwrap_or(s);
    let s = s.rsplit("::").next().unwrap_or(s);
    let s = s.rsplit(['.', '\\']).next().unwrap_or(s);
    s.trim_start_matches(['&', '*', '?'])
        .trim_start_matches("mut ")
        .trim_start_matches("dyn ")
        .trim()
        .to_owned()
}

macro_rules! languages {
    ($($feature:literal => $variant:ident => $module:ident :: $spec:ident),* $(,)?) => {
        /// A language tsa knows.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Language {
            $(#[cfg(feature = $feature)] $variant,)*
        }

        impl Language {
            /// Every language of this build, in registry order.
            pub const ALL: &'static [Language] = &[$(#[cfg(feature = $feature)] Language::$variant,)*];

            pub(crate) fn spec(self) -> &'static LanguageSpec {
                match self {
                    $(#[cfg(feature = $feature)] Language::$variant => &$module::$spec,)*
                }
            }
        }
    };
}

// The registry: feature => variant => spec. One line per language.
languages! {
    "python" => Python => python::SPEC,
    "rust" => Rust => rust::SPEC,
    "javascript" => JavaScript => javascript::SPEC,
    "typescript" => TypeScript => typescript::SPEC,
    "typescript" => Tsx => typescript::TSX,
    "go" => Go => go::SPEC,
    "java" => Java => java::SPEC,
    "c" => C => c::SPEC,
    "cpp" => Cpp => cpp::SPEC,
    "csharp" => CSharp => csharp::SPEC,
    "swift" => Swift => swift::SPEC,
    "kotlin" => Kotlin => kotlin::SPEC,
    "ruby" => Ruby => ruby::SPEC,
    "php" => Php => php::SPEC,
    "bash" => Bash => bash::SPEC,
    "scala" => Scala => scala::SPEC,
    "html" => Html => html::SPEC,
    "css" => Css => css::SPEC,
    "markdown" => Markdown => markdown::SPEC,
    "sql" => Sql => sql::SPEC,
    "yaml" => Yaml => yaml::SPEC,
    "json" => Json => json::SPEC,
    "lua" => Lua => lua::SPEC,
}

impl Language {
    /// The lower-case language token (`python`, `rust`, `tsx`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn from_name(name: &str) -> Option<Language> {
        let lower = name.to_ascii_lowercase();
        Language::ALL.iter().copied().find(|l| l.name() == lower)
    }

    /// The language of a path by its extension; `None` for anything unknown.
    pub fn from_path(path: &str) -> Option<Language> {
        let base = path.rsplit('/').next().unwrap_or(path);
        let ext = base.rsplit_once('.').map(|(_, e)| e)?;
        Language::ALL.iter().copied().find(|l| {
            l.spec()
                .extensions
                .iter()
                .any(|x| x.eq_ignore_ascii_case(ext))
        })
    }

    /// The tree-sitter grammar, for callers that run their own queries.
    pub fn grammar(self) -> tree_sitter::Language {
        (self.spec().grammar)()
    }

    /// The id of the grammar's field `name`, `None` when it has no such field.
    /// Looked up in a table made once per process: tree-sitter's own lookup by
    /// name compares `name` with every field name of the grammar on each call
    /// (Django's cold build: 180 k calls, 100 M instructions).
    pub fn field_id(self, name: &str) -> Option<std::num::NonZeroU16> {
        type Fields = rustc_hash::FxHashMap<Box<str>, std::num::NonZeroU16>;
        static FIELDS: OnceLock<Vec<Fields>> = OnceLock::new();
        let all = FIELDS.get_or_init(|| {
            Language::ALL
                .iter()
                .map(|l| {
                    let g = l.grammar();
                    (1..=g.field_count())
                        .filter_map(|id| {
                            let id = u16::try_from(id).ok()?;
                            Some((g.field_name_for_id(id)?.into(), id.try_into().ok()?))
                        })
                        .collect()
                })
                .collect()
        });
        // `ALL` lists the variants in declaration order: a variant's index is its
        // discriminant.
        all.get(self as usize)?.get(name).copied()
    }

    /// The child of `node` (a node of this language's trees) in field `name`, as
    /// `Node::child_by_field_name` finds it, the field's id from [`Self::field_id`].
    pub fn field<'t>(self, node: Node<'t>, name: &str) -> Option<Node<'t>> {
        node.child_by_field_id(self.field_id(name)?.get())
    }

    /// The text of the language's definitions, calls and imports queries (empty
    /// when the language has none), for callers that run them on their own.
    pub fn query_sources(self) -> [&'static str; 3] {
        let s = self.spec();
        [s.definitions.1, s.calls.1, s.imports.1]
    }

    pub fn extensions(self) -> &'static [&'static str] {
        self.spec().extensions
    }

    pub fn tier(self) -> Tier {
        self.spec().tier
    }

    pub fn family(self) -> Family {
        self.spec().family
    }

    /// Whether code in `self` may call a definition in `target` (spec §5.3): same
    /// family, except that C may not call C++.
    pub fn can_call(self, target: Language) -> bool {
        if self.family() != target.family() {
            return false;
        }
        #[cfg(all(feature = "c", feature = "cpp"))]
        if self == Language::C && target == Language::Cpp {
            return false;
        }
        true
    }

    /// The separator of qualified names in this language.
    pub fn qual_sep(self) -> &'static str {
        self.spec().qual_sep
    }

    /// Receivers that name the enclosing type (`self`, `this`).
    pub fn self_receivers(self) -> &'static [&'static str] {
        self.spec().self_receivers
    }

    /// Whether `name` is a builtin callable of the language.
    pub fn is_builtin(self, name: &str) -> bool {
        self.data().0.contains(name)
    }

    /// The builtin set and stdlib prefixes of the spec, parsed once per language
    /// (they are consulted for every call site the resolver classifies).
    fn data(self) -> &'static (HashSet<&'static str>, Vec<&'static str>) {
        type Data = (HashSet<&'static str>, Vec<&'static str>);
        static DATA: OnceLock<HashMap<Language, Data>> = OnceLock::new();
        let all = DATA.get_or_init(|| {
            Language::ALL
                .iter()
                .map(|l| {
                    let spec = l.spec();
                    let clean = |text: &'static str| {
                        text.lines()
                            .map(str::trim)
                            .filter(|x| !x.is_empty() && !x.starts_with('#'))
                    };
                    (
                        *l,
                        (clean(spec.builtins).collect(), clean(spec.stdlib).collect()),
                    )
                })
                .collect()
        });
        &all[&self]
    }

    /// Whether `module` (an import path or qualifier) belongs to the standard library.
    pub fn is_stdlib_module(self, module: &str) -> bool {
        self.data().1.iter().any(|p| {
            module == *p
                || (p.ends_with(['.', '/', '\\', ':']) && module.starts_with(p))
                || module
                    .strip_prefix(p)
                    .is_some_and(|r| r.starts_with(['.', '/', '\\', ':']))
        })
    }

    /// Whether a bare call inside a method may name a method of the same type.
    pub fn implicit_self(self) -> bool {
        self.spec().implicit_self
    }

    /// Whether one type may define several methods of one name (overloads).
    pub fn overloads(self) -> bool {
        self.spec().overloads
    }

    /// Whether a call's argument count picks among overloads (see `param_range`).
    pub fn fixed_arity(self) -> bool {
        self.spec().fixed_arity
    }

    pub fn module_style(self) -> ModuleStyle {
        self.spec().module_style
    }

    /// The language's conventions (complexity rules, entry points, tests, syntax).
    pub fn conventions(self) -> &'static Conventions {
        &self.spec().conventions
    }
}

/// Text of a node (empty when not UTF-8).
pub(crate) fn text<'a>(node: Node<'_>, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::Language;

    #[test]
    fn field_ids_are_the_grammars() {
        for (i, &lang) in Language::ALL.iter().enumerate() {
            assert_eq!(lang as usize, i, "{lang:?}: its index in ALL");
            let g = lang.grammar();
            let mut seen = 0;
            for id in 1..=g.field_count() as u16 {
                let name = g.field_name_for_id(id).expect("a field name");
                assert_eq!(
                    lang.field_id(name).map(|f| f.get()),
                    g.field_id_for_name(name).map(|f| f.get()),
                    "{lang:?}: field {name}"
                );
                seen += 1;
            }
            assert_eq!(seen, g.field_count());
            assert_eq!(lang.field_id("no such field"), None, "{lang:?}");
        }
        // The child found through the id is tree-sitter's (a Python def's name).
        let lang = Language::Python;
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).expect("the grammar");
        let tree = parser.parse("def f(x):\n    pass\n", None).expect("a tree");
        let def = tree.root_node().child(0).expect("the def");
        let by_name = def.child_by_field_name("name").expect("a name");
        assert_eq!(lang.field(def, "name"), Some(by_name));
        assert_eq!(lang.field(def, "nothing"), None);
    }
}
