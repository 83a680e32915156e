//! `health dead`: transitive dead code over the resolved call graph, unused imports
//! and unreferenced module-level variables (analyses.md §3; tools.md §5.2).

use std::collections::BTreeMap;
use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::health::dead::{ScopedDead, dead_report, scoped};
use tsa_analysis::health::deadcode::{Alive, DeadOptions, DeadReport};
use tsa_analysis::health::model::{Model, Scope};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
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

/// A dead function, as a row of `dead_functions`.
#[derive(Debug, Serialize)]
pub struct DeadFunctionRow<'a> {
    pub name: &'a str,
    pub qualified_name: &'a str,
    pub kind: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub end_line: u32,
    pub language: &'a str,
    pub reason: &'static str,
    pub why: &'a str,
    pub dead_callee_count: usize,
    /// The first 10, comma-separated.
    pub dead_callees: String,
    /// The first 5, comma-separated.
    pub dead_callers: String,
}

/// An unused import statement, as a row of `unused_imports`.
#[derive(Debug, Serialize)]
pub struct UnusedImportRow<'a> {
    pub file: &'a str,
    pub line: u32,
    pub import_text: &'a str,
    pub unused_names: String,
}

/// An unreferenced module-level variable, as a row of `unreferenced_variables`.
#[derive(Debug, Serialize)]
pub struct VariableRow<'a> {
    pub file: &'a str,
    pub name: &'a str,
    pub line: u32,
    pub language: &'a str,
}

/// A function kept alive only because its callers cannot be settled.
#[derive(Debug, Serialize)]
pub struct UncertainRow<'a> {
    pub name: &'a str,
    pub qualified_name: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub reason: &'static str,
}

/// The figures of `health dead`.
#[derive(Debug, Serialize)]
pub struct DeadStats<'a> {
    pub total_dead_functions_transitive: usize,
    pub candidates_after_filters: usize,
    pub functions_in_scope: usize,
    pub dead_functions_listed: usize,
    pub dead_functions_cap: usize,
    pub total_unused_imports: usize,
    pub unused_imports_listed: usize,
    pub unused_imports_cap: usize,
    pub total_unreferenced_variables: usize,
    pub unreferenced_variables_listed: usize,
    pub unreferenced_variables_cap: usize,
    pub total_functions: usize,
    pub total_call_edges: usize,
    pub alive_by: &'a BTreeMap<&'static str, usize>,
}

/// The payload of `health dead`, in answer order (the function part and the capped
/// lists follow it).
#[derive(Debug, Serialize)]
pub struct DeadPayload<'a> {
    pub mode: &'static str,
    pub project_root: String,
    pub path: &'a str,
    pub include_test_files: bool,
    pub stats: DeadStats<'a>,
    pub entry_points: &'static str,
}

/// The payload's function part (modes `all` and `dead_functions`).
#[derive(Debug, Serialize)]
pub struct FunctionsPart {
    pub completeness: &'static str,
    pub verdict_basis: [String; 3],
}

const ENTRY_POINTS: &str = "main-like names per language, tests, exported API (Rust pub in library crates, JS/TS export, Go exported in non-main packages), public API (trust), names imported by other files, registering decorators/annotations, route handlers, dunders, trait impls and overrides, module-level code, and any name referenced outside dead code (callbacks, aliases, __all__, dynamic calls)";

fn dead_row<'a>(model: &'a Model, report: &'a DeadReport, i: usize) -> DeadFunctionRow<'a> {
    let d = &report.dead[i];
    let s = &model.syms[d.sym];
    let names = |ids: &[usize], n: usize| {
        ids.iter()
            .take(n)
            .map(|&c| model.syms[c].qualname.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    DeadFunctionRow {
        name: &s.name,
        qualified_name: &s.qualname,
        kind: &s.kind,
        file: model.path_of(s.file_id),
        line: s.line,
        end_line: s.end_line,
        language: model.file(s.file_id).map_or("", |f| f.language.as_str()),
        reason: d.reason,
        why: &d.why,
        dead_callee_count: d.dead_callees.len(),
        dead_callees: names(&d.dead_callees, 10),
        dead_callers: names(&d.dead_callers, 5),
    }
}

/// The capped lists of the answer.
struct Lists {
    dead: Capped<serde_json::Value>,
    imports: Capped<serde_json::Value>,
    variables: Capped<serde_json::Value>,
}

fn lists(model: &Model, report: &DeadReport, sc: &ScopedDead, caps: [NonZeroUsize; 3]) -> Lists {
    Lists {
        dead: Capped::collect(
            sc.in_scope
                .iter()
                .map(|&i| to_value(&dead_row(model, report, i))),
            caps[0],
        ),
        imports: Capped::collect(
            report.unused_imports.iter().map(|u| {
                to_value(&UnusedImportRow {
                    file: &u.file,
                    line: u.line,
                    import_text: &u.text,
                    unused_names: u.names.join(", "),
                })
            }),
            caps[1],
        ),
        variables: Capped::collect(
            report.variables.iter().map(|v| {
                to_value(&VariableRow {
                    file: &v.file,
                    name: &v.name,
                    line: v.line,
                    language: &v.language,
                })
            }),
            caps[2],
        ),
    }
}

/// The function part: completeness, verdict basis and the uncertain and dead lists.
fn with_functions(
    s: Success,
    model: &Model,
    report: &DeadReport,
    sc: &ScopedDead,
    max_dead: NonZeroUsize,
    dead_rows: Capped<serde_json::Value>,
) -> Success {
    let uncertain = Capped::collect(
        sc.uncertain.iter().map(|&i| {
            let sym = &model.syms[i];
            to_value(&UncertainRow {
                name: &sym.name,
                qualified_name: &sym.qualname,
                file: model.path_of(sym.file_id),
                line: sym.line,
                reason: report.alive[i].map_or("", Alive::as_str),
            })
        }),
        max_dead,
    );
    let part = FunctionsPart {
        completeness: sc.completeness.as_str(),
        verdict_basis: [
            "verdict by findings in scope: none INFO, 1-20 CAUTION, more REVIEW".to_owned(),
            "a function is reported dead only when its callers are settled: public API, unresolved call sites of its name and an unknown call graph (symbol-tier language, file changed since the index was built) keep it and what it calls alive".to_owned(),
            format!(
                "completeness {}: {} function(s) in scope were not reported because their callers could not be settled (uncertain_functions)",
                sc.completeness.as_str(),
                sc.uncertain.len()
            ),
        ],
    };
    with_payload(s, &part)
        .with_list(
            ListSpelling::new(
                "uncertain_functions",
                "uncertain_functions_total",
                "uncertain_functions_shown",
                "uncertain_functions_limit",
                "functions whose callers could not be settled",
                "raise max_dead or narrow with path",
            ),
            uncertain,
        )
        .with_list(
            ListSpelling::new(
                "dead_functions",
                "dead_functions_total",
                "dead_functions_shown",
                "dead_functions_limit",
                "dead functions",
                "raise max_dead or narrow with path",
            ),
            dead_rows,
        )
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
            &root,
            &opened.index,
            &model,
            &scope,
            &DeadOptions {
                include_test_files: include_tests,
                want_imports,
                want_variables,
            },
        )?;
        let sc = scoped(&model, &report, &scope, include_tests);
        let dead_total = if want_functions { sc.in_scope.len() } else { 0 };
        let imports_total = report.unused_imports.len();
        let vars_total = report.variables.len();
        let sum = dead_total + imports_total + vars_total;
        let rows = lists(&model, &report, &sc, [max_dead, max_imports, max_vars]);
        let stats = DeadStats {
            total_dead_functions_transitive: if want_functions { sc.project_dead } else { 0 },
            candidates_after_filters: dead_total,
            functions_in_scope: sc.functions_in_scope,
            dead_functions_listed: if want_functions {
                rows.dead.listed()
            } else {
                0
            },
            dead_functions_cap: max_dead.get(),
            total_unused_imports: imports_total,
            unused_imports_listed: rows.imports.listed(),
            unused_imports_cap: max_imports.get(),
            total_unreferenced_variables: vars_total,
            unreferenced_variables_listed: rows.variables.listed(),
            unreferenced_variables_cap: max_vars.get(),
            total_functions: report.total_functions,
            total_call_edges: report.total_call_edges,
            alive_by: &report.alive_by,
        };
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
        let payload = DeadPayload {
            mode: mode.as_str(),
            project_root: root.to_string_lossy().into_owned(),
            path: scope.as_str(),
            include_test_files: include_tests,
            stats,
            entry_points: ENTRY_POINTS,
        };
        let mut s = with_payload(Success::new(verdict, summary), &payload);
        if want_functions {
            s = with_functions(s, &model, &report, &sc, max_dead, rows.dead);
        }
        if want_imports {
            s = s.with_list(
                ListSpelling::new(
                    "unused_imports",
                    "unused_imports_total",
                    "unused_imports_shown",
                    "unused_imports_limit",
                    "unused imports",
                    "raise max_imports or narrow with path",
                ),
                rows.imports,
            );
        }
        if want_variables {
            s = s.with_list(
                ListSpelling::new(
                    "unreferenced_variables",
                    "unreferenced_variables_total",
                    "unreferenced_variables_shown",
                    "unreferenced_variables_limit",
                    "unreferenced variables",
                    "raise max_variables or narrow with path",
                ),
                rows.variables,
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
