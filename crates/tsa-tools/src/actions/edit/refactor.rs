//! `edit refactor`: extract-method candidates (long or complex functions, with the
//! blocks inside them worth extracting and their line ranges), complexity hotspots
//! and a skeleton of the file, all from the parse tree. Reads only.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tree_sitter::Node;
use tsa_analysis::complexity::{self, Rules, band};
use tsa_analysis::health::HealthConfig;
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap};
use crate::actions::health::common::check_language;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to analyse.
    pub file_path: ProjectPath,
    /// Language name; must agree with the file.
    #[serde(default)]
    pub language: Option<String>,
    /// Most extraction candidates listed (default 10); counts stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_suggestions: Option<i64>,
    /// List blocks to extract inside each candidate (default true).
    #[serde(default)]
    pub include_extractions: Option<bool>,
    /// Include the file's skeleton (default true).
    #[serde(default)]
    pub include_skeleton: Option<bool>,
}

pub struct Refactor;

/// Blocks shorter than this are not worth a helper of their own.
const MIN_BLOCK_LINES: u32 = 5;

fn rows_of(n: Node<'_>) -> (u32, u32) {
    (
        n.start_position().row as u32 + 1,
        n.end_position().row as u32 + 1,
    )
}

/// Top-level statements of a function body that span at least `MIN_BLOCK_LINES`
/// lines or add at least 3 paths, and runs of consecutive branching statements
/// (dispatch chains): each a candidate helper, most complex first.
fn extractions(rules: &Rules, func: Node<'_>) -> Vec<Value> {
    let Some(body) = func.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut out: Vec<(u32, u32, Value)> = Vec::new();
    let mut push = |a: u32, b: u32, paths: u32, what: String| {
        let lines = b - a + 1;
        out.push((
            paths,
            lines,
            json!({
                "start_line": a, "end_line": b, "lines": lines, "node_kind": what,
                "complexity_removed": paths,
                "suggestion": format!("extract lines {a}-{b} ({what}) into a named helper"),
            }),
        ));
    };
    let mut cursor = body.walk();
    let stmts: Vec<Node<'_>> = body
        .named_children(&mut cursor)
        .filter(|n| !n.kind().contains("comment"))
        .collect();
    // Runs of consecutive branching statements (a dispatch chain) as one block.
    let mut i = 0;
    while i < stmts.len() {
        let paths = complexity::decisions_within(rules, stmts[i]);
        let (a, b) = rows_of(stmts[i]);
        let mut j = i + 1;
        let mut run_paths = paths;
        if paths > 0 {
            while j < stmts.len() {
                let p = complexity::decisions_within(rules, stmts[j]);
                if p == 0 {
                    break;
                }
                run_paths += p;
                j += 1;
            }
        }
        if j - i >= 2 {
            let (_, end) = rows_of(stmts[j - 1]);
            if end - a + 1 >= MIN_BLOCK_LINES || run_paths >= 3 {
                push(
                    a,
                    end,
                    run_paths,
                    format!("{} consecutive branching statements", j - i),
                );
            }
            i = j;
            continue;
        }
        if b - a + 1 >= MIN_BLOCK_LINES || paths >= 3 {
            push(a, b, paths, stmts[i].kind().to_owned());
        }
        i += 1;
    }
    out.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)));
    out.into_iter().map(|x| x.2).collect()
}

fn functions_with_nodes<'t>(rules: &Rules, root: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(cur) = stack.pop() {
        if rules.is_function(cur) {
            out.push(cur);
        }
        stack.extend(cur.children(&mut cursor));
    }
    out.sort_by_key(|n| n.start_byte());
    out
}

impl Action for Refactor {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "refactor";
    const SUMMARY: &'static str = "extract-method candidates with line ranges, complexity hotspots and a skeleton (read-only)";
    const BRIEF: &'static str = "extract-method candidates";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let rel = source_file(root, &args.file_path)?;
        check_language(args.language.as_deref(), &rel)?;
        let limit = cap("max_suggestions", args.max_suggestions, 10)?;
        let lang = Language::from_path(&rel).ok_or_else(|| ToolError::Language(rel.clone()))?;
        let rules = complexity::rules(lang).ok_or_else(|| ToolError::Language(rel.clone()))?;
        let text = tsa_analysis::security::read_text_in_root(root, &rel)?;
        let tree = complexity::parse(lang, text.as_bytes())
            .ok_or_else(|| ToolError::Internal(format!("cannot parse '{rel}'")))?;
        let cfg = HealthConfig::load(root)?;
        let threshold = |id: &str, d: f64| cfg.smells.get(id).map_or(d, |r| r.warning);
        let (max_cc, max_lines) = (
            threshold("complex_function", 10.0),
            threshold("long_method", 50.0),
        );
        let src = text.as_bytes();
        let metrics = complexity::functions(rules, tree.root_node(), src);
        let nodes = functions_with_nodes(rules, tree.root_node());
        let with_blocks = args.include_extractions.unwrap_or(true);
        let mut candidates: Vec<(u32, u32, Value)> = Vec::new();
        for (m, node) in metrics.iter().zip(nodes.iter()) {
            let lines = m.end_line - m.line + 1;
            let complex = f64::from(m.complexity) > max_cc;
            let long = f64::from(lines) > max_lines;
            if !(complex || long) {
                continue;
            }
            let mut reasons = Vec::new();
            if complex {
                reasons.push(format!("complexity {} > {max_cc}", m.complexity));
            }
            if long {
                reasons.push(format!("{lines} lines > {max_lines}"));
            }
            let mut row = json!({
                "name": m.name, "line": m.line, "end_line": m.end_line, "lines": lines,
                "complexity": m.complexity, "band": band(m.complexity), "nesting": m.nesting,
                "reason": reasons.join("; "),
            });
            if with_blocks {
                row["extractions"] = json!(extractions(rules, *node));
            }
            candidates.push((m.complexity, lines, row));
        }
        candidates.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let mut hotspots: Vec<&complexity::FunctionCc> =
            metrics.iter().filter(|f| f.complexity > 10).collect();
        hotspots.sort_by(|a, b| b.complexity.cmp(&a.complexity).then(a.line.cmp(&b.line)));
        let hotspot_rows: Vec<Value> = hotspots
            .iter()
            .map(|f| json!({"name": f.name, "line": f.line, "end_line": f.end_line, "complexity": f.complexity, "band": band(f.complexity)}))
            .collect();
        let n = candidates.len();
        let verdict = if n == 0 {
            Verdict::Info
        } else {
            Verdict::Caution
        };
        let summary = format!(
            "{rel} candidates={n} hotspots={} functions={}",
            hotspot_rows.len(),
            metrics.len()
        );
        let mut ok = Success::new(verdict, summary)
            .with("file_path", rel.clone())
            .with("language", lang.name())
            .with("thresholds", json!({"complexity": max_cc, "lines": max_lines}))
            .with_list(
                ListSpelling {
                    list_key: "extraction_candidates",
                    total_key: "candidate_count",
                    listed_key: "candidates_listed",
                    cap_key: "max_suggestions",
                    noun: "extraction candidates",
                    remedy: "raise max_suggestions".into(),
                },
                Capped::collect(candidates.into_iter().map(|c| c.2), limit),
            )
            .with_list(
                ListSpelling {
                    list_key: "hotspots",
                    total_key: "hotspot_count",
                    listed_key: "hotspots_listed",
                    cap_key: "hotspots_cap",
                    noun: "hotspots",
                    remedy: "use health action=heatmap mode=file for every function".into(),
                },
                Capped::collect(hotspot_rows, fixed_cap(20)),
            )
            .with_next_step(if n == 0 {
                "No function exceeds the thresholds; no extraction needed.".to_owned()
            } else {
                format!(
                    "Run edit action=safe on {rel}, then extract the first candidate's top block and re-run the tests."
                )
            });
        if args.include_skeleton.unwrap_or(true) {
            let classes = complexity::classes(rules, tree.root_node(), src);
            let mut items: Vec<(u32, u32, String, String)> = classes
                .iter()
                .map(|c| (c.line, 0, "class".to_owned(), c.name.clone()))
                .chain(
                    metrics
                        .iter()
                        .map(|f| (f.line, f.end_line, "function".to_owned(), f.name.clone())),
                )
                .collect();
            items.sort_by_key(|i| i.0);
            let lines: Vec<&str> = text.lines().collect();
            let skeleton: Vec<Value> = items
                .into_iter()
                .map(|(line, end, kind, name)| {
                    let head = lines.get(line as usize - 1).map_or("", |l| l.trim());
                    json!({"kind": kind, "name": name, "line": line,
                           "end_line": if end == 0 { Value::Null } else { json!(end) },
                           "signature": head.chars().take(160).collect::<String>()})
                })
                .collect();
            ok = ok.with_list(
                ListSpelling {
                    list_key: "skeleton",
                    total_key: "skeleton_count",
                    listed_key: "skeleton_listed",
                    cap_key: "skeleton_cap",
                    noun: "skeleton entries",
                    remedy: "use structure actions for the full outline".into(),
                },
                Capped::collect(skeleton, fixed_cap(200)),
            );
        }
        Ok(ok)
    }
}
