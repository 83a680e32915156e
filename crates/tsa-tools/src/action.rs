//! The action trait: typed arguments in, a success envelope (or a typed error) out.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tsa_envelope::Success;

use crate::{Context, ToolError};

/// One facade action. Its `Args` type is the single source of the MCP input schema,
/// the CLI flags and the strict parameter check.
pub trait Action: Send + Sync + 'static {
    type Args: DeserializeOwned + JsonSchema;
    const FACADE: &'static str;
    const NAME: &'static str;
    /// One line for the facade description.
    const SUMMARY: &'static str;
    /// A few words for `tools/list` (the summary and the schema are behind `help`).
    const BRIEF: &'static str;
    /// Accepted alternative parameter names: (alias, canonical).
    const ALIASES: &'static [(&'static str, &'static str)] = &[];

    fn run(&self, ctx: &Context, args: Self::Args) -> Result<Success, ToolError>;
}

/// Object-safe view of an [`Action`] for the registry.
pub trait DynAction: Send + Sync {
    fn facade(&self) -> &'static str;
    fn name(&self) -> &'static str;
    fn summary(&self) -> &'static str;
    fn brief(&self) -> &'static str;
    fn aliases(&self) -> &'static [(&'static str, &'static str)];
    /// The JSON schema of the arguments (inline, draft 2020-12), with the length
    /// limits of `arguments::annotate`, and the project paths marked
    /// (`project_path::MARKER`): what the dispatcher checks arguments against.
    fn marked_schema(&self) -> Map<String, Value>;
    /// [`DynAction::marked_schema`] as clients see it (`tools/list`, the CLI): the
    /// marker taken out.
    fn schema(&self) -> Map<String, Value> {
        let mut schema = Value::Object(self.marked_schema());
        crate::project_path::strip_marker(&mut schema);
        match schema {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
    /// The parameters that are project paths ([`crate::ProjectPath`]).
    fn path_params(&self) -> Vec<String> {
        crate::project_path::path_params(&self.marked_schema())
    }
    fn run_json(&self, ctx: &Context, args: Map<String, Value>) -> Result<Success, ToolError>;
}

/// The inline JSON schema of `T`.
pub fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>();
    match schema.to_value() {
        Value::Object(mut m) => {
            m.remove("$schema");
            m.remove("title");
            m
        }
        _ => Map::new(),
    }
}

impl<A: Action> DynAction for A {
    fn facade(&self) -> &'static str {
        A::FACADE
    }
    fn name(&self) -> &'static str {
        A::NAME
    }
    fn summary(&self) -> &'static str {
        A::SUMMARY
    }
    fn brief(&self) -> &'static str {
        A::BRIEF
    }
    fn aliases(&self) -> &'static [(&'static str, &'static str)] {
        A::ALIASES
    }
    fn marked_schema(&self) -> Map<String, Value> {
        let mut schema = schema_of::<A::Args>();
        crate::arguments::annotate(&mut schema);
        schema
    }
    fn run_json(&self, ctx: &Context, args: Map<String, Value>) -> Result<Success, ToolError> {
        // Project paths resolve against the root while the arguments are parsed.
        let parsed = crate::project_path::with_root(ctx.root().ok(), || {
            serde_path_to_error::deserialize::<_, A::Args>(Value::Object(args))
        });
        let args: A::Args = parsed.map_err(|e| {
            let path = e.path().to_string();
            let inner = crate::arguments::shorten(&e.into_inner().to_string());
            ToolError::Validation(if path == "." {
                inner
            } else {
                format!("parameter '{path}': {inner}")
            })
        })?;
        self.run(ctx, args)
    }
}
