//! `search chain`: the chain DSL (`search("x").callers().filter(kind=function).take(5)`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::chain::report::{ChainReport, report};
use tsa_analysis::chain::{self, Facets, Params};
use tsa_analysis::hyphae::Universe;
use tsa_analysis::source::{Bodies, BodyBudget};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index, to_value, with_payload};
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

/// The payload of `search chain`, in answer order (the symbols and files follow
/// as lists).
#[derive(Clone, Debug, Serialize)]
pub struct ChainPayload<'a> {
    /// The query, trimmed.
    pub query: &'a str,
    /// The parsed steps, rendered back.
    pub pipeline: String,
    /// Steps in the pipeline.
    pub step_count: usize,
    /// Whether rows are compact.
    pub compact: bool,
    /// The sort key of sort(), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sorted_by: Option<&'a str>,
    /// The facets attached, comma-separated.
    pub facets: String,
    /// With semantic(): how it ranks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic_mode: Option<&'static str>,
    /// With risk: how it is scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk_method: Option<&'static str>,
    /// With complexity: how it is measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complexity_method: Option<&'static str>,
    /// With uml(): the flowchart and its edge counts.
    #[serde(flatten)]
    pub uml: Option<UmlPayload>,
}

/// The flowchart part of a chain's payload.
#[derive(Clone, Debug, Serialize)]
pub struct UmlPayload {
    /// Mermaid text.
    pub mermaid: String,
    /// Call edges within the working set.
    pub uml_edge_total: usize,
    /// Edges drawn.
    pub uml_edges_listed: usize,
    /// Whether some were left out.
    pub uml_truncated: bool,
}

/// The names of the facets attached, comma-separated.
fn facet_names(f: &Facets, compact: bool) -> String {
    let on: Vec<&str> = [
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
    on.join(",")
}

/// The symbols and files lists of a chain's answer.
fn with_lists(s: Success, r: ChainReport, total: usize, p: Params) -> Success {
    let files = Capped::collect(r.files.iter().map(to_value), fixed_cap(p.max_files));
    let symbols = Capped::counted(
        r.rows.iter().map(to_value).collect(),
        total,
        fixed_cap(p.max_symbols),
    );
    s.with_list(
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
}

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
        let root = ctx.root()?;
        let p = run.params;
        let f = &run.facets;
        let total = run.ids.len();
        let mut bodies = Bodies::new(
            root,
            BodyBudget {
                rows: p.max_symbols.min(12),
                lines_each: 40,
                lines_total: 400,
            },
        );
        let r = report(root, index, &universe, &run, &mut bodies)?;
        let file_count = r.files.len();
        let uml = r.uml.as_ref().map(|u| UmlPayload {
            mermaid: u.mermaid.clone(),
            uml_edge_total: u.edge_total,
            uml_edges_listed: u.edges_listed,
            uml_truncated: u.edge_total > u.edges_listed,
        });
        let truncated_uml = r
            .uml
            .as_ref()
            .filter(|u| u.edge_total > u.edges_listed)
            .map(|u| (u.edges_listed, u.edge_total));
        let payload = ChainPayload {
            query: args.query.trim(),
            pipeline: steps
                .iter()
                .map(|s| s.render())
                .collect::<Vec<String>>()
                .join("."),
            step_count: steps.len(),
            compact: p.compact,
            sorted_by: run.sorted_by.as_deref(),
            facets: facet_names(f, p.compact),
            semantic_mode: run.semantic_used.then_some("lexical_bm25"),
            risk_method: f.risk.then_some(
                "fan-in/fan-out over resolved call edges (analyses §5 without chain depth)",
            ),
            complexity_method: f
                .complexity
                .then_some("cyclomatic: 1 + decision nodes of a tree-sitter parse"),
            uml,
        };
        let (verdict, follow_up) = if total == 0 {
            (
                Verdict::NotFound,
                "The chain ended with no symbol. Try other words in search()/explore(), drop a filter, or start from search action=symbol.",
            )
        } else {
            (
                Verdict::Info,
                "Take a listed symbol to nav action=callers / nav action=callees, or extend the chain with filter(), include() or uml().",
            )
        };
        let s = Success::new(
            verdict,
            format!(
                "chain: {total} symbol(s) in {file_count} file(s) after {} step(s)",
                steps.len()
            ),
        );
        let mut s = with_lists(with_payload(s, &payload), r, total, p).with_next_step(follow_up);
        if run.semantic_used {
            s = s.with_warning(
                "semantic_is_lexical: semantic() ranks by BM25 over symbol names and their identifier words (no embeddings); phrase concepts with words that appear in names",
            );
        }
        if f.health && !p.compact {
            s = s.with_warning(
                "health_unavailable: health is scored per file, not per symbol; run health action=file file_path=<file> for the files listed",
            );
        }
        if let Some((listed, total)) = truncated_uml {
            s = s.with_warning(format!(
                "uml_truncated: showing {listed} of {total} call edges; raise uml(max_edges=...)"
            ));
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
