//! The Hyphae selector DSL (`search select`, `search subscribe`, the
//! `tsa://hyphae/{selector}` resource): parser, evaluator and result rows.

pub mod eval;
pub mod parse;

use std::hash::{Hash, Hasher};

use serde_json::{Value, json};
use tsa_index::Index;

use crate::ToolError;
pub use eval::{Evaluator, Universe};
pub use parse::{SelectorList, SyntaxError, parse};

/// One matched definition.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Match {
    pub file: String,
    pub line: u32,
    pub name: String,
    pub end_line: u32,
    pub language: String,
    pub class: Option<String>,
    pub kind: String,
}

impl Match {
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "file": self.file,
            "line": self.line,
            "end_line": self.end_line,
            "language": self.language,
            "class": self.class,
            "kind": self.kind,
        })
    }
}

/// A row's identity: (path, line, name, kind).
type RowKey<'a> = (&'a str, u32, &'a str, &'a str);

/// The evaluated selector: rows deduplicated by (name, file, line), in file and
/// line order, plus what the evaluator noticed. Rows are materialised lazily, so a
/// 70k-symbol answer costs one sort, not 70k row objects.
pub struct Outcome {
    universe: Universe,
    /// Indices into `universe.syms`, sorted and deduplicated.
    order: Vec<usize>,
    /// Rows that matched an edge pseudo-class only by an unresolved name.
    pub name_fallback: usize,
    pub unknown_kinds: Vec<String>,
    pub known_kinds: Vec<String>,
    /// TQL: symbols left out of a call walk that have unresolved call sites naming
    /// its start (they may belong).
    pub unresolved: usize,
    /// What a pseudo-class could not see (said as warnings).
    pub warnings: Vec<String>,
}

impl Outcome {
    /// Exact number of rows.
    pub fn total(&self) -> usize {
        self.order.len()
    }

    fn key(&self, i: usize) -> (&str, u32, &str) {
        let s = &self.universe.syms[i];
        let path = self.universe.file_of(s).map_or("", |f| f.path.as_str());
        (path, s.line, s.name.as_str())
    }

    /// The rows, in order.
    pub fn rows(&self) -> impl Iterator<Item = Match> + '_ {
        self.order.iter().map(|&i| {
            let s = &self.universe.syms[i];
            let f = self.universe.file_of(s);
            Match {
                file: f.map(|f| f.path.clone()).unwrap_or_default(),
                line: s.line,
                name: s.name.clone(),
                end_line: s.end_line,
                language: f.map(|f| f.language.clone()).unwrap_or_default(),
                class: s.owner.clone(),
                kind: s.kind.clone(),
            }
        })
    }

    /// A stable digest of the result: the sorted (name, file, line) rows.
    pub fn fingerprint(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.order.len().hash(&mut h);
        for &i in &self.order {
            self.key(i).hash(&mut h);
        }
        h.finish()
    }
}

/// The TQL reference `search tql_schema` serves (markdown; its examples parse and run).
pub const TQL_SCHEMA: &str = include_str!("tql.md");

/// The example selectors of [`TQL_SCHEMA`].
pub fn tql_examples() -> Vec<&'static str> {
    TQL_SCHEMA
        .split("## Examples")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("- `")?.strip_suffix('`'))
        .collect()
}

/// Parses `selector`, mapping a syntax error to a validation error with the spec's text.
pub fn validate(selector: &str) -> Result<SelectorList, ToolError> {
    parse(selector).map_err(|e| ToolError::Validation(e.to_string()))
}

/// Parses and evaluates `selector` over `index` (`search select`: an unquantified
/// call pseudo-class also matches unresolved sites by name, and says so).
pub fn select(index: &Index, selector: &str) -> Result<Outcome, ToolError> {
    evaluate(index, selector, false)
}

/// [`select`] as TQL (`search tql_execute`): every call pseudo-class walks resolved
/// call edges only.
pub fn select_tql(index: &Index, selector: &str) -> Result<Outcome, ToolError> {
    evaluate(index, selector, true)
}

fn evaluate(index: &Index, selector: &str, tql: bool) -> Result<Outcome, ToolError> {
    let ast = validate(selector)?;
    let universe = Universe::load(index)?;
    let (ids, notes) = {
        let mut ev = Evaluator::new(index, &universe);
        ev.tql = tql;
        let ids = ev.list(&ast)?;
        (ids, std::mem::take(&mut ev.notes))
    };
    let (order, name_fallback) = {
        // Keys computed once, then one sort.
        // A file's `module` row and a definition of the same name on its line 1
        // (`class Foo` in Foo.java) are two rows: the kind is in the key.
        let mut keyed: Vec<(RowKey<'_>, usize)> = ids
            .iter()
            .filter_map(|id| universe.index_of(*id))
            .map(|i| {
                let s = &universe.syms[i];
                let path = universe.file_of(s).map_or("", |f| f.path.as_str());
                ((path, s.line, s.name.as_str(), s.kind.as_str()), i)
            })
            .collect();
        keyed.sort_unstable();
        keyed.dedup_by(|a, b| a.0 == b.0);
        let fallback = keyed
            .iter()
            .filter(|(_, i)| notes.name_fallback.contains(&universe.syms[*i].id))
            .count();
        (keyed.into_iter().map(|(_, i)| i).collect(), fallback)
    };
    Ok(Outcome {
        known_kinds: universe.known_kinds(),
        universe,
        order,
        name_fallback,
        unresolved: notes.unresolved.len(),
        unknown_kinds: notes.unknown_kinds,
        warnings: notes.warnings,
    })
}

/// The resource URI of a selector: `tsa://hyphae/<percent-encoded selector>`.
pub fn resource_uri(selector: &str) -> String {
    let mut out = String::from(RESOURCE_PREFIX);
    for b in selector.trim().bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The URI prefix of selector resources.
pub const RESOURCE_PREFIX: &str = "tsa://hyphae/";

/// The selector of a `tsa://hyphae/...` URI, if it is one and decodes to UTF-8.
pub fn selector_of_uri(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix(RESOURCE_PREFIX)?;
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = rest.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip() {
        let sel = ".function:calls(#run) > [file=a b/é.py]";
        let uri = resource_uri(sel);
        assert!(uri.starts_with("tsa://hyphae/.function%3Acalls%28%23run%29"));
        assert!(!uri[RESOURCE_PREFIX.len()..].contains(' '));
        assert_eq!(selector_of_uri(&uri).as_deref(), Some(sel));
        assert_eq!(selector_of_uri("tsa://other/x"), None);
        assert_eq!(selector_of_uri("tsa://hyphae/%zz"), None);
        assert_eq!(selector_of_uri("tsa://hyphae/%4"), None);
    }
}

#[cfg(test)]
mod eval_tests {
    use std::path::Path;

    use super::*;

    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let t = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &t);
            } else {
                std::fs::copy(e.path(), t).unwrap();
            }
        }
    }

    fn fixture() -> (tempfile::TempDir, Index) {
        let dir = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/hyphae");
        copy(&src, dir.path());
        tsa_index::build(dir.path(), &tsa_index::BuildOptions::default()).unwrap();
        let index = Index::open(dir.path()).unwrap().unwrap();
        (dir, index)
    }

    fn names(index: &Index, sel: &str) -> Vec<String> {
        select(index, sel)
            .unwrap()
            .rows()
            .map(|m| match &m.class {
                Some(c) => format!("{c}.{}", m.name),
                None => m.name.clone(),
            })
            .collect()
    }

    #[test]
    fn every_form_over_a_small_index() {
        let (_d, ix) = fixture();
        let n = |s: &str| names(&ix, s);
        assert_eq!(n("#log"), ["log"]);
        assert_eq!(n("#price"), ["Product.price", "DigitalProduct.price"]);
        assert_eq!(n(".interface"), ["Fetcher"]);
        assert_eq!(
            n(".class[file=models]"),
            ["Product", "DigitalProduct", "Order"]
        );
        assert_eq!(n(".fn[language=ts]").len(), 4);
        assert_eq!(
            n(".func[class=Model]"),
            ["Model.__init__", "Model.validate"]
        );
        assert_eq!(n("[kind=interface]"), ["Fetcher"]);
        assert_eq!(n("*").len(), 27);
        assert_eq!(
            n(".method:calls(#log)"),
            [
                "Model.validate",
                "DigitalProduct.price",
                "MemoryRepository.get"
            ]
        );
        // Resolved edge: seed() calls checkout() in the same file.
        assert_eq!(n(".function:calls(#checkout)"), ["seed", "test_checkout"]);
        // A builtin is matched by name exactly (no project definition exists).
        assert_eq!(n(":calls(#print)"), ["log"]);
        // `f = new HttpFetcher(); f.fetch(url)` binds to HttpFetcher.fetch only.
        assert_eq!(n(".function:called-by(#load)"), ["HttpFetcher.fetch"]);
        assert_eq!(n(".class:called-by(#load)"), ["HttpFetcher"]);
        assert_eq!(n(".function:callees(#fetch)"), ["request"]);
        assert_eq!(n(".class:extends(#Model)"), ["Product", "Order"]);
        assert_eq!(
            n(".class:subclasses(#Model)"),
            ["Product", "DigitalProduct", "Order"]
        );
        assert_eq!(n(".class:implements(#Fetcher)"), ["HttpFetcher"]);
        assert_eq!(n(".class:extends(#ABC)"), ["Repository"]);
        assert_eq!(
            n(".class:subclasses(#ABC)"),
            ["Repository", "MemoryRepository"]
        );
        assert_eq!(
            n(".function:imports(json)"),
            [
                "Product.price",
                "Product.to_json",
                "DigitalProduct.price",
                "Order.total"
            ]
        );
        assert_eq!(n(".class:has(#price)"), ["Product", "DigitalProduct"]);
        assert_eq!(
            n(".method:not([file=shop])"),
            ["Fetcher.fetch", "HttpFetcher.fetch"]
        );
        assert_eq!(
            n(".function:in(web/)"),
            ["Fetcher.fetch", "HttpFetcher.fetch", "request", "load"]
        );
        assert_eq!(
            n(".method[class=MemoryRepository]:first-child"),
            ["MemoryRepository.__init__"]
        );
        assert_eq!(
            n(".method[class=MemoryRepository]:last-child"),
            ["MemoryRepository.put"]
        );
        assert_eq!(
            n(".method[class=MemoryRepository]:nth-child(2)"),
            ["MemoryRepository.get"]
        );
        assert_eq!(
            n(".method[file=models]:only-child"),
            ["DigitalProduct.price", "Order.total"]
        );
        assert_eq!(n("#MemoryRepository > .method").len(), 3);
        assert_eq!(n("[file=store] .method").len(), 3);
        assert_eq!(
            n("#get ~ .method"),
            [
                "Repository.put",
                "MemoryRepository.__init__",
                "MemoryRepository.put"
            ]
        );
        assert_eq!(n("#log, #load"), ["log", "load"]);
        assert!(n("#nope").is_empty());
        let o = select(&ix, ".method:callees(#checkout)").unwrap();
        assert!(
            o.name_fallback > 0,
            "repo.get() is unresolved: name-only matches are counted"
        );
        let o = select(&ix, ".widget").unwrap();
        assert_eq!(o.unknown_kinds, ["widget"]);
        assert!(
            matches!(select(&ix, ":zz"), Err(ToolError::Validation(m)) if m.starts_with("Hyphae syntax error"))
        );
    }

    #[test]
    fn fingerprints_follow_the_rows() {
        let (_d, ix) = fixture();
        let a = select(&ix, ".method").unwrap();
        let b = select(&ix, ".method").unwrap();
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.total(), a.rows().count());
        let c = select(&ix, ".method:not(#price)").unwrap();
        assert_ne!(a.fingerprint(), c.fingerprint());
    }
}
