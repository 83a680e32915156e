//! `search tql_schema`: the TQL reference (markdown): bases, attributes,
//! pseudo-classes, hop quantifiers, what needs data this index does not hold, and
//! examples that parse and run.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::hyphae::TQL_SCHEMA;
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::{Context, ToolError};

/// Arguments of `search tql_schema` (none beyond the universal ones).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {}

pub struct TqlSchema;

impl Action for TqlSchema {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "tql_schema";
    const SUMMARY: &'static str =
        "the TQL selector reference: bases, attributes, pseudo-classes, hop quantifiers, examples";
    const BRIEF: &'static str = "TQL reference";

    fn run(&self, _ctx: &Context, _args: Args) -> Result<Success, ToolError> {
        let mut s = Success::new(Verdict::Info, "tql_schema: the TQL reference".to_owned());
        s.insert("schema", json!(TQL_SCHEMA));
        Ok(s.with_next_step("Run a selector with search action=tql_execute selector=<selector>."))
    }
}
