//! The chain DSL (`search chain`): a pipeline of seed, graph, filter and facet
//! steps over a working set of symbol ids.

pub mod complexity;
pub mod parse;
pub mod report;

use rustc_hash::{FxHashMap, FxHashSet};
use tsa_index::{DslSymbol, Index, identifier_words};
use tsa_lang::is_test_path;

use crate::ToolError;
use crate::hyphae::Universe;
pub use parse::{ChainError, Step, Value};

/// The tool-level parameters of a chain run.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub max_symbols: usize,
    pub max_files: usize,
    pub include_code: bool,
    pub compact: bool,
}

/// Facets attached to the final symbols.
#[derive(Clone, Debug, Default)]
pub struct Facets {
    pub source: bool,
    pub callers: bool,
    pub callees: bool,
    pub complexity: bool,
    pub health: bool,
    pub risk: bool,
    pub affected_tests: bool,
    /// Most callers/callees/tests listed per symbol.
    pub limit: usize,
}

#[derive(Clone, Debug)]
pub struct Uml {
    pub direction: String,
    pub max_edges: usize,
}

/// The result of a chain: the ordered working set and what to attach.
pub struct Run {
    pub ids: Vec<i64>,
    /// Which step brought each symbol in.
    pub via: FxHashMap<i64, String>,
    pub facets: Facets,
    pub uml: Option<Uml>,
    pub params: Params,
    pub semantic_used: bool,
    /// Seed steps that matched nothing, and similar remarks.
    pub notes: Vec<String>,
    /// Sort key computed by `sort(...)`, if any (for the payload).
    pub sorted_by: Option<String>,
}

fn err_at(step: &Step, key: &str, detail: String) -> ToolError {
    ToolError::Validation(
        ChainError {
            detail,
            column: step.column_of(key),
        }
        .to_string(),
    )
}

fn int_arg(step: &Step, key: &str, default: usize, max: usize) -> Result<usize, ToolError> {
    match step.arg(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Int(i)) if *i >= 1 => Ok((*i as usize).min(max)),
        Some(v) => Err(err_at(
            step,
            key,
            format!(
                "{}(): '{key}' must be an integer >= 1, got {}",
                step.name,
                v.render()
            ),
        )),
    }
}

fn bool_arg(step: &Step, key: &str, default: bool) -> Result<bool, ToolError> {
    match step.arg(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::Int(i)) => Ok(*i != 0),
        Some(v) => Err(err_at(
            step,
            key,
            format!(
                "{}(): '{key}' must be true or false, got {}",
                step.name,
                v.render()
            ),
        )),
    }
}

fn text_arg(step: &Step, key: &str) -> Result<Option<String>, ToolError> {
    match step.arg(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::List(_)) => Err(err_at(
            step,
            key,
            format!("{}(): '{key}' must be a single value", step.name),
        )),
        Some(v) => Ok(v.as_text()),
    }
}

/// Values of a filter argument: one value or a list of alternatives.
fn texts_arg(step: &Step, key: &str) -> Vec<String> {
    match step.arg(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::List(items)) => items.iter().filter_map(Value::as_text).collect(),
        Some(v) => v.as_text().into_iter().collect(),
    }
}

const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "to",
    "in",
    "on",
    "for",
    "and",
    "or",
    "is",
    "are",
    "be",
    "by",
    "with",
    "that",
    "this",
    "it",
    "as",
    "at",
    "from",
    "how",
    "what",
    "where",
    "which",
    "who",
    "does",
    "do",
    "code",
    "function",
    "functions",
    "method",
    "methods",
];

/// The words of a concept query: identifiers split into words, lowercased, stop words dropped.
pub fn concept_terms(query: &str) -> String {
    let mut seen: Vec<String> = Vec::new();
    for raw in query.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if raw.is_empty() {
            continue;
        }
        let mut words = vec![raw.to_lowercase()];
        words.extend(
            identifier_words(raw)
                .split_whitespace()
                .map(str::to_lowercase),
        );
        for w in words {
            if w.len() > 1 && !STOPWORDS.contains(&w.as_str()) && !seen.contains(&w) {
                seen.push(w);
            }
        }
    }
    seen.join(" ")
}

fn is_generated(path: &str) -> bool {
    let p = path.to_lowercase();
    p.contains("generated")
        || p.contains("_pb2")
        || p.contains(".pb.")
        || p.contains("/gen/")
        || p.starts_with("gen/")
        || p.ends_with(".min.js")
        || p.contains("_generated")
}

struct Criteria {
    names: Vec<String>,
    kinds: Vec<String>,
    files: Vec<String>,
    paths: Vec<String>,
    languages: Vec<String>,
    test: Option<bool>,
    generated: Option<bool>,
    regex: Option<regex::Regex>,
    case: bool,
}

impl Criteria {
    fn from_step(step: &Step) -> Result<Criteria, ToolError> {
        let case = bool_arg(step, "case", false)?;
        let regex = match text_arg(step, "regex")? {
            None => None,
            Some(r) => Some(
                regex::RegexBuilder::new(&r)
                    .case_insensitive(!case)
                    .size_limit(1 << 20)
                    .build()
                    .map_err(|e| {
                        err_at(
                            step,
                            "regex",
                            format!("{}(): invalid regex: {e}", step.name),
                        )
                    })?,
            ),
        };
        let test = match step.arg("test") {
            None | Some(Value::Null) => None,
            _ => Some(bool_arg(step, "test", false)?),
        };
        let generated = match step.arg("generated") {
            None | Some(Value::Null) => None,
            _ => Some(bool_arg(step, "generated", false)?),
        };
        let c = Criteria {
            names: texts_arg(step, "name"),
            kinds: texts_arg(step, "kind")
                .into_iter()
                .map(|k| k.to_lowercase())
                .collect(),
            files: texts_arg(step, "file"),
            paths: texts_arg(step, "path"),
            languages: texts_arg(step, "language")
                .into_iter()
                .map(|l| l.to_lowercase())
                .collect(),
            test,
            generated,
            regex,
            case,
        };
        if c.names.is_empty()
            && c.kinds.is_empty()
            && c.files.is_empty()
            && c.paths.is_empty()
            && c.languages.is_empty()
            && c.test.is_none()
            && c.generated.is_none()
            && c.regex.is_none()
        {
            return Err(err_at(
                step,
                "name",
                format!(
                    "{}() needs a criterion: name, kind, file, path, language, test, generated or regex",
                    step.name
                ),
            ));
        }
        Ok(c)
    }

    fn matches(&self, s: &DslSymbol, path: &str, language: &str, file_test: bool) -> bool {
        let fold = |x: &str| {
            if self.case {
                x.to_owned()
            } else {
                x.to_lowercase()
            }
        };
        let name = fold(&s.name);
        if !self.names.is_empty() && !self.names.iter().any(|n| name.contains(&fold(n))) {
            return false;
        }
        if !self.kinds.is_empty()
            && !self.kinds.iter().any(|k| match k.as_str() {
                "function" | "func" | "fn" => matches!(s.kind.as_str(), "function" | "method"),
                "class" => crate::hyphae::eval::CLASS_LIKE.contains(&s.kind.as_str()),
                other => s.kind == other,
            })
        {
            return false;
        }
        if !self.files.is_empty() && !self.files.iter().any(|f| path.contains(f.as_str())) {
            return false;
        }
        if !self.paths.is_empty()
            && !self
                .paths
                .iter()
                .any(|p| path.starts_with(p.trim_start_matches("./")))
        {
            return false;
        }
        if !self.languages.is_empty() && !self.languages.iter().any(|l| l == language) {
            return false;
        }
        if let Some(t) = self.test {
            let is_test = s.is_test || file_test || is_test_path(path);
            if is_test != t {
                return false;
            }
        }
        if let Some(g) = self.generated
            && is_generated(path) != g
        {
            return false;
        }
        if let Some(r) = &self.regex
            && !r.is_match(&s.name)
            && !r.is_match(&s.qualname)
        {
            return false;
        }
        true
    }
}

/// Runs the parsed steps.
pub fn run(
    index: &Index,
    universe: &Universe,
    steps: &[Step],
    params: Params,
) -> Result<Run, ToolError> {
    let mut run = Run {
        ids: Vec::new(),
        via: FxHashMap::default(),
        facets: Facets {
            source: params.include_code,
            limit: 5,
            ..Facets::default()
        },
        uml: None,
        params,
        semantic_used: false,
        notes: Vec::new(),
        sorted_by: None,
    };
    let order_key = |id: &i64| {
        universe
            .get(*id)
            .map(|s| {
                let path = universe
                    .file_of(s)
                    .map(|f| f.path.clone())
                    .unwrap_or_default();
                (path, s.line)
            })
            .unwrap_or_default()
    };
    for step in steps {
        let label = step.name.clone();
        match step.name.as_str() {
            "search" | "semantic" | "explore" => {
                let query = text_arg(step, "query")?.unwrap_or_default();
                let terms = if step.name == "semantic" {
                    run.semantic_used = true;
                    concept_terms(&query)
                } else {
                    query.clone()
                };
                let (limit, max_files) = if step.name == "explore" {
                    let mf = int_arg(step, "max_files", run.params.max_files, 100)?;
                    let ms = int_arg(step, "max_symbols", run.params.max_symbols, 1000)?;
                    run.params.max_files = mf;
                    run.params.max_symbols = ms;
                    run.facets.source = bool_arg(step, "include_code", run.facets.source)?;
                    (ms, Some(mf))
                } else {
                    // A seed's own cap is wider than the listing cap, so the listing
                    // can say "showing X of Y".
                    (int_arg(step, "limit", seed_limit(&run.params), 1000)?, None)
                };
                if terms.trim().is_empty() {
                    run.notes.push(format!(
                        "{}: no searchable words in '{query}'",
                        step.render()
                    ));
                    continue;
                }
                let fetch = (limit * 4).max(limit + 50);
                let (rows, _) = index.search(&terms, None, &[], fetch)?;
                let mut files: Vec<String> = Vec::new();
                let mut added = 0usize;
                let have: FxHashSet<i64> = run.ids.iter().copied().collect();
                // Production definitions first, tests after (as search_symbol does).
                let mut rows = rows;
                rows.sort_by(|a, b| {
                    let t = |s: &tsa_index::SymbolRow| s.is_test || is_test_path(&s.file);
                    t(&a.0).cmp(&t(&b.0)).then(a.1.total_cmp(&b.1))
                });
                for (s, _) in rows {
                    if added >= limit {
                        break;
                    }
                    if matches!(s.kind.as_str(), "impl" | "module" | "section") {
                        continue;
                    }
                    if let Some(mf) = max_files
                        && !files.contains(&s.file)
                    {
                        if files.len() >= mf {
                            continue;
                        }
                        files.push(s.file.clone());
                    }
                    if have.contains(&s.id) || run.via.contains_key(&s.id) {
                        continue;
                    }
                    run.ids.push(s.id);
                    run.via.insert(s.id, label.clone());
                    added += 1;
                }
                if added == 0 {
                    run.notes.push(format!("{} matched nothing", step.render()));
                }
            }
            "callers" | "callees" | "related" => {
                let depth = int_arg(step, "depth", 1, 5)?;
                let limit = int_arg(step, "limit", seed_limit(&run.params), 1000)?;
                let mut seen: FxHashSet<i64> = run.ids.iter().copied().collect();
                let mut frontier: Vec<i64> = run.ids.clone();
                let mut added = 0usize;
                'levels: for _ in 0..depth {
                    if frontier.is_empty() {
                        break;
                    }
                    frontier.sort_unstable();
                    let mut next: Vec<i64> = Vec::new();
                    if step.name != "callees" {
                        next.extend(index.dsl_callers_of(&frontier)?);
                    }
                    if step.name != "callers" {
                        next.extend(index.dsl_callees_of(&frontier)?);
                    }
                    next.retain(|id| universe.get(*id).is_some());
                    next.sort_by_key(order_key);
                    next.dedup();
                    let mut level = Vec::new();
                    for id in next {
                        if !seen.insert(id) {
                            continue;
                        }
                        if added >= limit {
                            run.notes.push(format!(
                                "{}: stopped at limit={limit}; more symbols were reachable",
                                step.render()
                            ));
                            break 'levels;
                        }
                        run.ids.push(id);
                        run.via.insert(id, label.clone());
                        level.push(id);
                        added += 1;
                    }
                    frontier = level;
                }
            }
            "filter" | "where" | "exclude" | "not" | "has" => {
                let c = Criteria::from_step(step)?;
                let hit = |id: &i64| -> bool {
                    let Some(s) = universe.get(*id) else {
                        return false;
                    };
                    let Some(f) = universe.file_of(s) else {
                        return false;
                    };
                    c.matches(s, &f.path, &f.language, f.is_test)
                };
                match step.name.as_str() {
                    "filter" | "where" => run.ids.retain(|id| hit(id)),
                    "exclude" | "not" => run.ids.retain(|id| !hit(id)),
                    _ => {
                        // Containers with at least one member matching the criteria.
                        let containers: FxHashSet<i64> = universe
                            .syms
                            .iter()
                            .filter(|s| s.parent.is_some() && hit(&s.id))
                            .filter_map(|s| s.parent)
                            .collect();
                        run.ids.retain(|id| containers.contains(id));
                    }
                }
            }
            "take" => {
                let n = match step.arg("n") {
                    Some(Value::Int(i)) if *i >= 0 => *i as usize,
                    Some(v) => {
                        return Err(err_at(
                            step,
                            "n",
                            format!("take(): n must be an integer >= 0, got {}", v.render()),
                        ));
                    }
                    None => 0,
                };
                run.ids.truncate(n);
            }
            "sort" => {
                let by = text_arg(step, "by")?.unwrap_or_else(|| "name".into());
                let desc = bool_arg(
                    step,
                    "desc",
                    matches!(by.as_str(), "fan_in" | "fan_out" | "complexity" | "risk"),
                )?;
                let keys: FxHashMap<i64, i64> = match by.as_str() {
                    "fan_in" | "fan_out" | "risk" => {
                        let fans = fan_counts(index, universe, &run.ids)?;
                        run.ids
                            .iter()
                            .map(|id| {
                                let f = fans.get(id).copied().unwrap_or_default();
                                let v = match by.as_str() {
                                    "fan_in" => f.fan_in as i64,
                                    "fan_out" => f.fan_out as i64,
                                    _ => i64::from(risk_of(&f).0),
                                };
                                (*id, v)
                            })
                            .collect()
                    }
                    "complexity" => {
                        let cx = complexity::of_symbols(index.root(), universe, &run.ids);
                        run.ids
                            .iter()
                            .map(|id| (*id, cx.get(id).copied().flatten().unwrap_or(0) as i64))
                            .collect()
                    }
                    "name" | "file" | "line" | "kind" => FxHashMap::default(),
                    other => {
                        return Err(err_at(
                            step,
                            "by",
                            format!(
                                "sort(): unknown key '{other}' (name, file, line, kind, fan_in, fan_out, complexity, risk)"
                            ),
                        ));
                    }
                };
                let sym = |id: &i64| universe.get(*id);
                run.ids.sort_by(|a, b| {
                    let (sa, sb) = (sym(a), sym(b));
                    let ord = match by.as_str() {
                        "name" => sa
                            .map(|s| s.name.to_lowercase())
                            .cmp(&sb.map(|s| s.name.to_lowercase())),
                        "kind" => sa.map(|s| &s.kind).cmp(&sb.map(|s| &s.kind)),
                        "line" => sa.map(|s| s.line).cmp(&sb.map(|s| s.line)),
                        "file" => order_key(a).cmp(&order_key(b)),
                        _ => keys.get(a).cmp(&keys.get(b)),
                    };
                    let ord = if desc { ord.reverse() } else { ord };
                    ord.then_with(|| order_key(a).cmp(&order_key(b)))
                });
                run.sorted_by = Some(format!("{by}{}", if desc { " desc" } else { "" }));
            }
            "include" | "with" => {
                for a in step.args.iter().filter(|a| a.key.is_none()) {
                    if let Value::Str(f) = &a.value {
                        set_facet(&mut run.facets, f, true);
                    }
                }
                for f in parse::FACETS {
                    if step.arg(f).is_some() {
                        let on = bool_arg(step, f, true)?;
                        set_facet(&mut run.facets, f, on);
                    }
                }
                if step.arg("include_code").is_some() {
                    run.facets.source = bool_arg(step, "include_code", true)?;
                }
                run.facets.limit = int_arg(step, "limit", run.facets.limit, 100)?;
                run.params.max_files = int_arg(step, "max_files", run.params.max_files, 100)?;
                run.params.max_symbols =
                    int_arg(step, "max_symbols", run.params.max_symbols, 1000)?;
            }
            "uml" => {
                let direction = text_arg(step, "direction")?
                    .unwrap_or_else(|| "TD".into())
                    .to_uppercase();
                if !matches!(direction.as_str(), "TD" | "TB" | "LR" | "BT" | "RL") {
                    return Err(err_at(
                        step,
                        "direction",
                        format!("uml(): direction must be TD, LR, BT or RL, got '{direction}'"),
                    ));
                }
                let limit = int_arg(step, "limit", 50, 1000)?;
                let max_edges = int_arg(step, "max_edges", limit, 1000)?;
                run.uml = Some(Uml {
                    direction,
                    max_edges,
                });
            }
            "answer" => {
                run.params.compact = bool_arg(step, "compact", true)?;
            }
            _ => {}
        }
    }
    Ok(run)
}

/// Default cap of a search/semantic seed and of one graph expansion.
fn seed_limit(p: &Params) -> usize {
    p.max_symbols.max(50)
}

fn set_facet(f: &mut Facets, name: &str, on: bool) {
    match name {
        "source" => f.source = on,
        "callers" => f.callers = on,
        "callees" => f.callees = on,
        "complexity" => f.complexity = on,
        "health" => f.health = on,
        "risk" => f.risk = on,
        "affected_tests" => f.affected_tests = on,
        _ => {}
    }
}

/// Resolved fan-in/fan-out of each symbol, with distinct other files on each side.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fans {
    pub fan_in: usize,
    pub fan_out: usize,
    pub cross_file_callers: usize,
    pub cross_file_callees: usize,
}

/// Fans of `ids` from one set-at-a-time edge query.
pub fn fan_counts(
    index: &Index,
    universe: &Universe,
    ids: &[i64],
) -> Result<FxHashMap<i64, Fans>, ToolError> {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let wanted: FxHashSet<i64> = sorted.iter().copied().collect();
    let edges = index.dsl_edges_touching(&sorted)?;
    let files: FxHashMap<i64, i64> = edges
        .iter()
        .flat_map(|(a, b)| [*a, *b])
        .filter_map(|id| universe.get(id).map(|s| (id, s.file_id)))
        .collect();
    let mut callers: FxHashMap<i64, (FxHashSet<i64>, FxHashSet<i64>)> = FxHashMap::default();
    let mut callees: FxHashMap<i64, (FxHashSet<i64>, FxHashSet<i64>)> = FxHashMap::default();
    for (from, to) in edges {
        if from == to {
            continue;
        }
        if wanted.contains(&to) {
            let e = callers.entry(to).or_default();
            e.0.insert(from);
            if files.get(&from) != files.get(&to)
                && let Some(f) = files.get(&from)
            {
                e.1.insert(*f);
            }
        }
        if wanted.contains(&from) {
            let e = callees.entry(from).or_default();
            e.0.insert(to);
            if files.get(&from) != files.get(&to)
                && let Some(f) = files.get(&to)
            {
                e.1.insert(*f);
            }
        }
    }
    Ok(sorted
        .into_iter()
        .map(|id| {
            let (ci, cf) = callers
                .get(&id)
                .map(|(a, b)| (a.len(), b.len()))
                .unwrap_or((0, 0));
            let (oi, of) = callees
                .get(&id)
                .map(|(a, b)| (a.len(), b.len()))
                .unwrap_or((0, 0));
            (
                id,
                Fans {
                    fan_in: ci,
                    fan_out: oi,
                    cross_file_callers: cf,
                    cross_file_callees: of,
                },
            )
        })
        .collect())
}

/// Risk score (0..100) and level from fans (analyses.md §5, without chain depth).
pub fn risk_of(f: &Fans) -> (u32, &'static str) {
    let mut score = 0u32;
    score += match f.fan_in {
        n if n >= 10 => 35,
        n if n >= 5 => 20,
        n if n >= 3 => 10,
        _ => 0,
    };
    score += match f.cross_file_callers {
        n if n >= 5 => 25,
        n if n >= 2 => 15,
        _ => 0,
    };
    score += match f.fan_out {
        n if n >= 10 => 20,
        n if n >= 5 => 10,
        _ => 0,
    };
    score += match f.cross_file_callees {
        n if n >= 3 => 15,
        n if n >= 1 => 5,
        _ => 0,
    };
    let score = score.min(100);
    let level = match score {
        s if s >= 60 => "critical",
        s if s >= 40 => "high",
        s if s >= 20 => "medium",
        _ => "low",
    };
    (score, level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concept_terms_split_identifiers_and_drop_stop_words() {
        assert_eq!(
            concept_terms("how does the IndexShard load config"),
            "indexshard index shard load config"
        );
        assert_eq!(concept_terms("parse_args"), "parse_args parse args");
        assert_eq!(concept_terms("the of"), "");
    }

    #[test]
    fn risk_levels() {
        let f = Fans {
            fan_in: 10,
            fan_out: 0,
            cross_file_callers: 5,
            cross_file_callees: 0,
        };
        assert_eq!(risk_of(&f), (60, "critical"));
        assert_eq!(risk_of(&Fans::default()), (0, "low"));
    }

    #[test]
    fn generated_paths() {
        assert!(is_generated("proto/x_pb2.py"));
        assert!(is_generated("gen/a.go"));
        assert!(!is_generated("app/core.py"));
    }
}
