//! The file import graph answers shared by `health imports` and `health deps`:
//! direct dependencies and dependents, transitive blast radius, import cycles
//! (Tarjan SCC) and per-file coupling, every list capped with its exact total.

use std::num::NonZeroUsize;
use std::path::Path;

use serde_json::{Value, json};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::ToolError;
use crate::health::model::{FileGraph, Model};
use crate::security::resolve_in_root;

/// The graph and the model it came from.
pub struct Files<'a> {
    pub model: &'a Model,
    pub graph: FileGraph,
}

/// A file argument: the indexed file's id, or the NOT_FOUND answer to give.
pub enum FileArg {
    Found(i64, String),
    Missing(Success),
}

impl<'a> Files<'a> {
    pub fn new(model: &'a Model) -> Files<'a> {
        Files {
            model,
            graph: model.file_graph(),
        }
    }

    fn path(&self, id: i64) -> &str {
        self.model.path_of(id)
    }

    /// Resolves `file_path`; a file the index does not hold is NOT_FOUND with
    /// close paths as suggestions.
    pub fn file_arg(
        &self,
        root: &Path,
        tool: &str,
        input: Option<&str>,
    ) -> Result<FileArg, ToolError> {
        let Some(input) = input.filter(|s| !s.trim().is_empty()) else {
            return Err(ToolError::Validation(format!(
                "parameter 'file_path' is required for {tool} in this mode"
            )));
        };
        let (_, rel) = resolve_in_root(root, input)?;
        if let Some(id) = self.model.file_id_of(&rel) {
            return Ok(FileArg::Found(id, rel));
        }
        // Compared by its first 64 characters: the cost never grows with the input.
        let base =
            crate::suggest::clip(rel.rsplit('/').next().unwrap_or(&rel)).to_ascii_lowercase();
        let mut scored: Vec<(f64, &str)> = self
            .model
            .files
            .iter()
            .map(|f| {
                let b = f
                    .path
                    .rsplit('/')
                    .next()
                    .unwrap_or(&f.path)
                    .to_ascii_lowercase();
                (strsim::jaro_winkler(&base, &b), f.path.as_str())
            })
            .filter(|(s, _)| *s >= 0.75)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let suggestions: Vec<&str> = scored.into_iter().take(5).map(|(_, p)| p).collect();
        let exists = root.join(&rel).is_file();
        Ok(FileArg::Missing(
            Success::new(Verdict::NotFound, format!("{tool}: '{rel}' is not an indexed source file"))
                .with("file_path", rel.as_str())
                .with("suggestions", json!(suggestions))
                .with_next_step(if exists {
                    "The file exists but is not indexed (unsupported language or ignored); run index action=sync if it was just added.".to_owned()
                } else if let Some(s) = suggestions.first() {
                    format!("No such file in the index. Did you mean '{s}'?")
                } else {
                    "No such file in the index; list files with project action=files.".to_owned()
                }),
        ))
    }

    /// Direct imports of `file`: one row per imported file, plus unresolved modules.
    pub fn deps_rows(&self, file: i64) -> Vec<Value> {
        let mut rows: Vec<Value> = Vec::new();
        let mut by_target: std::collections::BTreeMap<&str, (u32, Vec<String>)> =
            Default::default();
        let mut unresolved: std::collections::BTreeMap<&str, u32> = Default::default();
        for i in self.model.imports.iter().filter(|i| i.file_id == file) {
            match i.target_file_id.filter(|t| *t != file) {
                Some(t) => {
                    let e = by_target
                        .entry(self.path(t))
                        .or_insert((i.line, Vec::new()));
                    if let Some(n) = &i.name {
                        e.1.push(n.clone());
                    }
                }
                None if i.target_file_id.is_none() => {
                    unresolved.entry(i.module.as_str()).or_insert(i.line);
                }
                None => {}
            }
        }
        for (f, (line, mut names)) in by_target {
            names.sort();
            names.dedup();
            // One flat row shape for both kinds (names space-separated): a TOON table.
            rows.push(json!({"file": f, "module": null, "line": line, "names": names.join(" "), "resolved": true}));
        }
        for (m, line) in unresolved {
            rows.push(
                json!({"file": null, "module": m, "line": line, "names": null, "resolved": false}),
            );
        }
        rows
    }

    /// Files importing `file` directly.
    pub fn dependents_rows(&self, file: i64) -> Vec<Value> {
        let mut out = std::collections::BTreeMap::<&str, (u32, Vec<String>)>::new();
        for i in self
            .model
            .imports
            .iter()
            .filter(|i| i.target_file_id == Some(file) && i.file_id != file)
        {
            let e = out
                .entry(self.path(i.file_id))
                .or_insert((i.line, Vec::new()));
            if let Some(n) = &i.name {
                e.1.push(n.clone());
            }
        }
        out.into_iter()
            .map(|(f, (line, mut names))| {
                names.sort();
                names.dedup();
                json!({"file": f, "line": line, "names": names.join(" ")})
            })
            .collect()
    }

    /// Transitive dependents of `file` within `max_depth`, nearest first.
    pub fn blast_rows(&self, file: i64, max_depth: usize) -> Vec<Value> {
        let mut reached = self.graph.reach(file, true, max_depth);
        reached.sort_by(|a, b| a.1.cmp(&b.1).then(self.path(a.0).cmp(self.path(b.0))));
        reached
            .into_iter()
            .map(|(f, d)| json!({"file": self.path(f), "depth": d}))
            .collect()
    }

    /// Transitive dependencies of `file` within `max_depth`, nearest first.
    pub fn reach_down_rows(&self, file: i64, max_depth: usize) -> Vec<Value> {
        let mut reached = self.graph.reach(file, false, max_depth);
        reached.sort_by(|a, b| a.1.cmp(&b.1).then(self.path(a.0).cmp(self.path(b.0))));
        reached
            .into_iter()
            .map(|(f, d)| json!({"file": self.path(f), "depth": d}))
            .collect()
    }

    pub fn cycle_rows(&self) -> Vec<Value> {
        self.graph
            .cycles()
            .into_iter()
            .map(|c| {
                let files: Vec<&str> = c.iter().map(|f| self.path(*f)).collect();
                json!({"size": files.len(), "files": files})
            })
            .collect()
    }

    /// Per file: afferent (importers), efferent (imported) and instability, most coupled first.
    pub fn coupling_rows(&self) -> Vec<Value> {
        let mut rows: Vec<(usize, &str, usize, usize)> = self
            .graph
            .deps
            .iter()
            .map(|(f, d)| {
                let ca = self.graph.rdeps.get(f).map_or(0, |s| s.len());
                (ca + d.len(), self.path(*f), ca, d.len())
            })
            .filter(|r| r.0 > 0)
            .collect();
        rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        rows.into_iter()
            .map(|(total, f, ca, ce)| {
                json!({
                    "file": f,
                    "afferent": ca,
                    "efferent": ce,
                    "total": total,
                    "instability": instability(ca, ce),
                })
            })
            .collect()
    }

    /// Summary numbers of the graph.
    pub fn summary(&self) -> Value {
        let resolved = self
            .model
            .imports
            .iter()
            .filter(|i| i.target_file_id.is_some())
            .count();
        let isolated = self
            .graph
            .deps
            .iter()
            .filter(|(f, d)| d.is_empty() && self.graph.rdeps.get(f).is_none_or(|r| r.is_empty()))
            .count();
        json!({
            "total_files": self.model.files.len(),
            "file_import_edges": self.graph.edge_count(),
            "import_statements": self.model.imports.len(),
            "resolved_to_project_files": resolved,
            "external_or_unresolved": self.model.imports.len() - resolved,
            "isolated_files": isolated,
            "cycle_count": self.graph.cycles().len(),
        })
    }
}

/// Instability I = Ce / (Ca + Ce), rounded to 3 places; 0 for an unconnected node.
pub fn instability(ca: usize, ce: usize) -> f64 {
    if ca + ce == 0 {
        return 0.0;
    }
    ((ce as f64 / (ca + ce) as f64) * 1000.0).round() / 1000.0
}

/// Attaches `rows` capped at `limit` under `key`.
pub fn attach(
    s: Success,
    key: &'static str,
    noun: &'static str,
    rows: Vec<Value>,
    limit: NonZeroUsize,
) -> Success {
    attach_with(s, key, noun, rows, limit, "raise limit")
}

/// Attaches `rows` capped at `limit` under `key`, naming the parameter that raises the cap.
pub fn attach_with(
    s: Success,
    key: &'static str,
    noun: &'static str,
    rows: Vec<Value>,
    limit: NonZeroUsize,
    remedy: &str,
) -> Success {
    let (total, listed) = list_keys(key);
    s.with_list(
        ListSpelling {
            list_key: key,
            total_key: total,
            listed_key: listed,
            cap_key: cap_key(key),
            noun,
            remedy: remedy.to_owned(),
        },
        Capped::collect(rows, limit),
    )
}

fn list_keys(key: &str) -> (&'static str, &'static str) {
    match key {
        "dependencies" => ("dependency_count", "dependencies_listed"),
        "dependents" => ("dependent_count", "dependents_listed"),
        "blast_radius" => ("affected_file_count", "blast_radius_listed"),
        "transitive_dependencies" => (
            "transitive_dependency_count",
            "transitive_dependencies_listed",
        ),
        "cycles" => ("cycle_count", "cycles_listed"),
        "coupling" => ("coupled_file_count", "coupling_listed"),
        "most_imported" => ("imported_file_count", "most_imported_listed"),
        "call_dependencies" => ("call_dependency_count", "call_dependencies_listed"),
        "call_dependents" => ("call_dependent_count", "call_dependents_listed"),
        "cells" => ("pair_count", "cells_listed"),
        "hotspots" => ("coupled_module_count", "hotspots_listed"),
        "unstable_modules" => ("unstable_module_count", "unstable_modules_listed"),
        "relations" => ("relation_count", "relations_listed"),
        "strongest_pairs" => ("pair_count", "strongest_pairs_listed"),
        "routes" => ("route_count", "routes_listed"),
        "entry_points" => ("entry_point_count", "entry_points_listed"),
        "hub_files" => ("hub_file_count", "hub_files_listed"),
        "dead_functions" => ("dead_function_count", "dead_functions_listed"),
        "coupled_files" => ("coupled_file_count", "coupled_files_listed"),
        "gaps" => ("gap_count", "gaps_listed"),
        "covered" => ("covered_count", "covered_listed"),
        "files" => ("file_count", "files_listed"),
        "functions" => ("function_count", "functions_listed"),
        _ => ("total", "listed"),
    }
}

fn cap_key(key: &str) -> &'static str {
    match key {
        "dependencies" => "dependencies_cap",
        "dependents" => "dependents_cap",
        "blast_radius" => "blast_radius_cap",
        "transitive_dependencies" => "transitive_dependencies_cap",
        "cycles" => "cycles_cap",
        "coupling" => "coupling_cap",
        "most_imported" => "most_imported_cap",
        "call_dependencies" => "call_dependencies_cap",
        "call_dependents" => "call_dependents_cap",
        "cells" => "cells_cap",
        "hotspots" => "hotspots_cap",
        "unstable_modules" => "unstable_modules_cap",
        "relations" => "relations_cap",
        "strongest_pairs" => "strongest_pairs_cap",
        "routes" => "routes_cap",
        "entry_points" => "entry_points_cap",
        "hub_files" => "hub_files_cap",
        "dead_functions" => "dead_functions_cap",
        "coupled_files" => "coupled_files_cap",
        "gaps" => "gaps_cap",
        "covered" => "covered_cap",
        "files" => "files_cap",
        "functions" => "functions_cap",
        _ => "cap",
    }
}

/// Verdict of a blast radius by how many files it reaches.
pub fn blast_verdict(affected: usize) -> Verdict {
    match affected {
        0 => Verdict::Safe,
        1..=3 => Verdict::Caution,
        4..=10 => Verdict::Review,
        _ => Verdict::Unsafe,
    }
}

/// Verdict of a cycle list.
pub fn cycles_verdict(cycles: usize) -> Verdict {
    if cycles == 0 {
        Verdict::Safe
    } else {
        Verdict::Review
    }
}
