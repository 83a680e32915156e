//! `search chain`: the chain DSL (`search("x").callers().filter(kind=function).take(5)`).

use rustc_hash::{FxHashMap, FxHashSet};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::chain::{self, Params, complexity, fan_counts, risk_of};
use tsa_analysis::hyphae::Universe;
use tsa_analysis::mermaid;
use tsa_analysis::source::{Bodies, BodyBudget};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::is_test_path;

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index};
use crate::{Context, ToolError};

/// Arguments of `search chain`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Chain query: steps joined by '.', e.g.
    /// `search("parse").callers(depth=2).filter(kind=function, test=false).include("complexity","risk").take(5)`.
    /// Steps: search(q, limit), semantic(q, limit) (lexical BM25 over names and identifier words),
    /// explore(q, max_files, max_symbols, include_code), callers/callees/related(depth, limit),
    /// filter/where (keep) and exclude/not (drop) by (name, kind, file, path, language, test,
    /// generated, regex, case); has(...) keeps containers with a member matching them,
    /// take(n), sort(by, desc), include/with(source, callers, callees, complexity, health, risk,
    /// affected_tests, max_files, max_symbols, include_code, limit), uml(direction, limit, max_edges),
    /// answer(compact). A plain string means explore("<string>").related().
    /// Limits: 4096 chars, 20 steps, 8 list items, 160-char strings.
    pub query: String,
    /// Most symbols to list (>= 1, default 20).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_symbols: Option<i64>,
    /// Most files to list, and the file cap of explore() (>= 1, default 8).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
    /// Inline source bodies of the listed symbols (default true).
    #[serde(default)]
    pub include_code: Option<bool>,
    /// Compact rows (name, kind, file, line) and no bodies (default false).
    #[serde(default)]
    pub compact: Option<bool>,
}

pub struct Chain;

fn positive(name: &str, v: Option<i64>, default: usize, max: usize) -> Result<usize, ToolError> {
    match v {
        None => Ok(default),
        Some(n) if n >= 1 => Ok((n as usize).min(max)),
        Some(n) => Err(ToolError::Validation(format!(
            "parameter '{name}' must be >= 1, got {n}"
        ))),
    }
}

impl Action for Chain {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "chain";
    const SUMMARY: &'static str = "chain DSL pipeline: search/semantic/explore seeds -> callers/callees/related -> filter/exclude/take/sort -> include(source, callers, callees, complexity, risk, affected_tests) -> uml -> answer";
    const BRIEF: &'static str = "chain DSL pipeline";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let steps =
            chain::parse::parse(&args.query).map_err(|e| ToolError::Validation(e.to_string()))?;
        let params = Params {
            max_symbols: positive("max_symbols", args.max_symbols, 20, 1000)?,
            max_files: positive("max_files", args.max_files, 8, 100)?,
            include_code: args.include_code.unwrap_or(true),
            compact: args.compact.unwrap_or(false),
        };
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let universe = Universe::load(index)?;
        let run = chain::run(index, &universe, &steps, params)?;
        let pipeline: Vec<String> = steps.iter().map(|s| s.render()).collect();
        let pipeline = pipeline.join(".");
        let root = ctx.root()?;
        let p = run.params;
        let compact = p.compact;
        let total = run.ids.len();
        let shown: Vec<i64> = run.ids.iter().take(p.max_symbols).copied().collect();
        let f = &run.facets;

        // Facets, each computed once for the listed symbols.
        let fans = if f.risk {
            fan_counts(index, &universe, &shown)?
        } else {
            FxHashMap::default()
        };
        let cx = if f.complexity {
            complexity::of_symbols(root, &universe, &shown)
        } else {
            FxHashMap::default()
        };
        let label = |id: i64| -> Option<Value> {
            let s = universe.get(id)?;
            let file = universe.file_of(s)?;
            Some(json!(format!("{} ({}:{})", s.qualname, file.path, s.line)))
        };
        let neighbours = |ids: Vec<i64>| -> (usize, Vec<Value>) {
            let mut ids = ids;
            ids.sort_unstable();
            ids.dedup();
            let n = ids.len();
            (n, ids.into_iter().take(f.limit).filter_map(label).collect())
        };
        let mut bodies = Bodies::new(
            root,
            BodyBudget {
                rows: p.max_symbols.min(12),
                lines_each: 40,
                lines_total: 400,
            },
        );
        let mut rows: Vec<Value> = Vec::with_capacity(shown.len());
        for id in &shown {
            let Some(s) = universe.get(*id) else { continue };
            let Some(file) = universe.file_of(s) else {
                continue;
            };
            if compact {
                rows.push(
                    json!({"name": s.name, "kind": s.kind, "file": file.path, "line": s.line}),
                );
                continue;
            }
            let mut row = json!({
                "name": s.name,
                "qualified_name": s.qualname,
                "kind": s.kind,
                "file": file.path,
                "line": s.line,
                "end_line": s.end_line,
                "language": file.language,
                "via": run.via.get(id).cloned().unwrap_or_default(),
            });
            if f.callers {
                let (n, list) = neighbours(index.dsl_callers_of(&[*id])?);
                row["caller_count"] = json!(n);
                row["callers"] = json!(list);
            }
            if f.callees {
                let (n, list) = neighbours(index.dsl_callees_of(&[*id])?);
                row["callee_count"] = json!(n);
                row["callees"] = json!(list);
            }
            if f.complexity {
                match cx.get(id).copied().flatten() {
                    Some(c) if matches!(s.kind.as_str(), "function" | "method") => {
                        row["complexity"] = json!(c);
                        row["complexity_band"] = json!(complexity::band(c));
                    }
                    Some(_) => row["complexity"] = Value::Null,
                    None => {
                        row["complexity"] = Value::Null;
                        row["complexity_unavailable"] = json!("file could not be read or parsed");
                    }
                }
            }
            if f.risk {
                let fan = fans.get(id).copied().unwrap_or_default();
                let (score, level) = risk_of(&fan);
                row["risk"] = json!({
                    "score": score,
                    "level": level,
                    "fan_in": fan.fan_in,
                    "fan_out": fan.fan_out,
                    "cross_file_callers": fan.cross_file_callers,
                    "cross_file_callees": fan.cross_file_callees,
                });
            }
            if f.affected_tests {
                // Tests reaching this symbol upstream through resolved calls (depth <= 3).
                let mut seen: FxHashSet<i64> = FxHashSet::from_iter([*id]);
                let mut frontier = vec![*id];
                let mut tests: Vec<i64> = Vec::new();
                for _ in 0..3 {
                    if frontier.is_empty() {
                        break;
                    }
                    let up = index.dsl_callers_of(&frontier)?;
                    frontier = up.into_iter().filter(|c| seen.insert(*c)).collect();
                    for c in &frontier {
                        if let Some(cs) = universe.get(*c) {
                            let path = universe.file_of(cs).map(|f| f.path.as_str()).unwrap_or("");
                            if cs.is_test || is_test_path(path) {
                                tests.push(*c);
                            }
                        }
                    }
                }
                let (n, list) = neighbours(tests);
                row["affected_test_count"] = json!(n);
                row["affected_tests"] = json!(list);
            }
            if f.health {
                row["health"] = Value::Null;
            }
            if f.source
                && let Some(b) = bodies.body(&s.qualname, &file.path, s.line, s.end_line)
            {
                row["body"] = b;
            }
            rows.push(row);
        }
        // Files of the whole working set, by symbol count.
        let mut per_file: Vec<(String, usize)> = Vec::new();
        {
            let mut counts: FxHashMap<&str, usize> = FxHashMap::default();
            let mut order: Vec<&str> = Vec::new();
            for id in &run.ids {
                if let Some(file) = universe.get(*id).and_then(|s| universe.file_of(s)) {
                    let e = counts.entry(file.path.as_str()).or_insert(0);
                    if *e == 0 {
                        order.push(file.path.as_str());
                    }
                    *e += 1;
                }
            }
            for f in order {
                per_file.push((f.to_owned(), counts[f]));
            }
            per_file.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        }
        let file_count = per_file.len();
        let files = Capped::collect(
            per_file
                .into_iter()
                .map(|(file, n)| json!({"file": file, "symbol_count": n})),
            fixed_cap(p.max_files),
        );
        let symbols = Capped::counted(rows, total, fixed_cap(p.max_symbols));

        let verdict = if total == 0 {
            Verdict::NotFound
        } else {
            Verdict::Info
        };
        let follow_up = if total == 0 {
            "The chain ended with no symbol. Try other words in search()/explore(), drop a filter, or start from search action=symbol.".to_owned()
        } else {
            "Take a listed symbol to nav action=callers / nav action=callees, or extend the chain with filter(), include() or uml().".to_owned()
        };
        let mut s = Success::new(
            verdict,
            format!(
                "chain: {total} symbol(s) in {file_count} file(s) after {} step(s)",
                steps.len()
            ),
        )
        .with("query", args.query.trim())
        .with("pipeline", pipeline)
        .with("step_count", steps.len())
        .with("compact", compact)
        .with_list(
            ListSpelling {
                list_key: "symbols",
                total_key: "total_symbols",
                listed_key: "symbols_listed",
                cap_key: "max_symbols",
                noun: "symbols",
                remedy: "raise max_symbols, or narrow with filter()/take()".into(),
            },
            symbols,
        )
        .with_list(
            ListSpelling {
                list_key: "files",
                total_key: "total_files",
                listed_key: "files_listed",
                cap_key: "max_files",
                noun: "files",
                remedy: "raise max_files, or narrow with filter(path=...)".into(),
            },
            files,
        )
        .with_next_step(follow_up);
        if let Some(by) = &run.sorted_by {
            s = s.with("sorted_by", by.as_str());
        }
        let facet_names: Vec<&str> = [
            ("source", f.source && !compact),
            ("callers", f.callers),
            ("callees", f.callees),
            ("complexity", f.complexity),
            ("health", f.health),
            ("risk", f.risk),
            ("affected_tests", f.affected_tests),
        ]
        .into_iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| n)
        .collect();
        s = s.with("facets", facet_names.join(","));
        if run.semantic_used {
            s = s.with("semantic_mode", "lexical_bm25").with_warning(
                "semantic_is_lexical: semantic() ranks by BM25 over symbol names and their identifier words (no embeddings); phrase concepts with words that appear in names",
            );
        }
        if f.risk {
            s = s.with(
                "risk_method",
                "fan-in/fan-out over resolved call edges (analyses §5 without chain depth)",
            );
        }
        if f.complexity {
            s = s.with(
                "complexity_method",
                "cyclomatic: 1 + decision nodes of a tree-sitter parse",
            );
        }
        if f.health && !compact {
            s = s.with_warning(
                "health_unavailable: health is scored per file, not per symbol; run health action=file file_path=<file> for the files listed",
            );
        }
        if let Some(u) = &run.uml {
            let edges = index.dsl_edges_within(&{
                let mut v = run.ids.clone();
                v.sort_unstable();
                v
            })?;
            let edges: Vec<(i64, i64)> = edges.into_iter().filter(|(a, b)| a != b).collect();
            let edge_total = edges.len();
            let kept: Vec<(i64, i64)> = edges.into_iter().take(u.max_edges).collect();
            let mut nodes: Vec<(String, String)> = Vec::new();
            let mut ids: FxHashMap<i64, String> = FxHashMap::default();
            for id in kept.iter().flat_map(|(a, b)| [*a, *b]) {
                if ids.contains_key(&id) {
                    continue;
                }
                if let Some(sym) = universe.get(id) {
                    let file = universe.file_of(sym).map(|f| f.path.as_str()).unwrap_or("");
                    let nid = mermaid::node_id(&sym.qualname, file);
                    nodes.push((nid.clone(), mermaid::label(&sym.qualname, file)));
                    ids.insert(id, nid);
                }
            }
            let pairs: Vec<(String, String)> = kept
                .iter()
                .filter_map(|(a, b)| Some((ids.get(a)?.clone(), ids.get(b)?.clone())))
                .collect();
            let text = mermaid::flowchart(&u.direction, &nodes, &pairs, edge_total);
            s = s
                .with("mermaid", text)
                .with("uml_edge_total", edge_total)
                .with("uml_edges_listed", kept.len())
                .with("uml_truncated", edge_total > kept.len());
            if edge_total > kept.len() {
                s = s.with_warning(format!(
                    "uml_truncated: showing {} of {} call edges; raise uml(max_edges=...)",
                    kept.len(),
                    edge_total
                ));
            }
        }
        for n in &run.notes {
            s = s.with_warning(format!("chain_note: {n}"));
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(bodies.warn(s))
    }
}
