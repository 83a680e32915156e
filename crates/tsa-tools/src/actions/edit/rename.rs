//! `edit rename`: preview (default) or apply a rename of one module-level Python
//! function or class. Apply requires the `plan_id` of a preview and re-plans from
//! the disk: only an identical plan is written, every file atomically and all of
//! them or none; the index is then synced. `edit plan_rename` is the preview alone.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tsa_analysis::rename::{self, Plan, Planned, SITES_LISTED};
use tsa_envelope::{Capped, ErrorType, Failure, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{build_index, to_value};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// preview or apply.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// List the sites and return a plan_id (default; writes nothing).
    #[default]
    Preview,
    /// Write the plan named by plan_id.
    Apply,
}

/// Arguments of `edit rename`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The Python function or class to rename (unqualified, module level).
    pub symbol: String,
    /// Its new name.
    pub new_name: String,
    /// The file defining it, when several files define the name.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// preview (default) or apply.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// With mode=apply: the plan_id of the preview to apply.
    #[serde(default)]
    pub plan_id: Option<String>,
}

pub struct Rename;

/// How long a preview is advertised to stay valid (the check is the content hash).
const PLAN_TTL_SECS: u64 = 600;
/// Above this many files a preview is CAUTION.
const WIDE_FILES: usize = 20;

fn coded(t: ErrorType, code: &str, error: String, hint: &str) -> Failure {
    Failure::new(t, error)
        .with_hint(hint)
        .with("error_code", code)
}

/// The failure of a plan with rejections: the first code, every rejection listed.
fn rejected(plan: &Plan) -> ToolError {
    let first = &plan.errors[0];
    let at = match (&first.file, first.line) {
        (Some(f), Some(l)) => format!(" ({f}:{l})"),
        (Some(f), None) => format!(" ({f})"),
        _ => String::new(),
    };
    ToolError::Coded(Box::new(
        coded(
            ErrorType::Validation,
            first.code,
            format!("{}{at}", first.message),
            "The rename cannot be proven safe; see errors (code, file, line). Resolve them, or rename by hand.",
        )
        .with("symbol", plan.symbol.as_str())
        .with("new_name", plan.new_name.as_str())
        .with("errors", to_value(&plan.errors))
        .with("sites", json!([])),
    ))
}

/// Checks the names, then plans. `Ok(None)`: no definition of the name.
pub(crate) fn plan_for(
    ctx: &Context,
    symbol: &str,
    new_name: &str,
    file: Option<&ProjectPath>,
) -> Result<Option<Plan>, ToolError> {
    rename::validate(symbol, new_name).map_err(|e| {
        ToolError::Coded(Box::new(coded(
            ErrorType::Validation,
            "INVALID_ARGUMENT",
            e,
            "Pass symbol and new_name as plain Python identifiers.",
        )))
    })?;
    if let Some(f) = file
        && !f.relative().ends_with(".py")
    {
        return Err(ToolError::Coded(Box::new(coded(
            ErrorType::LanguageUnsupported,
            "LANGUAGE_UNSUPPORTED",
            format!(
                "rename supports Python definitions only; '{}' is not a .py file",
                f.relative()
            ),
            "Rename definitions of other languages with your editor's language server.",
        ))));
    }
    let root = ctx.root()?;
    match rename::plan(root, symbol, new_name, file.map(ProjectPath::relative))? {
        Planned::NotFound => Ok(None),
        Planned::Plan(p) if !p.errors.is_empty() => Err(rejected(&p)),
        Planned::Plan(p) => Ok(Some(*p)),
    }
}

/// The NOT_FOUND answer for a name no Python file defines.
pub(crate) fn not_found(symbol: &str, new_name: &str) -> Success {
    let mut s = Success::new(
        Verdict::NotFound,
        format!("rename {symbol} -> {new_name}: no Python definition of '{symbol}'"),
    );
    s.insert("symbol", json!(symbol));
    s.insert("new_name", json!(new_name));
    s.insert("sites", json!([]));
    s.with_next_step(format!(
        "No module-level Python function or class is named '{symbol}'; find it with search action=symbol query={symbol}."
    ))
}

/// The preview answer (`apply_hint`: how this surface applies it).
pub(crate) fn preview(plan: &Plan, apply_hint: &str) -> Success {
    rename::remember(plan);
    let id = plan.plan_id();
    let files = plan.files_affected();
    let wide = files.len() > WIDE_FILES;
    let verdict = if wide || plan.public_api.is_some() {
        Verdict::Caution
    } else {
        Verdict::Info
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let hashes: Map<String, Value> = plan
        .files
        .iter()
        .map(|f| (f.path.clone(), json!(f.sha256)))
        .collect();
    let mut s = Success::new(
        verdict,
        format!(
            "rename {} -> {}: {} site(s) in {} file(s)",
            plan.symbol,
            plan.new_name,
            plan.sites.len(),
            files.len()
        ),
    );
    for (k, v) in [
        ("symbol", json!(plan.symbol)),
        ("new_name", json!(plan.new_name)),
        ("dry_run", json!(true)),
        (
            "definition",
            json!(
                plan.definition
                    .as_ref()
                    .map(|(f, l)| json!({"file": f, "line": l}))
            ),
        ),
        ("plan_id", json!(id)),
        ("expires_at", json!(now + PLAN_TTL_SECS)),
        ("files_changed", json!(0)),
        ("sites_renamed", json!(0)),
        ("files_affected", json!(files)),
        ("file_hashes", Value::Object(hashes)),
        ("errors", json!([])),
        ("public_api", json!(plan.public_api)),
        ("unrelated_mention_count", json!(plan.unrelated_total)),
        ("unrelated_mentions", to_value(&plan.unrelated)),
    ] {
        s.insert(k, v);
    }
    for w in &plan.warnings {
        s = s.with_warning(w.clone());
    }
    if let Some(p) = &plan.public_api {
        s = s.with_warning(p.clone());
    }
    if wide {
        s = s.with_warning(format!("the rename touches {} files", files.len()));
    }
    let hint = format!(
        "would rename {} site(s) across {} file(s); {apply_hint} plan_id={id}",
        plan.sites.len(),
        files.len()
    );
    s.with_list(
        ListSpelling {
            list_key: "sites",
            total_key: "site_count",
            listed_key: "sites_listed",
            cap_key: "listed_cap",
            noun: "sites",
            remedy: "every site is applied; the list is only cut for reading".into(),
        },
        Capped::collect(
            plan.sites.iter().map(to_value),
            std::num::NonZeroUsize::new(SITES_LISTED).unwrap_or(std::num::NonZeroUsize::MIN),
        ),
    )
    .with_next_step(hint)
}

impl Action for Rename {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "rename";
    const SUMMARY: &'static str = "rename a module-level Python function or class and every proven reference: preview returns the sites and a plan_id; mode=apply with that plan_id writes it (atomic, all files or none), refused if anything changed";
    const BRIEF: &'static str = "rename: preview, or apply a plan_id";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("function_name", "symbol")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or_default();
        if mode == Mode::Apply && args.plan_id.as_deref().is_none_or(|p| p.trim().is_empty()) {
            return Err(ToolError::Coded(Box::new(coded(
                ErrorType::Validation,
                "PLAN_ID_REQUIRED",
                "mode=apply requires the plan_id of a preview".into(),
                "Call edit action=plan_rename (or rename mode=preview) and pass its plan_id.",
            ))));
        }
        // Plan and apply under one lock: two applies in this process never interleave.
        let _applying = (mode == Mode::Apply)
            .then(|| rename::APPLYING.lock().unwrap_or_else(|e| e.into_inner()));
        let Some(plan) = plan_for(ctx, &args.symbol, &args.new_name, args.file_path.as_ref())?
        else {
            return Ok(not_found(&args.symbol, &args.new_name));
        };
        if mode == Mode::Preview {
            return Ok(preview(
                &plan,
                "apply it with edit action=rename mode=apply",
            ));
        }
        apply(ctx, &plan, args.plan_id.as_deref().unwrap_or_default())
    }
}

fn apply(ctx: &Context, plan: &Plan, asked: &str) -> Result<Success, ToolError> {
    let root = ctx.root()?;
    let id = plan.plan_id();
    if id != asked {
        let changed = rename::changed_since(asked, root);
        return Err(ToolError::Coded(Box::new(
            coded(
                ErrorType::Validation,
                "PLAN_STALE",
                format!("the plan changed since plan_id {asked} was previewed; nothing was written"),
                "Preview again (edit action=plan_rename), review the new sites, and apply the new plan_id.",
            )
            .with("plan_id", id)
            .with("changed_files", json!(changed)),
        )));
    }
    let hashes = rename::apply(root, plan).map_err(|e| {
        let hint = if e.unrestored.is_empty() {
            "Nothing was renamed: every file written so far was restored. Fix the cause and apply again."
        } else {
            "Some files could not be restored and hold the renamed text (unrestored_files): restore them from version control before anything else."
        };
        ToolError::Coded(Box::new(
            coded(ErrorType::Internal, e.code, e.message, hint)
                .with("restored_files", json!(e.restored))
                .with("unrestored_files", json!(e.unrestored)),
        ))
    })?;
    let synced = build_index(ctx, &ctx.build_options());
    let mut s = Success::new(
        Verdict::Info,
        format!(
            "renamed {} -> {}: {} site(s) in {} file(s)",
            plan.symbol,
            plan.new_name,
            plan.sites.len(),
            plan.files.len()
        ),
    );
    let new_hashes: Map<String, Value> = hashes.into_iter().map(|(p, h)| (p, json!(h))).collect();
    for (k, v) in [
        ("symbol", json!(plan.symbol)),
        ("new_name", json!(plan.new_name)),
        ("dry_run", json!(false)),
        ("plan_id", json!(id)),
        ("files_changed", json!(plan.files.len())),
        ("sites_renamed", json!(plan.sites.len())),
        ("files_affected", json!(plan.files_affected())),
        ("new_file_hashes", Value::Object(new_hashes)),
        ("errors", json!([])),
    ] {
        s.insert(k, v);
    }
    if let Err(e) = synced {
        s = s.with_warning(format!(
            "the files were renamed but the index was not synced: {e}"
        ));
    }
    for w in &plan.warnings {
        s = s.with_warning(w.clone());
    }
    Ok(s.with_next_step(format!(
        "Check what the rename touched: edit action=impact, then run the project's tests; nav action=callers function_name={} confirms the new bindings.",
        plan.new_name
    )))
}
