//! The project at a glance for `health overview`: entry points (functions alive by
//! their own rule), hub files (most dependent files), production dead code and the
//! project's figures.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::health::deadcode::{Alive, DeadReport};
use crate::health::files::Files;
use crate::health::model::{CALLABLE, Model};

/// A function alive by its own rule (not merely reached).
#[derive(Clone, Debug, Serialize)]
pub struct EntryRow<'a> {
    pub name: &'a str,
    pub file: &'a str,
    pub line: u32,
    /// The rule: `entry_point_name`, `route_handler`, ...
    pub kind: &'static str,
}

/// The callables alive as entry-point names, route handlers, registered by a
/// decorator or called from module code, in model order.
pub fn entry_points<'a>(model: &'a Model, report: &DeadReport) -> Vec<EntryRow<'a>> {
    model
        .syms
        .iter()
        .zip(&report.alive)
        .filter(|(_, a)| {
            matches!(
                a,
                Some(Alive::EntryName | Alive::RouteHandler | Alive::Decorated | Alive::ModuleCode)
            )
        })
        .filter(|(s, _)| CALLABLE.contains(&s.kind.as_str()))
        .map(|(s, a)| EntryRow {
            name: &s.qualname,
            file: model.path_of(s.file_id),
            line: s.line,
            kind: a.map_or("", Alive::as_str),
        })
        .collect()
}

/// A file other files depend on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HubRow<'a> {
    pub file: &'a str,
    /// Distinct files importing it or calling into it.
    pub dependent_files: usize,
    pub importers: usize,
    pub incoming_calls: u64,
}

/// Files with dependents, most dependent files first (then most incoming calls,
/// then by path).
pub fn hub_files<'a>(model: &'a Model, files: &Files<'_>) -> Vec<HubRow<'a>> {
    let mut fan_in: FxHashMap<i64, (usize, u64)> = FxHashMap::default();
    for (f, r) in &files.graph.rdeps {
        fan_in.entry(*f).or_default().0 = r.len();
    }
    let mut callers_in: FxHashMap<i64, FxHashSet<i64>> = FxHashMap::default();
    for ((cf, tf), n) in &model.file_call_counts() {
        callers_in.entry(*tf).or_default().insert(*cf);
        fan_in.entry(*tf).or_default().1 += n;
    }
    let mut hubs: Vec<HubRow<'a>> = fan_in
        .iter()
        .map(|(f, (importers, incoming))| {
            let mut dependents: FxHashSet<i64> = files
                .graph
                .rdeps
                .get(f)
                .into_iter()
                .flatten()
                .copied()
                .collect();
            dependents.extend(callers_in.get(f).into_iter().flatten().copied());
            dependents.remove(f);
            HubRow {
                file: model.path_of(*f),
                dependent_files: dependents.len(),
                importers: *importers,
                incoming_calls: *incoming,
            }
        })
        .filter(|h| h.dependent_files > 0)
        .collect();
    rank_hubs(&mut hubs);
    hubs
}

fn rank_hubs(hubs: &mut [HubRow<'_>]) {
    hubs.sort_by(|a, b| {
        b.dependent_files
            .cmp(&a.dependent_files)
            .then(b.incoming_calls.cmp(&a.incoming_calls))
            .then(a.file.cmp(b.file))
    });
}

/// A dead function of production code.
#[derive(Clone, Debug, Serialize)]
pub struct DeadRow<'a> {
    pub name: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub reason: &'static str,
}

/// The dead functions outside test files, in the report's order.
pub fn dead_production<'a>(model: &'a Model, report: &DeadReport) -> Vec<DeadRow<'a>> {
    report
        .dead
        .iter()
        .filter(|d| {
            model
                .file(model.syms[d.sym].file_id)
                .is_some_and(|f| !f.is_test)
        })
        .map(|d| {
            let s = &model.syms[d.sym];
            DeadRow {
                name: &s.qualname,
                file: model.path_of(s.file_id),
                line: s.line,
                reason: d.reason,
            }
        })
        .collect()
}

/// Dead / all functions, 3 decimals (0 without functions).
pub fn dead_ratio(dead: usize, functions: usize) -> f64 {
    if functions == 0 {
        0.0
    } else {
        (dead as f64 / functions as f64 * 1000.0).round() / 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hubs_rank_by_dependents_then_calls_then_path_and_ratio_rounds() {
        let hub = |file, dependent_files, incoming_calls| HubRow {
            file,
            dependent_files,
            importers: 0,
            incoming_calls,
        };
        let mut v = vec![
            hub("b", 1, 5),
            hub("a", 1, 5),
            hub("c", 3, 0),
            hub("d", 1, 9),
        ];
        rank_hubs(&mut v);
        let order: Vec<&str> = v.iter().map(|h| h.file).collect();
        assert_eq!(order, ["c", "d", "a", "b"]);
        assert_eq!(dead_ratio(0, 0), 0.0);
        assert_eq!(dead_ratio(1, 3), 0.333);
    }
}
