//! `search semantic`: symbols matching a description, offline (`tsa-lexical-v1`):
//! no network, no model. Each symbol is a small document (name and class tokens x3,
//! signature x1.5, path x0.5); words are split on case and digits, stemmed (Snowball
//! English), and expanded through a code abbreviation table. A symbol's
//! `similarity` is the idf-weighted share of the query's terms it covers (1.0 in
//! its name, class or signature, 0.7 only in its path, x0.8 when matched only
//! through an abbreviation); BM25 over the weighted document breaks ties.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use rust_stemmers::{Algorithm, Stemmer};
use serde::Serialize;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;

/// The retrieval model's version: changes with the tokeniser, weights or table.
pub const MODEL: &str = "tsa-lexical-v1";

const STOP: [&str; 40] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "in", "into", "is",
    "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "which", "with", "do",
    "does", "how", "what", "where", "when", "who", "all", "any", "some", "code", "function",
    "method", "class",
];

/// Code abbreviations and what they stand for (both sides are searched).
const ABBREVIATIONS: [(&str, &str); 40] = [
    ("cfg", "config"),
    ("conf", "config"),
    ("db", "database"),
    ("auth", "authenticate"),
    ("authn", "authenticate"),
    ("authz", "authorize"),
    ("init", "initialize"),
    ("msg", "message"),
    ("req", "request"),
    ("resp", "response"),
    ("res", "response"),
    ("err", "error"),
    ("conn", "connection"),
    ("repo", "repository"),
    ("tmpl", "template"),
    ("env", "environment"),
    ("param", "parameter"),
    ("arg", "argument"),
    ("args", "argument"),
    ("util", "utility"),
    ("utils", "utility"),
    ("mgr", "manager"),
    ("impl", "implement"),
    ("ctx", "context"),
    ("str", "string"),
    ("num", "number"),
    ("idx", "index"),
    ("fn", "function"),
    ("func", "function"),
    ("val", "value"),
    ("var", "variable"),
    ("tmp", "temporary"),
    ("dir", "directory"),
    ("doc", "document"),
    ("sess", "session"),
    ("pwd", "password"),
    ("usr", "user"),
    ("srv", "server"),
    ("cli", "client"),
    ("async", "asynchronous"),
];

fn stemmer() -> &'static Stemmer {
    static S: std::sync::OnceLock<Stemmer> = std::sync::OnceLock::new();
    S.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Words of `text`: split on non-alphanumerics, snake_case, camelCase and digits,
/// lowercased, stop words and 1-character words dropped.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for chunk in text.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = chunk.chars().collect();
        let mut start = 0;
        for i in 1..=chars.len() {
            let boundary = i == chars.len()
                || (chars[i].is_uppercase() && chars[i - 1].is_lowercase())
                || (chars[i].is_uppercase()
                    && chars[i - 1].is_uppercase()
                    && chars.get(i + 1).is_some_and(|n| n.is_lowercase()))
                || (chars[i].is_ascii_digit() != chars[i - 1].is_ascii_digit());
            if boundary {
                let w: String = chars[start..i].iter().collect::<String>().to_lowercase();
                start = i;
                if w.chars().count() > 1
                    && !STOP.contains(&w.as_str())
                    && !w.chars().all(|c| c.is_ascii_digit())
                {
                    out.push(w);
                }
            }
        }
    }
    out
}

/// A word's terms: its stem, and the stem of its expansion (marked).
fn terms(word: &str) -> Vec<(String, bool)> {
    let mut out = vec![(stemmer().stem(word).into_owned(), false)];
    if let Some((_, long)) = ABBREVIATIONS.iter().find(|(a, _)| *a == word) {
        out.push((stemmer().stem(long).into_owned(), true));
    }
    out
}

/// What a symbol's document holds for one term.
#[derive(Clone, Copy, Debug, Default)]
struct Posting {
    /// In name, class or signature (else only in the path).
    strong: bool,
    /// Seen as written (else only through an abbreviation).
    direct: bool,
    weight: f64,
}

struct Doc {
    row: SymbolRow,
    terms: HashMap<String, Posting>,
    len: f64,
}

/// The term index of one index generation.
pub struct Terms {
    docs: Vec<Doc>,
    df: HashMap<String, usize>,
    avg_len: f64,
}

fn add(doc: &mut HashMap<String, Posting>, text: &str, weight: f64, strong: bool) -> f64 {
    let mut len = 0.0;
    for w in words(text) {
        for (t, expanded) in terms(&w) {
            let p = doc.entry(t).or_default();
            p.strong |= strong;
            p.direct |= !expanded;
            p.weight += weight;
            len += weight;
        }
    }
    len
}

/// The signature without the name: parameters and return type.
fn signature_words(row: &SymbolRow) -> &str {
    row.signature
        .find(['(', '<', ':'])
        .map_or("", |i| &row.signature[i..])
}

impl Terms {
    fn build(rows: Vec<SymbolRow>, doc_text: &rustc_hash::FxHashMap<i64, String>) -> Terms {
        let mut docs = Vec::with_capacity(rows.len());
        let mut df: HashMap<String, usize> = HashMap::new();
        for row in rows {
            if matches!(
                row.kind.as_str(),
                "variable" | "field" | "section" | "module"
            ) {
                continue;
            }
            let mut t = HashMap::new();
            let mut len = add(&mut t, &row.name, 3.0, true);
            if let Some(o) = &row.owner {
                len += add(&mut t, o, 3.0, true);
            }
            len += add(&mut t, signature_words(&row), 1.5, true);
            if let Some(doc) = doc_text.get(&row.id) {
                len += add(&mut t, doc, 1.0, false);
            }
            let path = row
                .file
                .rsplit_once('.')
                .map_or(row.file.as_str(), |(p, _)| p);
            len += add(&mut t, path, 0.5, false);
            for k in t.keys() {
                *df.entry(k.clone()).or_insert(0) += 1;
            }
            docs.push(Doc { row, terms: t, len });
        }
        let avg_len = docs.iter().map(|d| d.len).sum::<f64>() / docs.len().max(1) as f64;
        Terms { docs, df, avg_len }
    }

    fn idf(&self, t: &str) -> f64 {
        let n = self.docs.len() as f64;
        ((n + 1.0) / (self.df.get(t).copied().unwrap_or(0) as f64 + 1.0)).ln() + 1.0
    }

    /// Symbols indexed.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

/// The term index of `index`, built once per index generation in this process.
pub fn terms_of(index: &Index) -> Result<Arc<Terms>, ToolError> {
    type Cached = Option<(std::path::PathBuf, String, Arc<Terms>)>;
    static CACHE: Mutex<Cached> = Mutex::new(None);
    let generation = index.generation()?;
    {
        let c = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((root, g, t)) = c.as_ref()
            && root == index.root()
            && *g == generation
        {
            return Ok(t.clone());
        }
    }
    let rows: Vec<SymbolRow> = index
        .symbols_under("", None)?
        .into_iter()
        .map(|n| n.symbol)
        .collect();
    let t = Arc::new(Terms::build(rows, &index.symbol_docs()?));
    *CACHE.lock().unwrap_or_else(|e| e.into_inner()) =
        Some((index.root().to_path_buf(), generation, t.clone()));
    Ok(t)
}

/// One found symbol.
#[derive(Clone, Debug, Serialize)]
pub struct Neighbor {
    pub symbol_id: i64,
    pub name: String,
    pub file: String,
    pub line: u32,
    pub language: String,
    pub kind: String,
    pub class_name: Option<String>,
    pub similarity: f64,
    pub matched_terms: Vec<String>,
    /// The symbol's last line (git heat reads its lines).
    #[serde(skip)]
    pub end_line: u32,
    #[serde(skip)]
    pub bm25: f64,
    /// Test code ranks after production code of the same similarity.
    #[serde(skip)]
    pub is_test: bool,
}

/// Filters of a search.
pub struct Filter<'a> {
    pub language: Option<&'a str>,
    pub kind: Option<&'a str>,
}

fn kind_matches(kind: &str, want: &str) -> bool {
    match want {
        "class" => matches!(
            kind,
            "class" | "struct" | "interface" | "trait" | "enum" | "type"
        ),
        "function" => matches!(kind, "function" | "method"),
        w => kind == w,
    }
}

/// Every symbol at or above `min` similarity to `query`, best first.
pub fn search(t: &Terms, query: &str, min: f64, f: &Filter<'_>) -> (Vec<Neighbor>, usize) {
    // Each distinct query word: its alternatives (stem, and the expansion's).
    let mut seen = HashSet::new();
    let q: Vec<Vec<(String, bool)>> = words(query)
        .into_iter()
        .filter(|w| seen.insert(w.clone()))
        .map(|w| terms(&w))
        .collect();
    if q.is_empty() {
        return (Vec::new(), 0);
    }
    let weights: Vec<f64> = q.iter().map(|alts| t.idf(&alts[0].0)).collect();
    let total: f64 = weights.iter().sum();
    let (k1, b) = (1.2, 0.75);
    let mut out = Vec::new();
    for d in &t.docs {
        if f.language.is_some_and(|l| d.row.language != l)
            || f.kind.is_some_and(|k| !kind_matches(&d.row.kind, k))
        {
            continue;
        }
        let mut covered = 0.0;
        let mut bm25 = 0.0;
        let mut matched = Vec::new();
        for (alts, w) in q.iter().zip(&weights) {
            let mut best = 0.0f64;
            let mut hit: Option<&str> = None;
            for (term, expanded) in alts {
                let Some(p) = d.terms.get(term) else { continue };
                let mut m = if p.strong { 1.0 } else { 0.7 };
                if *expanded || !p.direct {
                    m *= 0.8;
                }
                if m > best {
                    best = m;
                    hit = Some(term);
                }
                let tf = p.weight;
                bm25 +=
                    t.idf(term) * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * d.len / t.avg_len));
            }
            covered += w * best;
            if let Some(h) = hit
                && matched.len() < 8
            {
                matched.push(h.to_owned());
            }
        }
        let sim = covered / total;
        if sim >= min && sim > 0.0 {
            out.push(Neighbor {
                symbol_id: d.row.id,
                name: d.row.name.clone(),
                file: d.row.file.clone(),
                line: d.row.line,
                end_line: d.row.end_line,
                language: d.row.language.clone(),
                kind: d.row.kind.clone(),
                class_name: d.row.owner.clone(),
                similarity: (sim * 10_000.0).round() / 10_000.0,
                matched_terms: matched,
                bm25,
                is_test: d.row.is_test,
            });
        }
    }
    out.sort_by(|a, b| {
        b.similarity
            .total_cmp(&a.similarity)
            .then(a.is_test.cmp(&b.is_test))
            .then(b.bm25.total_cmp(&a.bm25))
            .then_with(|| (&a.file, a.line).cmp(&(&b.file, b.line)))
    });
    let n = out.len();
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, name: &str, owner: Option<&str>, sig: &str, file: &str) -> SymbolRow {
        let kind = if owner.is_some() {
            "method"
        } else if sig.starts_with("class") {
            "class"
        } else {
            "function"
        };
        SymbolRow {
            id,
            name: name.into(),
            kind: kind.into(),
            qualname: name.into(),
            owner: owner.map(Into::into),
            file: file.into(),
            language: "python".into(),
            line: 1,
            end_line: 2,
            signature: sig.into(),
            is_test: false,
        }
    }

    #[test]
    fn words_split_on_case_digits_and_stop_words() {
        assert_eq!(
            words("parseHTTPResponse2_fast"),
            vec!["parse", "http", "response", "fast"]
        );
        assert_eq!(words("the DB conn"), vec!["db", "conn"]);
    }

    #[test]
    fn coverage_ranks_the_symbol_that_says_what_the_query_says() {
        let t = Terms::build(
            vec![
                row(
                    1,
                    "ConnectionPool",
                    None,
                    "class ConnectionPool",
                    "db/pool.py",
                ),
                row(
                    2,
                    "get_conn",
                    Some("DbPool"),
                    "def get_conn(self, timeout: int)",
                    "db/pool.py",
                ),
                row(
                    3,
                    "render_template",
                    None,
                    "def render_template(name)",
                    "web/views.py",
                ),
                row(4, "rotate", None, "def rotate(path)", "ops/logs.py"),
            ],
            &rustc_hash::FxHashMap::from_iter([(
                4,
                "Rotate the log files daily and compress old ones.".to_owned(),
            )]),
        );
        let (n, total) = search(
            &t,
            "database connection pooling",
            0.3,
            &Filter {
                language: None,
                kind: None,
            },
        );
        assert_eq!(total, 2, "render_template says nothing of it: {n:?}");
        let names: HashSet<&str> = n.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, HashSet::from(["ConnectionPool", "get_conn"]));
        // `conn` and `Db` are matched through the abbreviation table.
        let get = n.iter().find(|x| x.name == "get_conn").unwrap();
        assert!(get.matched_terms.contains(&"connect".to_owned()), "{n:?}");
        assert!(get.similarity < 1.0 && get.similarity > 0.8, "{n:?}");
        let (n, _) = search(
            &t,
            "template rendering",
            0.5,
            &Filter {
                language: None,
                kind: Some("class"),
            },
        );
        assert!(n.is_empty(), "a method is no class");
        // Found through its docstring only: a doc match counts 0.7.
        let (n, _) = search(
            &t,
            "compress logs",
            0.5,
            &Filter {
                language: None,
                kind: None,
            },
        );
        assert_eq!(n.first().map(|x| x.name.as_str()), Some("rotate"), "{n:?}");
        assert!(n[0].similarity < 1.0, "{n:?}");
    }
}
