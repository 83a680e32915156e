//! `edit plan_rename`: the preview of `edit rename`, alone: the sites, the blockers,
//! and the `plan_id` that `edit rename mode=apply` requires. Never writes.

use schemars::JsonSchema;
use serde::Deserialize;
use tsa_envelope::Success;

use crate::action::Action;
use crate::actions::edit::rename::{not_found, plan_for, preview};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `edit plan_rename`.
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
}

pub struct PlanRename;

/// Parameters that would make a preview write: refused by name before the call.
pub const PREVIEW_ONLY_REFUSED: [&str; 5] = ["apply", "dry_run", "force", "mode", "write"];

impl Action for PlanRename {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "plan_rename";
    const SUMMARY: &'static str = "preview a Python rename: every site, every blocker, and the plan_id edit rename mode=apply needs; never writes";
    const BRIEF: &'static str = "rename preview and plan_id";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("function_name", "symbol")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let Some(plan) = plan_for(ctx, &args.symbol, &args.new_name, args.file_path.as_ref())?
        else {
            return Ok(not_found(&args.symbol, &args.new_name));
        };
        Ok(preview(
            &plan,
            "apply it with edit action=rename mode=apply",
        ))
    }
}
