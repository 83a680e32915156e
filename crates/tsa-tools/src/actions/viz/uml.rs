//! `viz uml`: Mermaid UML from the index (analyses §14): class diagrams from resolved
//! inheritance, package and component diagrams from the import graph, sequence
//! diagrams along the shortest call path, activity diagrams from a function's
//! parse tree, and a state diagram of an enum's members.

use std::collections::{BTreeSet, HashMap, HashSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::graph::{Dir, IndexGraph, One, depth_param, shortest_paths};
use tsa_analysis::mermaid;
use tsa_analysis::uml::{Grouping, activity_steps, class_id, import_weights};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{Index, SymbolRow};

use crate::action::Action;
use crate::actions::common::{cap, find_one, open_index, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Which diagram.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Diagram {
    #[default]
    Class,
    Package,
    Component,
    Sequence,
    Activity,
    State,
}

/// Arguments of `viz uml`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[serde(default)]
    pub diagram: Option<Diagram>,
    /// Sequence: the calling function.
    #[serde(default)]
    pub source: Option<String>,
    /// Sequence: the called function.
    #[serde(default)]
    pub target: Option<String>,
    /// Narrows a name to the definition in this file.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Sequence: the file defining `source`, when the name is ambiguous.
    #[serde(default)]
    pub source_file: Option<ProjectPath>,
    /// Sequence: the file defining `target`, when the name is ambiguous.
    #[serde(default)]
    pub target_file: Option<ProjectPath>,
    /// Class (class diagram focus) or enum (state diagram).
    #[serde(default)]
    pub class_name: Option<String>,
    /// Function of the activity diagram.
    #[serde(default)]
    pub function_name: Option<String>,
    /// Include test code (default false).
    #[serde(default)]
    pub include_tests: Option<bool>,
    /// Most edges drawn (default 100); totals stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_edges: Option<i64>,
    /// Levels of bases/subclasses around a focused class, or of a call path (default 8).
    #[serde(default)]
    pub max_depth: Option<i64>,
    /// Sequence: paths considered (default 3); the first is drawn.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_paths: Option<i64>,
    /// Package diagram: folder levels that make a package (default 2).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub package_depth: Option<i64>,
    /// Class diagram: draw bases outside the project too (default true).
    #[serde(default)]
    pub include_external_bases: Option<bool>,
    /// Most nodes drawn (default 50).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_nodes: Option<i64>,
}

pub struct Uml;

/// The payload every diagram shares, before its relations.
#[derive(Debug, Serialize)]
pub struct UmlPayload<'a> {
    pub diagram: &'static str,
    pub subject: &'a str,
    pub mermaid: String,
}

/// An inheritance edge of a class diagram.
#[derive(Debug, Serialize)]
pub struct ClassRelation {
    pub parent: String,
    pub child: String,
    pub kind: &'static str,
    /// Whether the base is a project class.
    pub resolved: bool,
}

/// Imports between two packages or components.
#[derive(Debug, Serialize)]
pub struct ImportRelation {
    pub from: String,
    pub to: String,
    pub imports: usize,
}

/// A call of a sequence diagram.
#[derive(Debug, Clone, Serialize)]
pub struct CallStep {
    pub from: String,
    pub to: String,
    pub line: u32,
}

/// A step of an activity diagram.
#[derive(Debug, Serialize)]
pub struct ActivityStep {
    pub step: &'static str,
    pub line: usize,
}

/// A state of a state diagram.
#[derive(Debug, Serialize)]
pub struct StateRow<'a> {
    pub state: &'a str,
}

/// A sequence diagram with no call path.
#[derive(Debug, Serialize)]
struct NoPath {
    diagram: &'static str,
    mermaid: &'static str,
}

/// How many shortest paths a sequence diagram had to choose from.
#[derive(Debug, Serialize)]
struct PathCount {
    path_count: u64,
}

fn diagram_name(d: Diagram) -> &'static str {
    match d {
        Diagram::Class => "class",
        Diagram::Package => "package",
        Diagram::Component => "component",
        Diagram::Sequence => "sequence",
        Diagram::Activity => "activity",
        Diagram::State => "state",
    }
}

/// The answer shape shared by every diagram: the Mermaid text and a capped list of
/// the relations it draws.
fn answer(
    diagram: Diagram,
    subject: &str,
    text: String,
    relations: Capped<Value>,
    next: &str,
) -> Success {
    let total = relations.total();
    let payload = UmlPayload {
        diagram: diagram_name(diagram),
        subject,
        mermaid: text,
    };
    with_payload(
        Success::new(
            Verdict::Info,
            format!("uml {}: {subject}, {total} relation(s)", payload.diagram),
        ),
        &payload,
    )
    .with_list(
        ListSpelling {
            list_key: "relations",
            total_key: "relation_count",
            listed_key: "relations_listed",
            cap_key: "max_edges",
            noun: "relations",
            remedy: "raise max_edges, or focus (class_name, file_path)".into(),
        },
        relations,
    )
    .with_next_step(next)
}

fn class_diagram(index: &Index, args: &Args, ctx: &Context) -> Result<Success, ToolError> {
    let max_edges = cap("max_edges", args.max_edges, 100)?;
    let max_nodes = cap("max_nodes", args.max_nodes, 50)?.get();
    let (depth, _) = depth_param("max_depth", args.max_depth, 8, 20)?;
    let external = args.include_external_bases.unwrap_or(true);
    let tests = args.include_tests.unwrap_or(false);
    let mut rows = index.all_bases()?;
    rows.retain(|r| tests || !r.symbol.is_test);
    let subject = match &args.class_name {
        Some(name) => {
            let def = match find_one(ctx, index, "uml", name, args.file_path.as_deref())? {
                One::Answer(s) => return Ok(s),
                One::Found(d, _) => d,
            };
            // The focused class, its bases and subclasses within max_depth.
            let mut keep: HashSet<i64> = HashSet::from([def.id]);
            for _ in 0..depth {
                let before = keep.len();
                for r in &rows {
                    let t = r.target.as_ref().map(|t| t.id);
                    if keep.contains(&r.symbol.id)
                        && let Some(t) = t
                    {
                        keep.insert(t);
                    }
                    if t.is_some_and(|t| keep.contains(&t)) {
                        keep.insert(r.symbol.id);
                    }
                }
                if keep.len() == before {
                    break;
                }
            }
            rows.retain(|r| keep.contains(&r.symbol.id));
            def.qualname
        }
        None => "project".to_owned(),
    };
    let mut edges: Vec<(String, String, &'static str, bool)> = Vec::new();
    for r in &rows {
        let (parent, resolved) = match &r.target {
            Some(t) => (t.name.clone(), true),
            None if external => (r.base_name.clone(), false),
            None => continue,
        };
        edges.push((parent, r.symbol.name.clone(), r.kind, resolved));
    }
    edges.sort();
    edges.dedup();
    let listed = Capped::collect(edges, max_edges);
    let mut classes: BTreeSet<String> = BTreeSet::new();
    for (p, c, _, _) in listed.items() {
        classes.insert(p.clone());
        classes.insert(c.clone());
    }
    let mut text = String::from("classDiagram\n");
    if listed.total() == 0 && args.class_name.is_none() {
        text.push_str("  class EmptyProject\n");
    }
    let shown: Vec<&String> = classes.iter().take(max_nodes).collect();
    let shown_set: HashSet<&String> = shown.iter().copied().collect();
    for c in &shown {
        text.push_str(&format!("  class {}\n", class_id(c)));
    }
    for (p, c, kind, _) in listed.items() {
        if shown_set.contains(p) && shown_set.contains(c) {
            let arrow = if *kind == "implements" {
                "<|.."
            } else {
                "<|--"
            };
            text.push_str(&format!("  {} {arrow} {}\n", class_id(p), class_id(c)));
        }
    }
    if listed.truncated() || classes.len() > max_nodes {
        text.push_str(&format!(
            "  note \"showing {} of {} inheritance edges, {} of {} classes\"\n",
            listed.listed(),
            listed.total(),
            shown.len(),
            classes.len()
        ));
    }
    let rel = listed.map(|(parent, child, kind, resolved)| {
        to_value(&ClassRelation {
            parent,
            child,
            kind,
            resolved,
        })
    });
    Ok(answer(
        Diagram::Class,
        &subject,
        text,
        rel,
        "Focus one hierarchy with class_name; structure action=class_detail lists members.",
    ))
}

/// Package (folders, `package_depth` levels) or component (files) diagram from
/// resolved imports between project files.
fn import_diagram(index: &Index, args: &Args, diagram: Diagram) -> Result<Success, ToolError> {
    let max_edges = cap("max_edges", args.max_edges, 100)?;
    let depth = cap("package_depth", args.package_depth, 2)?.get();
    let tests = args.include_tests.unwrap_or(false);
    let grouping = match diagram {
        Diagram::Package => Grouping::Packages(depth),
        _ => Grouping::Components,
    };
    // Every resolved import between two project files, in one query.
    let edges = import_weights(index, grouping, tests)?;
    let listed = Capped::collect(edges, max_edges);
    let mut nodes = Vec::new();
    let mut pairs = Vec::new();
    for ((a, b), _) in listed.items() {
        let (ia, ib) = (mermaid::node_id(a, "pkg"), mermaid::node_id(b, "pkg"));
        nodes.push((ia.clone(), a.replace('"', "'")));
        nodes.push((ib.clone(), b.replace('"', "'")));
        pairs.push((ia, ib));
    }
    let text = mermaid::flowchart("LR", &nodes, &pairs, listed.total())
        .replace("call edges", "import edges")
        .replace("No call edges found", "No import edges found");
    let rel = listed.map(|((from, to), imports)| to_value(&ImportRelation { from, to, imports }));
    Ok(answer(
        diagram,
        if diagram == Diagram::Package {
            "packages"
        } else {
            "components"
        },
        text,
        rel,
        "health action=imports mode=cycles finds import cycles between these.",
    ))
}

fn sequence(index: &Index, args: &Args, ctx: &Context) -> Result<Success, ToolError> {
    let (Some(src), Some(dst)) = (args.source.as_deref(), args.target.as_deref()) else {
        return Err(ToolError::Validation(
            "viz action=uml diagram=sequence needs source and target".into(),
        ));
    };
    let (depth, _) = depth_param("max_depth", args.max_depth, 8, 20)?;
    let max_paths = cap("max_paths", args.max_paths, 3)?.get();
    let a = match find_one(ctx, index, "uml", src, args.source_file.as_deref())? {
        One::Answer(s) => return Ok(s),
        One::Found(d, _) => d,
    };
    let b = match find_one(ctx, index, "uml", dst, args.target_file.as_deref())? {
        One::Answer(s) => return Ok(s),
        One::Found(d, _) => d,
    };
    let mut g = IndexGraph::new(index);
    let paths = shortest_paths(&mut g, &[a.id], &[b.id], Dir::Down, depth, max_paths)?;
    let Some(path) = paths.paths.first() else {
        return Ok(with_payload(
            Success::new(
                Verdict::NotFound,
                format!(
                    "uml sequence: no call path from {} to {} within {depth} calls",
                    a.qualname, b.qualname
                ),
            ),
            &NoPath {
                diagram: "sequence",
                mermaid: "sequenceDiagram\n  Note over caller: no call path found\n",
            },
        )
        .with_next_step("Raise max_depth, or check nav action=callers on the target."));
    };
    let ids: Vec<i64> = path.iter().map(|(n, _)| *n).collect();
    let syms: HashMap<i64, SymbolRow> = index.symbols_by_id(&ids)?;
    let name = |id: i64| {
        syms.get(&id)
            .map(|s| s.qualname.clone())
            .unwrap_or_default()
    };
    let mut text = String::from("sequenceDiagram\n");
    for id in &ids {
        text.push_str(&format!(
            "  participant {} as {}\n",
            class_id(&name(*id)),
            name(*id)
        ));
    }
    let mut steps = Vec::new();
    for w in path.windows(2) {
        let (from, to) = (w[0].0, w[1].0);
        let line = w[1].1.map(|h| h.line).unwrap_or(0);
        text.push_str(&format!(
            "  {}->>{}: calls (line {line})\n",
            class_id(&name(from)),
            class_id(&name(to))
        ));
        steps.push(CallStep {
            from: name(from),
            to: name(to),
            line,
        });
    }
    let listed = Capped::counted(
        steps.iter().map(to_value).collect(),
        steps.len(),
        cap("max_edges", args.max_edges, 100)?,
    );
    Ok(with_payload(
        answer(
            Diagram::Sequence,
            &format!("{} -> {}", a.qualname, b.qualname),
            text,
            listed,
            "nav action=call_path lists every shortest path with bodies.",
        ),
        &PathCount {
            path_count: paths.total,
        },
    ))
}

/// Control flow of one function: one node per branching or looping statement in
/// source order, with the branches and loop-backs of the parse tree.
fn activity(index: &Index, args: &Args, ctx: &Context) -> Result<Success, ToolError> {
    let Some(name) = args.function_name.as_deref() else {
        return Err(ToolError::Validation(
            "viz action=uml diagram=activity needs function_name".into(),
        ));
    };
    let def = match find_one(ctx, index, "uml", name, args.file_path.as_deref())? {
        One::Answer(s) => return Ok(s),
        One::Found(d, _) => d,
    };
    let steps = activity_steps(ctx.root()?, &def)?;
    let mut mm = String::from("flowchart TD\n    start([\"start ");
    mm.push_str(&def.qualname.replace('"', "'"));
    mm.push_str("\"])\n");
    let mut prev = "start".to_owned();
    let mut rel = Vec::new();
    for (i, (kind, line)) in steps.iter().enumerate() {
        let id = format!("s{i}");
        let label = format!("{kind} (line {line})");
        let shape = match *kind {
            "decision" => format!("{id}{{\"{label}\"}}"),
            "return" => format!("{id}([\"{label}\"])"),
            _ => format!("{id}[\"{label}\"]"),
        };
        mm.push_str(&format!("    {shape}\n    {prev} --> {id}\n"));
        if *kind == "loop" {
            mm.push_str(&format!("    {id} -->|repeat| {id}\n"));
        }
        rel.push(to_value(&ActivityStep {
            step: kind,
            line: *line,
        }));
        prev = id;
    }
    mm.push_str(&format!("    done([\"end\"])\n    {prev} --> done\n"));
    let listed = Capped::collect(rel, cap("max_edges", args.max_edges, 100)?);
    Ok(answer(
        Diagram::Activity,
        &def.qualname,
        mm,
        listed,
        "health action=heatmap mode=function gives this function's complexity.",
    ))
}

/// An enum's members as states (the index knows no transitions: none are drawn).
fn state(index: &Index, args: &Args, ctx: &Context) -> Result<Success, ToolError> {
    let Some(name) = args.class_name.as_deref() else {
        return Err(ToolError::Validation(
            "viz action=uml diagram=state needs class_name (an enum)".into(),
        ));
    };
    let def = match find_one(ctx, index, "uml", name, args.file_path.as_deref())? {
        One::Answer(s) => return Ok(s),
        One::Found(d, _) => d,
    };
    let members = index.members_of(&def)?;
    let states: Vec<String> = members
        .iter()
        .filter(|m| !matches!(m.kind.as_str(), "function" | "method"))
        .map(|m| m.name.clone())
        .collect();
    let mut text = String::from("stateDiagram-v2\n");
    for s in &states {
        text.push_str(&format!("    {}\n", class_id(s)));
    }
    if states.is_empty() {
        text.push_str("    note \"no members found\"\n");
    }
    let listed = Capped::collect(
        states.iter().map(|s| to_value(&StateRow { state: s })),
        cap("max_nodes", args.max_nodes, 50)?,
    );
    Ok(answer(
        Diagram::State,
        &def.qualname,
        text,
        listed,
        "States only: transitions are not known statically; read the code that assigns them.",
    )
    .with_warning("state_approximation: members of the type are drawn as states; no transitions"))
}

impl Action for Uml {
    type Args = Args;
    const FACADE: &'static str = "viz";
    const NAME: &'static str = "uml";
    const SUMMARY: &'static str = "Mermaid UML: class (inheritance), package/component (imports), sequence (call path), activity, state";
    const BRIEF: &'static str = "Mermaid UML diagrams";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("symbol", "class_name")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let diagram = args.diagram.unwrap_or_default();
        let mut s = match diagram {
            Diagram::Class => class_diagram(index, &args, ctx)?,
            Diagram::Package | Diagram::Component => import_diagram(index, &args, diagram)?,
            Diagram::Sequence => sequence(index, &args, ctx)?,
            Diagram::Activity => activity(index, &args, ctx)?,
            Diagram::State => state(index, &args, ctx)?,
        };
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
