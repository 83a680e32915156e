//! `viz knowledge`: the knowledge graph (the `.tsa/knowledge.json` sidecar when it is
//! current, else built from the index now) at one level of detail, cut around a
//! focus or to the best-connected nodes, laid out, as Graphology JSON (the answer is
//! itself an importable serialized graph) or a self-contained HTML page written
//! inside the project.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::knowledge::focus::{current, find_focus, suggestions};
use tsa_analysis::knowledge::view::{self, Lod};
use tsa_analysis::knowledge::{Graph, count_kinds, page, sidecar};
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Capped, ListLink, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
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

/// The payload of an unknown focus.
#[derive(Debug, Serialize)]
struct FocusNotFound<'a> {
    focus: &'a str,
    lod: &'static str,
    suggestions: Vec<String>,
}

/// `attributes` of the Graphology graph.
#[derive(Debug, Serialize)]
pub struct GraphAttributes<'a> {
    pub name: String,
    pub lod: &'static str,
    pub source: &'static str,
    pub node_count: usize,
    pub edge_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focus: Option<&'a str>,
}

/// `options` of the Graphology graph.
#[derive(Debug, Serialize)]
pub struct GraphOptions {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub multi: bool,
    #[serde(rename = "allowSelfLoops")]
    pub allow_self_loops: bool,
}

const OPTIONS: GraphOptions = GraphOptions {
    kind: "directed",
    multi: true,
    allow_self_loops: false,
};

/// The graph an HTML page draws.
#[derive(Debug, Serialize)]
struct PageGraph<'a> {
    attributes: &'a GraphAttributes<'a>,
    options: GraphOptions,
    nodes: &'a [Value],
    edges: &'a [Value],
}

/// The payload of `viz knowledge`, in answer order (the format's part follows).
#[derive(Debug, Serialize)]
pub struct KnowledgePayload<'a> {
    pub export_format: &'static str,
    pub lod: &'static str,
    pub source: &'static str,
    pub nodes_by_kind: BTreeMap<String, usize>,
    pub edges_by_kind: BTreeMap<String, usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focus: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focus_nodes: Option<usize>,
}

/// The Graphology part before its lists.
#[derive(Debug, Serialize)]
struct GraphologyHead<'a> {
    attributes: &'a GraphAttributes<'a>,
    options: GraphOptions,
}

/// The HTML part: where the page went and what it draws.
#[derive(Debug, Serialize)]
pub struct HtmlPart<'a> {
    pub output_path: &'a str,
    pub html_bytes: usize,
    pub node_count: usize,
    pub nodes_drawn: usize,
    pub max_nodes: usize,
    pub edge_count: usize,
    pub edges_drawn: usize,
    pub max_edges: usize,
    pub nodes_truncated: bool,
    pub edges_truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html: Option<&'a str>,
}

/// The checked place of the HTML page (absolute, project-relative).
fn page_path(root: &Path, args: &Args) -> Result<(PathBuf, String), ToolError> {
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
    Ok((abs, rel))
}

/// The answer when the focus names nothing of the graph.
fn focus_not_found(g: &Graph, f: &str, lod: Lod, warnings: Vec<String>) -> Success {
    let sugg = suggestions(g, f);
    let step = match sugg.first() {
        Some(s) => format!(
            "'{f}' is no file, folder, document or definition of the knowledge graph. Did you mean '{s}'?"
        ),
        None => format!(
            "'{f}' is no file, folder, document or definition of the knowledge graph; pass a project path or a definition name (Class.method)"
        ),
    };
    let payload = FocusNotFound {
        focus: f,
        lod: lod.as_str(),
        suggestions: sugg,
    };
    let mut s = with_payload(
        Success::new(
            Verdict::NotFound,
            format!("viz knowledge: focus '{f}' not found"),
        ),
        &payload,
    )
    .with_next_step(step);
    for w in warnings {
        s = s.with_warning(w);
    }
    s
}

/// The drawn graph: its attributes, nodes and edges with their totals.
struct Drawn<'a> {
    attributes: GraphAttributes<'a>,
    nodes: Vec<Value>,
    edges: Vec<Value>,
    node_total: usize,
    edge_total: usize,
    remedy: &'static str,
}

fn graphology_part(
    s: Success,
    d: Drawn<'_>,
    max_nodes: NonZeroUsize,
    max_edges: NonZeroUsize,
) -> Success {
    let head = GraphologyHead {
        attributes: &d.attributes,
        options: OPTIONS,
    };
    with_payload(s, &head)
        .with_list(
            ListSpelling {
                list_key: "nodes",
                total_key: "node_count",
                listed_key: "nodes_listed",
                cap_key: "max_nodes",
                noun: "nodes",
                remedy: d.remedy.into(),
            },
            Capped::counted(d.nodes, d.node_total, max_nodes),
        )
        .with_list(
            ListSpelling {
                list_key: "edges",
                total_key: "edge_count",
                listed_key: "edges_listed",
                cap_key: "max_edges",
                noun: "edges",
                remedy: d.remedy.into(),
            },
            Capped::counted(d.edges, d.edge_total, max_edges),
        )
        // A max_chars cut never leaves an edge to a dropped node
        // (Graphology refuses such an import).
        .with_link(ListLink {
            nodes: "nodes",
            key: "key",
            edges: "edges",
            ends: ["source", "target"],
        })
}

/// Writes the page and adds where it went; returns the answer and the next step.
#[allow(clippy::too_many_arguments)]
fn html_part(
    s: Success,
    d: &Drawn<'_>,
    out: (PathBuf, String),
    title: &str,
    max_nodes: NonZeroUsize,
    max_edges: NonZeroUsize,
    include_html: bool,
    follow: &str,
) -> Result<Success, ToolError> {
    let (abs, rel) = out;
    let graph = to_value(&PageGraph {
        attributes: &d.attributes,
        options: OPTIONS,
        nodes: &d.nodes,
        edges: &d.edges,
    });
    let html = page::render(title, &graph);
    sidecar::write_atomic(&abs, html.as_bytes())?;
    let (nodes_kept, edges_kept) = (d.nodes.len(), d.edges.len());
    let cut = nodes_kept < d.node_total || edges_kept < d.edge_total;
    let part = HtmlPart {
        output_path: &rel,
        html_bytes: html.len(),
        node_count: d.node_total,
        nodes_drawn: nodes_kept,
        max_nodes: max_nodes.get(),
        edge_count: d.edge_total,
        edges_drawn: edges_kept,
        max_edges: max_edges.get(),
        nodes_truncated: nodes_kept < d.node_total,
        edges_truncated: edges_kept < d.edge_total,
        html: include_html.then_some(html.as_str()),
    };
    Ok(with_payload(s, &part).with_next_step(if cut {
        format!(
            "showing {nodes_kept} of {} nodes and {edges_kept} of {} edges — {}. {follow}",
            d.node_total, d.edge_total, d.remedy
        )
    } else {
        follow.to_owned()
    }))
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
            ExportFormat::Html => Some(page_path(root, &args)?),
            ExportFormat::Graphology => None,
        };
        let lod = match args.lod.unwrap_or_default() {
            LodArg::Symbol => Lod::Symbol,
            LodArg::File => Lod::File,
            LodArg::Module => Lod::Module,
        };
        let opened = open_index(ctx)?;
        let cur = current(&opened.index, root)?;
        let warnings: Vec<String> = opened.built_now.into_iter().chain(cur.warnings).collect();
        let projected = view::project(&cur.graph, lod);
        let focus = args.focus.as_deref().map(str::trim);
        let seeds = match args.focus.as_deref() {
            Some(f) => match find_focus(root, &cur.graph, &projected, lod, f)? {
                Some(s) => s,
                None => return Ok(focus_not_found(&cur.graph, f, lod, warnings)),
            },
            None => Vec::new(),
        };
        let sel = view::select(&projected, &seeds, max_nodes.get(), max_edges.get());
        let (nodes, edges) = view::graphology(&projected, &sel, !seeds.is_empty());
        let project_name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let kinds = |rows: &[Value]| {
            count_kinds(rows.iter().filter_map(|n| n["attributes"]["kind"].as_str()))
        };
        let payload = KnowledgePayload {
            export_format: match format {
                ExportFormat::Graphology => "graphology",
                ExportFormat::Html => "html",
            },
            lod: lod.as_str(),
            source: cur.from,
            nodes_by_kind: kinds(&nodes),
            edges_by_kind: kinds(&edges),
            focus,
            focus_nodes: focus.map(|_| seeds.len()),
        };
        let summary = format!(
            "knowledge graph lod={}{}: {} of {} nodes, {} of {} edges",
            lod.as_str(),
            focus.map(|f| format!(" around {f}")).unwrap_or_default(),
            nodes.len(),
            sel.node_total,
            edges.len(),
            sel.edge_total
        );
        let drawn = Drawn {
            attributes: GraphAttributes {
                name: format!("knowledge graph of {project_name}"),
                lod: lod.as_str(),
                source: cur.from,
                node_count: sel.node_total,
                edge_count: sel.edge_total,
                focus,
            },
            nodes,
            edges,
            node_total: sel.node_total,
            edge_total: sel.edge_total,
            remedy: if focus.is_some() {
                "raise max_nodes / max_edges, or focus on something smaller"
            } else {
                "raise max_nodes / max_edges, pass focus, or use lod=module"
            },
        };
        let s = with_payload(Success::new(Verdict::Info, summary), &payload);
        let mut s = match out {
            None => graphology_part(s, drawn, max_nodes, max_edges).with_next_step(
                "Import the answer with Graphology (Graph.from), or draw it: viz action=knowledge export_format=html",
            ),
            Some(out) => html_part(
                s,
                &drawn,
                out,
                &format!("tsa knowledge graph: {project_name} ({})", lod.as_str()),
                max_nodes,
                max_edges,
                args.include_html.unwrap_or(false),
                "Open output_path in a browser: drag to pan, wheel to zoom, click a node for its neighbours",
            )?,
        };
        for w in warnings {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
