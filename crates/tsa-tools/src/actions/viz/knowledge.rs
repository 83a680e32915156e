//! `viz knowledge`: the knowledge graph (the `.tsa/knowledge.json` sidecar when it is
//! current, else built from the index now) at one level of detail, cut around a
//! focus or to the best-connected nodes, laid out, as Graphology JSON (the answer is
//! itself an importable serialized graph) or a self-contained HTML page written
//! inside the project.

use std::collections::HashSet;
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::knowledge::view::{self, Lod, Projected};
use tsa_analysis::knowledge::{self, Graph, NodeKind, count_kinds, page, sidecar};
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Capped, ListLink, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, split_qualified};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Output form.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// Graphology serialized graph (`attributes`, `options`, `nodes`, `edges`) in the answer.
    #[default]
    Graphology,
    /// A self-contained HTML page (no network) written to `output_path`.
    Html,
}

/// Level of detail.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LodArg {
    /// Definitions, files, folders and documents.
    Symbol,
    /// Files and documents (default); calls and mentions merged per file.
    #[default]
    File,
    /// Folders and documents; everything merged per folder.
    Module,
}

/// Arguments of `viz knowledge`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[serde(default)]
    pub export_format: Option<ExportFormat>,
    #[serde(default)]
    pub lod: Option<LodArg>,
    /// A project file, folder or document path, or a definition name (`Class.method`):
    /// keep its breadth-first neighbourhood.
    #[serde(default)]
    pub focus: Option<String>,
    /// Most nodes kept (default 10000); the total is always exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_nodes: Option<i64>,
    /// Most edges kept (default 50000); the total is always exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_edges: Option<i64>,
    /// html: where to write the page, inside the project (default `.tsa/knowledge.html`).
    #[serde(default)]
    pub output_path: Option<ProjectPath>,
    /// html: also return the page's text in the answer (default false).
    #[serde(default)]
    pub include_html: Option<bool>,
}

pub struct Knowledge;

/// Where the graph came from, and warnings about it.
struct Source {
    graph: Graph,
    from: &'static str,
    warnings: Vec<String>,
}

fn load_graph(ctx: &Context) -> Result<Source, ToolError> {
    let root = ctx.root()?;
    let opened = open_index(ctx)?;
    let mut warnings: Vec<String> = opened.built_now.into_iter().collect();
    let stored = match sidecar::load(root) {
        Ok(s) => s,
        Err(e) => {
            warnings.push(format!(
                "knowledge_unreadable: {e}; built from the index instead"
            ));
            None
        }
    };
    let settings = stored.as_ref().map(|s| s.settings).unwrap_or_default();
    if let Some(sc) = stored {
        if sidecar::fingerprint(&opened.index, root, &sc.settings)? == sc.fingerprint {
            if sc.truncated() {
                warnings.push(format!(
                    "knowledge_sidecar_truncated: it holds {} of {} nodes and {} of {} edges; rebuild with higher caps (index action=knowledge max_nodes=... max_edges=...)",
                    sc.nodes.len(),
                    sc.node_total,
                    sc.edges.len(),
                    sc.edge_total
                ));
            }
            return Ok(Source {
                graph: sc.graph(),
                from: "sidecar",
                warnings,
            });
        }
        warnings.push(
            "stale_knowledge: .tsa/knowledge.json is out of date, so the graph was built from the index now; refresh it with index action=knowledge".to_owned(),
        );
    }
    let graph = knowledge::build(
        &opened.index,
        root,
        settings.include_docs,
        settings.max_files,
    )?;
    Ok(Source {
        graph,
        from: "index",
        warnings,
    })
}

/// The projected nodes the focus names, or `None` when nothing matches.
fn find_focus(
    root: &Path,
    g: &Graph,
    p: &Projected<'_>,
    lod: Lod,
    focus: &str,
) -> Result<Option<Vec<usize>>, ToolError> {
    let f = focus.trim();
    if f.is_empty() {
        return Err(ToolError::Validation(
            "parameter 'focus' must be a non-empty string".into(),
        ));
    }
    let path_like = f.contains('/') || f.contains('\\') || f == "." || root.join(f).exists();
    let mut base: Vec<&knowledge::Node> = Vec::new();
    if path_like {
        let (_, rel) = resolve_in_root(root, f)?;
        let rel = if rel.is_empty() {
            ".".to_owned()
        } else {
            rel.trim_end_matches('/').to_owned()
        };
        let ids: HashSet<String> = ["file", "doc", "module"]
            .iter()
            .map(|k| format!("{k}:{rel}"))
            .collect();
        base.extend(g.nodes.iter().filter(|n| ids.contains(&n.id)));
    }
    if base.is_empty() && !f.contains('/') {
        let (owner, name) = split_qualified(f);
        base.extend(g.nodes.iter().filter(|n| {
            n.kind == NodeKind::Symbol
                && (n.qualname.as_deref() == Some(f)
                    || n.name.as_deref() == Some(name)
                        && owner.is_none_or(|o| {
                            n.qualname
                                .as_deref()
                                .is_some_and(|q| q.split(['.', ':']).rev().skip(1).any(|s| s == o))
                        }))
        }));
    }
    if base.is_empty() {
        return Ok(None);
    }
    let mut seeds = Vec::new();
    for n in base {
        match view::stand_in(n, lod).and_then(|id| p.at.get(id.as_str()).copied()) {
            Some(i) => seeds.push(i),
            // A folder at file level: everything drawn under it.
            None if n.kind == NodeKind::Module => {
                let prefix = format!("{}/", n.path);
                seeds.extend(
                    p.nodes
                        .iter()
                        .enumerate()
                        .filter(|(_, m)| n.path == "." || m.path.starts_with(&prefix))
                        .map(|(i, _)| i),
                );
            }
            None => {}
        }
    }
    let mut seen = HashSet::new();
    seeds.retain(|s| seen.insert(*s));
    Ok((!seeds.is_empty()).then_some(seeds))
}

/// Up to five names or paths close to `focus`.
fn suggestions(g: &Graph, focus: &str) -> Vec<String> {
    // Compared by its first 64 characters: the cost never grows with the input.
    let f = tsa_analysis::suggest::clip(focus.trim()).to_lowercase();
    let tail = f.rsplit(['/', '.', ':']).next().unwrap_or(&f).to_owned();
    let mut scored: Vec<(f64, String)> = Vec::new();
    let mut seen = HashSet::new();
    for n in &g.nodes {
        let shown = match n.kind {
            NodeKind::Symbol => n.qualname.clone().unwrap_or_else(|| n.label.clone()),
            _ => n.path.clone(),
        };
        let key = match n.kind {
            NodeKind::Symbol => n.name.clone().unwrap_or_default().to_lowercase(),
            _ => n.path.rsplit('/').next().unwrap_or(&n.path).to_lowercase(),
        };
        let mut score = strsim::normalized_levenshtein(&tail, &key)
            .max(strsim::normalized_levenshtein(&f, &shown.to_lowercase()));
        if !tail.is_empty() && (key.contains(&tail) || tail.contains(&key) && !key.is_empty()) {
            score = score.max(0.75);
        }
        if score >= 0.5 && seen.insert(shown.clone()) {
            scored.push((score, shown));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(5).map(|(_, s)| s).collect()
}

impl Action for Knowledge {
    type Args = Args;
    const FACADE: &'static str = "viz";
    const NAME: &'static str = "knowledge";
    const SUMMARY: &'static str = "knowledge graph export (code + docs) at file, module or symbol level, around a focus: Graphology JSON or a self-contained HTML page";
    const BRIEF: &'static str = "knowledge graph export";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let max_nodes = cap("max_nodes", args.max_nodes, 10_000)?;
        let max_edges = cap("max_edges", args.max_edges, 50_000)?;
        let format = args.export_format.unwrap_or_default();
        if format == ExportFormat::Graphology
            && (args.output_path.is_some() || args.include_html.is_some())
        {
            return Err(ToolError::Validation(
                "output_path and include_html apply to export_format=html only".into(),
            ));
        }
        // The page's place is checked before any work.
        let out = match format {
            ExportFormat::Html => {
                let wanted = args.output_path.as_deref().unwrap_or(".tsa/knowledge.html");
                let (abs, rel) = resolve_in_root(root, wanted)?;
                let ext = abs
                    .extension()
                    .map(|e| e.to_string_lossy().to_lowercase())
                    .unwrap_or_default();
                if ext != "html" && ext != "htm" {
                    return Err(ToolError::Validation(format!(
                        "output_path must name an .html file, got '{wanted}'"
                    )));
                }
                if abs.is_dir() {
                    return Err(ToolError::Validation(format!(
                        "output_path '{wanted}' is a folder"
                    )));
                }
                Some((abs, rel))
            }
            ExportFormat::Graphology => None,
        };
        let lod = match args.lod.unwrap_or_default() {
            LodArg::Symbol => Lod::Symbol,
            LodArg::File => Lod::File,
            LodArg::Module => Lod::Module,
        };
        let src = load_graph(ctx)?;
        let projected = view::project(&src.graph, lod);
        let seeds = match args.focus.as_deref() {
            Some(f) => match find_focus(root, &src.graph, &projected, lod, f)? {
                Some(s) => s,
                None => {
                    let sugg = suggestions(&src.graph, f);
                    let step = match sugg.first() {
                        Some(s) => format!(
                            "'{f}' is no file, folder, document or definition of the knowledge graph. Did you mean '{s}'?"
                        ),
                        None => format!(
                            "'{f}' is no file, folder, document or definition of the knowledge graph; pass a project path or a definition name (Class.method)"
                        ),
                    };
                    let mut s = Success::new(
                        Verdict::NotFound,
                        format!("viz knowledge: focus '{f}' not found"),
                    )
                    .with("focus", f)
                    .with("lod", lod.as_str())
                    .with("suggestions", json!(sugg))
                    .with_next_step(step);
                    for w in src.warnings {
                        s = s.with_warning(w);
                    }
                    return Ok(s);
                }
            },
            None => Vec::new(),
        };
        let sel = view::select(&projected, &seeds, max_nodes.get(), max_edges.get());
        let (nodes, edges) = view::graphology(&projected, &sel, !seeds.is_empty());
        let project_name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut attributes = json!({
            "name": format!("knowledge graph of {project_name}"),
            "lod": lod.as_str(),
            "source": src.from,
            "node_count": sel.node_total,
            "edge_count": sel.edge_total,
        });
        if let Some(f) = &args.focus {
            attributes["focus"] = json!(f.trim());
        }
        let options = json!({"type": "directed", "multi": true, "allowSelfLoops": false});
        let nodes_by_kind = count_kinds(
            nodes
                .iter()
                .filter_map(|n| n["attributes"]["kind"].as_str()),
        );
        let edges_by_kind = count_kinds(
            edges
                .iter()
                .filter_map(|e| e["attributes"]["kind"].as_str()),
        );
        let (nodes_kept, edges_kept) = (nodes.len(), edges.len());
        let summary = format!(
            "knowledge graph lod={}{}: {} of {} nodes, {} of {} edges",
            lod.as_str(),
            args.focus
                .as_deref()
                .map(|f| format!(" around {}", f.trim()))
                .unwrap_or_default(),
            nodes_kept,
            sel.node_total,
            edges_kept,
            sel.edge_total
        );
        let remedy = if args.focus.is_some() {
            "raise max_nodes / max_edges, or focus on something smaller"
        } else {
            "raise max_nodes / max_edges, pass focus, or use lod=module"
        };
        let mut s = Success::new(Verdict::Info, summary)
            .with(
                "export_format",
                match format {
                    ExportFormat::Graphology => "graphology",
                    ExportFormat::Html => "html",
                },
            )
            .with("lod", lod.as_str())
            .with("source", src.from)
            .with("nodes_by_kind", json!(nodes_by_kind))
            .with("edges_by_kind", json!(edges_by_kind));
        if let Some(f) = &args.focus {
            s = s.with("focus", f.trim()).with("focus_nodes", seeds.len());
        }
        let follow = match format {
            ExportFormat::Graphology => {
                "Import the answer with Graphology (Graph.from), or draw it: viz action=knowledge export_format=html"
            }
            ExportFormat::Html => {
                "Open output_path in a browser: drag to pan, wheel to zoom, click a node for its neighbours"
            }
        };
        match format {
            ExportFormat::Graphology => {
                s = s
                    .with("attributes", attributes)
                    .with("options", options)
                    .with_list(
                        ListSpelling {
                            list_key: "nodes",
                            total_key: "node_count",
                            listed_key: "nodes_listed",
                            cap_key: "max_nodes",
                            noun: "nodes",
                            remedy: remedy.into(),
                        },
                        Capped::counted(nodes, sel.node_total, max_nodes),
                    )
                    .with_list(
                        ListSpelling {
                            list_key: "edges",
                            total_key: "edge_count",
                            listed_key: "edges_listed",
                            cap_key: "max_edges",
                            noun: "edges",
                            remedy: remedy.into(),
                        },
                        Capped::counted(edges, sel.edge_total, max_edges),
                    )
                    // A max_chars cut never leaves an edge to a dropped node
                    // (Graphology refuses such an import).
                    .with_link(ListLink {
                        nodes: "nodes",
                        key: "key",
                        edges: "edges",
                        ends: ["source", "target"],
                    })
                    .with_next_step(follow);
            }
            ExportFormat::Html => {
                let Some((abs, rel)) = out else {
                    return Err(ToolError::Internal("html without an output path".into()));
                };
                let graph: Value = json!({
                    "attributes": attributes,
                    "options": options,
                    "nodes": nodes,
                    "edges": edges,
                });
                let title = format!("tsa knowledge graph: {project_name} ({})", lod.as_str());
                let html = page::render(&title, &graph);
                sidecar::write_atomic(&abs, html.as_bytes())?;
                let cut = nodes_kept < sel.node_total || edges_kept < sel.edge_total;
                s = s
                    .with("output_path", rel.as_str())
                    .with("html_bytes", html.len())
                    .with("node_count", sel.node_total)
                    .with("nodes_drawn", nodes_kept)
                    .with("max_nodes", max_nodes.get())
                    .with("edge_count", sel.edge_total)
                    .with("edges_drawn", edges_kept)
                    .with("max_edges", max_edges.get())
                    .with("nodes_truncated", nodes_kept < sel.node_total)
                    .with("edges_truncated", edges_kept < sel.edge_total);
                if args.include_html.unwrap_or(false) {
                    s = s.with("html", html);
                }
                s = s.with_next_step(if cut {
                    format!(
                        "showing {nodes_kept} of {} nodes and {edges_kept} of {} edges — {remedy}. {follow}",
                        sel.node_total, sel.edge_total
                    )
                } else {
                    follow.to_owned()
                });
            }
        }
        for w in src.warnings {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
