//! `set_project_path`: rebinds the session to another project root.

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tsa_envelope::{Success, Verdict};

use crate::{Context, ToolError};

/// Arguments of `set_project_path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Absolute path of an existing directory (not the filesystem root).
    pub project_path: String,
}

/// The input schema of `set_project_path`, with its length limit.
pub fn schema() -> Map<String, Value> {
    let mut schema = crate::action::schema_of::<Args>();
    crate::arguments::annotate(&mut schema);
    schema
}

pub fn run(ctx: &mut Context, args: Map<String, Value>) -> Result<Success, ToolError> {
    if !matches!(args.get("project_path"), Some(Value::String(s)) if !s.trim().is_empty()) {
        return Err(ToolError::Validation(
            "project_path parameter is required and must be a string".into(),
        ));
    }
    let args: Args = serde_path_to_error::deserialize(Value::Object(args)).map_err(|e| {
        ToolError::Validation(format!(
            "{}; allowed parameters: project_path",
            e.into_inner()
        ))
    })?;
    let path = args.project_path;
    let p = Path::new(&path);
    if !p.is_absolute() {
        return Err(ToolError::Validation(format!(
            "project_path must be an absolute path, got '{path}'"
        )));
    }
    let root = ctx.set_root(p)?;
    let shown = root.display().to_string();
    Ok(
        Success::new(Verdict::Info, format!("set_project_path: {shown}"))
            .with("status", "success")
            .with("project_root", shown)
            .with_next_step("Build the index: index action=full"),
    )
}
