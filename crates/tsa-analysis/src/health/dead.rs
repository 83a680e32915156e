//! Dead code as `health dead` reports it: the transitive analysis of `deadcode` with
//! the trust of the call graph as its last word (a function is dead only when its
//! callers are settled), and what of it lies in a path scope.

use std::path::Path;

use tsa_index::Index;

use crate::error::ToolError;
use crate::health::deadcode::{Alive, DeadOptions, DeadReport, analyse};
use crate::health::model::{CALLABLE, Model, Scope};
use crate::health::routes_scan::scan_project;
use crate::trust::{Assessor, Completeness, Subject, Unsettled};

/// Runs the analysis (for `health dead` and `health overview`). A function is
/// reported dead only when its callers are settled (the trust of the call graph):
/// public API, unresolved same-name call sites and an unknown graph keep it alive,
/// with that reason, and what it calls with it.
pub fn dead_report(
    root: &Path,
    index: &Index,
    model: &Model,
    scope: &Scope,
    opts: &DeadOptions,
) -> Result<DeadReport, ToolError> {
    let files: Vec<String> = model.files.iter().map(|f| f.path.clone()).collect();
    let routes = scan_project(root, &files);
    let mut assessor = Assessor::new(index, root);
    let mut hook = |pending: &[usize]| -> Result<Vec<(usize, Alive)>, ToolError> {
        let subjects: Vec<Subject> = pending.iter().map(|&i| subject(model, i, 3)).collect();
        let why = assessor.unsettled(&subjects)?;
        Ok(pending
            .iter()
            .zip(why)
            .filter_map(|(&i, w)| {
                w.map(|w| {
                    let alive = match w {
                        Unsettled::NoGraph | Unsettled::Stale => Alive::Unknown,
                        Unsettled::Unresolved(_) => Alive::Unresolved,
                        Unsettled::PublicApi(_) => Alive::PublicApi,
                    };
                    (i, alive)
                })
            })
            .collect())
    };
    analyse(root, model, &routes, scope, opts, &mut hook)
}

/// The trust subject of model symbol `i`, with `depth` enclosing definitions.
fn subject(model: &Model, i: usize, depth: u32) -> Subject {
    let s = &model.syms[i];
    let file = model.file(s.file_id);
    let parent = s
        .parent
        .filter(|_| depth > 0)
        .and_then(|p| model.sym_at.get(&p))
        .map(|&p| Box::new(subject(model, p, depth - 1)));
    Subject {
        id: Some(s.id),
        name: s.name.clone(),
        qualname: s.qualname.clone(),
        kind: s.kind.clone(),
        owner: parent.as_ref().map(|p| p.name.clone()).or_else(|| {
            s.qualname
                .rsplit_once(['.', ':'])
                .map(|(o, _)| o.rsplit(['.', ':']).next().unwrap_or(o).to_owned())
                .filter(|o| !o.is_empty())
        }),
        file: model.path_of(s.file_id).to_owned(),
        language: file.map_or(String::new(), |f| f.language.clone()),
        signature: s.signature.clone(),
        line: s.line,
        is_test: s.is_test || file.is_some_and(|f| f.is_test),
        parent,
    }
}

/// What of a [`DeadReport`] lies in a path scope.
#[derive(Clone, Debug)]
pub struct ScopedDead {
    /// Dead functions of the whole project in reportable files.
    pub project_dead: usize,
    /// Indexes into `DeadReport::dead` of the dead functions in scope.
    pub in_scope: Vec<usize>,
    /// Callables in scope (reportable files).
    pub functions_in_scope: usize,
    /// Model symbols in scope kept alive only because their callers cannot be
    /// settled (the roots: what they call is kept with them).
    pub uncertain: Vec<usize>,
    /// How complete the dead list is.
    pub completeness: Completeness,
}

/// Unknown when any function is alive for an unknown graph, a lower bound when any
/// is alive for unresolved callers, else complete.
pub fn completeness_of(uncertain: impl IntoIterator<Item = Alive>) -> Completeness {
    let mut out = Completeness::Complete;
    for a in uncertain {
        if a == Alive::Unknown {
            return Completeness::Unknown;
        }
        out = Completeness::LowerBound;
    }
    out
}

/// The part of `report` in `scope`; test files count only with `include_tests`.
pub fn scoped(
    model: &Model,
    report: &DeadReport,
    scope: &Scope,
    include_tests: bool,
) -> ScopedDead {
    let reportable = |file_id: i64| {
        model
            .file(file_id)
            .is_some_and(|f| include_tests || !f.is_test)
    };
    let held = |file_id: i64| reportable(file_id) && scope.holds(model.path_of(file_id));
    let project_dead = report
        .dead
        .iter()
        .filter(|d| reportable(model.syms[d.sym].file_id))
        .count();
    let in_scope: Vec<usize> = (0..report.dead.len())
        .filter(|&i| held(model.syms[report.dead[i].sym].file_id))
        .collect();
    let functions_in_scope = model
        .syms
        .iter()
        .filter(|s| CALLABLE.contains(&s.kind.as_str()) && held(s.file_id))
        .count();
    let uncertain: Vec<usize> = (0..model.syms.len())
        .filter(|&i| report.alive[i].is_some_and(Alive::uncertain) && held(model.syms[i].file_id))
        .collect();
    let completeness = completeness_of(uncertain.iter().filter_map(|&i| report.alive[i]));
    ScopedDead {
        project_dead,
        in_scope,
        functions_in_scope,
        uncertain,
        completeness,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completeness_follows_the_least_settled_function() {
        assert_eq!(completeness_of([]), Completeness::Complete);
        assert_eq!(
            completeness_of([Alive::Unresolved]),
            Completeness::LowerBound
        );
        assert_eq!(
            completeness_of([Alive::Unresolved, Alive::Unknown, Alive::Unresolved]),
            Completeness::Unknown
        );
    }
}
