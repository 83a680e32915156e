//! `health dead`: transitive dead code over the resolved call graph, unused imports
//! and unreferenced module-level variables (analyses.md §3; tools.md §5.2).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::health::deadcode::{Alive, DeadOptions, DeadReport, analyse};
use tsa_analysis::health::model::{Model, Scope};
use tsa_analysis::health::routes_scan::scan_project;
use tsa_analysis::trust::{Assessor, Completeness, Subject, Unsettled};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::Index;

use crate::action::Action;
use crate::actions::common::{cap, open_index};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `health dead`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// What to report: `all` (default), `dead_functions`, `unused_imports` or `variables`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Analyse functions in test files like any other (default false: test files are entry points and not reported).
    #[serde(default)]
    pub include_test_files: Option<bool>,
    /// Report only items under this project-relative path (whole segments; `.` = whole project). Reachability is always computed project-wide.
    #[serde(default)]
    pub path: Option<ProjectPath>,
    /// Most dead functions to list (default 50). Totals stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_dead: Option<i64>,
    /// Most unused import statements to list (default 50).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_imports: Option<i64>,
    /// Most unreferenced variables to list (default 50).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_variables: Option<i64>,
}

/// What `health dead` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    All,
    DeadFunctions,
    UnusedImports,
    Variables,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::All => "all",
            Mode::DeadFunctions => "dead_functions",
            Mode::UnusedImports => "unused_imports",
            Mode::Variables => "variables",
        }
    }
}

pub struct Dead;

/// Runs the analysis (also for other actions: overview). A function is reported
/// dead only when its callers are settled (the trust of the call graph): public
/// API, unresolved same-name call sites and an unknown graph keep it alive, with
/// that reason, and what it calls with it.
pub fn dead_report(
    ctx: &Context,
    index: &Index,
    model: &Model,
    scope: &Scope,
    opts: &DeadOptions,
) -> Result<DeadReport, ToolError> {
    let root = ctx.root()?;
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

impl Action for Dead {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "dead";
    const SUMMARY: &'static str = "transitive dead code (entry points: main, tests, exports, decorators, routes, trait impls, callbacks), unused imports, unreferenced variables";
    const BRIEF: &'static str = "dead code";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or(Mode::All);
        let max_dead = cap("max_dead", args.max_dead, 50)?;
        let max_imports = cap("max_imports", args.max_imports, 50)?;
        let max_vars = cap("max_variables", args.max_variables, 50)?;
        let root = ctx.root()?.to_path_buf();
        let scope = Scope::new(&root, args.path.as_deref())?;
        if !scope.as_str().is_empty()
            && scope.as_str() != "."
            && !root.join(scope.as_str()).exists()
        {
            return Err(ToolError::NotFound(scope.as_str().to_owned()));
        }
        let include_tests = args.include_test_files.unwrap_or(false);
        let opened = open_index(ctx)?;
        let model = Model::load(&opened.index)?;
        let want_functions = matches!(mode, Mode::All | Mode::DeadFunctions);
        let want_imports = matches!(mode, Mode::All | Mode::UnusedImports);
        let want_variables = matches!(mode, Mode::All | Mode::Variables);
        let report = dead_report(
            ctx,
            &opened.index,
            &model,
            &scope,
            &DeadOptions {
                include_test_files: include_tests,
                want_imports,
                want_variables,
            },
        )?;
        let reportable = |file_id: i64| {
            model
                .file(file_id)
                .is_some_and(|f| include_tests || !f.is_test)
        };
        let project_dead = report
            .dead
            .iter()
            .filter(|d| reportable(model.syms[d.sym].file_id))
            .count();
        let in_scope: Vec<&tsa_analysis::health::deadcode::DeadFunction> = report
            .dead
            .iter()
            .filter(|d| {
                let s = &model.syms[d.sym];
                reportable(s.file_id) && scope.holds(model.path_of(s.file_id))
            })
            .collect();
        let functions_in_scope = model
            .syms
            .iter()
            .filter(|s| {
                tsa_analysis::health::model::CALLABLE.contains(&s.kind.as_str())
                    && reportable(s.file_id)
                    && scope.holds(model.path_of(s.file_id))
            })
            .count();
        // Functions kept alive only because their callers cannot be settled (the
        // roots: what they call is kept with them).
        let uncertain: Vec<usize> = (0..model.syms.len())
            .filter(|&i| {
                let s = &model.syms[i];
                report.alive[i].is_some_and(Alive::uncertain)
                    && reportable(s.file_id)
                    && scope.holds(model.path_of(s.file_id))
            })
            .collect();
        let completeness = if uncertain
            .iter()
            .any(|&i| report.alive[i] == Some(Alive::Unknown))
        {
            Completeness::Unknown
        } else if uncertain.is_empty() {
            Completeness::Complete
        } else {
            Completeness::LowerBound
        };
        let dead_total = if want_functions { in_scope.len() } else { 0 };
        let imports_total = report.unused_imports.len();
        let vars_total = report.variables.len();
        let sum = dead_total + imports_total + vars_total;

        let dead_rows = Capped::collect(
            in_scope.iter().map(|d| {
                let s = &model.syms[d.sym];
                let callees: Vec<&str> = d
                    .dead_callees
                    .iter()
                    .take(10)
                    .map(|&c| model.syms[c].qualname.as_str())
                    .collect();
                let callers: Vec<&str> = d
                    .dead_callers
                    .iter()
                    .take(5)
                    .map(|&c| model.syms[c].qualname.as_str())
                    .collect();
                json!({
                    "name": s.name,
                    "qualified_name": s.qualname,
                    "kind": s.kind,
                    "file": model.path_of(s.file_id),
                    "line": s.line,
                    "end_line": s.end_line,
                    "language": model.file(s.file_id).map_or("", |f| f.language.as_str()),
                    "reason": d.reason,
                    "why": d.why,
                    "dead_callee_count": d.dead_callees.len(),
                    "dead_callees": callees.join(", "),
                    "dead_callers": callers.join(", "),
                })
            }),
            max_dead,
        );
        let import_rows = Capped::collect(
            report.unused_imports.iter().map(|u| {
                json!({"file": u.file, "line": u.line, "import_text": u.text, "unused_names": u.names.join(", ")})
            }),
            max_imports,
        );
        let var_rows = Capped::collect(
            report.variables.iter().map(
                |v| json!({"file": v.file, "name": v.name, "line": v.line, "language": v.language}),
            ),
            max_vars,
        );
        let stats = json!({
            "total_dead_functions_transitive": if want_functions { project_dead } else { 0 },
            "candidates_after_filters": dead_total,
            "functions_in_scope": functions_in_scope,
            "dead_functions_listed": if want_functions { dead_rows.listed() } else { 0 },
            "dead_functions_cap": max_dead.get(),
            "total_unused_imports": imports_total,
            "unused_imports_listed": import_rows.listed(),
            "unused_imports_cap": max_imports.get(),
            "total_unreferenced_variables": vars_total,
            "unreferenced_variables_listed": var_rows.listed(),
            "unreferenced_variables_cap": max_vars.get(),
            "total_functions": report.total_functions,
            "total_call_edges": report.total_call_edges,
            "alive_by": report.alive_by,
        });
        let verdict = match sum {
            0 => Verdict::Info,
            n if n > 20 => Verdict::Review,
            _ => Verdict::Caution,
        };
        let summary = if sum == 0 {
            "No dead code found in scope.".to_owned()
        } else {
            format!(
                "dead: {dead_total} dead function(s), {imports_total} unused import statement(s), {vars_total} unreferenced variable(s) in {}",
                scope.as_str()
            )
        };
        let mut s = Success::new(verdict, summary)
            .with("mode", mode.as_str())
            .with("project_root", root.to_string_lossy().as_ref())
            .with("path", scope.as_str())
            .with("include_test_files", include_tests)
            .with("stats", stats)
            .with(
                "entry_points",
                json!("main-like names per language, tests, exported API (Rust pub in library crates, JS/TS export, Go exported in non-main packages), public API (trust), names imported by other files, registering decorators/annotations, route handlers, dunders, trait impls and overrides, module-level code, and any name referenced outside dead code (callbacks, aliases, __all__, dynamic calls)"),
            );
        if want_functions {
            let rows = Capped::collect(
                uncertain.iter().map(|&i| {
                    let sym = &model.syms[i];
                    json!({
                        "name": sym.name,
                        "qualified_name": sym.qualname,
                        "file": model.path_of(sym.file_id),
                        "line": sym.line,
                        "reason": report.alive[i].map_or("", Alive::as_str),
                    })
                }),
                max_dead,
            );
            s = s
                .with("completeness", completeness.as_str())
                .with(
                    "verdict_basis",
                    json!([
                        "verdict by findings in scope: none INFO, 1-20 CAUTION, more REVIEW",
                        "a function is reported dead only when its callers are settled: public API, unresolved call sites of its name and an unknown call graph (symbol-tier language, file changed since the index was built) keep it and what it calls alive",
                        format!(
                            "completeness {}: {} function(s) in scope were not reported because their callers could not be settled (uncertain_functions)",
                            completeness.as_str(),
                            uncertain.len()
                        ),
                    ]),
                )
                .with_list(
                    ListSpelling {
                        list_key: "uncertain_functions",
                        total_key: "uncertain_functions_total",
                        listed_key: "uncertain_functions_shown",
                        cap_key: "uncertain_functions_limit",
                        noun: "functions whose callers could not be settled",
                        remedy: "raise max_dead or narrow with path".into(),
                    },
                    rows,
                );
            s = s.with_list(
                ListSpelling {
                    list_key: "dead_functions",
                    total_key: "dead_functions_total",
                    listed_key: "dead_functions_shown",
                    cap_key: "dead_functions_limit",
                    noun: "dead functions",
                    remedy: "raise max_dead or narrow with path".into(),
                },
                dead_rows,
            );
        }
        if want_imports {
            s = s.with_list(
                ListSpelling {
                    list_key: "unused_imports",
                    total_key: "unused_imports_total",
                    listed_key: "unused_imports_shown",
                    cap_key: "unused_imports_limit",
                    noun: "unused imports",
                    remedy: "raise max_imports or narrow with path".into(),
                },
                import_rows,
            );
        }
        if want_variables {
            s = s.with_list(
                ListSpelling {
                    list_key: "unreferenced_variables",
                    total_key: "unreferenced_variables_total",
                    listed_key: "unreferenced_variables_shown",
                    cap_key: "unreferenced_variables_limit",
                    noun: "unreferenced variables",
                    remedy: "raise max_variables or narrow with path".into(),
                },
                var_rows,
            );
        }
        let step = if sum == 0 {
            "Nothing to remove. Re-run with include_test_files=true to also check helpers in test files."
        } else {
            "Before deleting a dead function, confirm with nav action=callers and search action=content (reflection, string dispatch and external users are invisible to the index)."
        };
        s = s.with_next_step(step);
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
