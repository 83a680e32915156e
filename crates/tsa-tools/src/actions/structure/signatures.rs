//! `structure signatures`: one line per function or method of a file,
//! `name(params) -> ret  start-end`, grouped by owning type.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::file_table::signatures;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, to_value, with_payload};
use crate::actions::structure::common::load;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

const MAX_ROWS: usize = 300;

/// Arguments of `structure signatures`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file whose functions and methods to list.
    pub file_path: ProjectPath,
    /// Parse as this language instead of the one its extension names.
    #[serde(default)]
    pub language: Option<String>,
}

pub struct Signatures;

/// The payload of `structure signatures`, in answer order (the lines follow as a list).
#[derive(Clone, Debug, Serialize)]
pub struct SignaturesPayload<'a> {
    /// The file, project-relative.
    pub file_path: &'a str,
    /// The language it was parsed as.
    pub language: &'static str,
    /// Types with at least one method.
    pub class_count: usize,
}

impl Action for Signatures {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "signatures";
    const SUMMARY: &'static str = "one line per function/method of a file, `name(params) -> ret  start-end`, grouped by class";
    const BRIEF: &'static str = "signatures of a file";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let f = load(ctx, &args.file_path, args.language.as_deref())?;
        let (rows, class_count) = signatures(f.lang, &f.extract, &f.ordered());
        let n = rows.len();
        let payload = SignaturesPayload {
            file_path: &f.rel,
            language: f.lang.name(),
            class_count,
        };
        let mut out = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "signatures {}: {} functions/methods in {} classes",
                    f.rel, n, class_count
                ),
            ),
            &payload,
        );
        out = out.with_next_step(if n == 0 {
            format!(
                "{} declares no functions or methods; try structure action=outline",
                f.rel
            )
        } else {
            "callers of one: nav action=callers function_name=<Class.method>".to_owned()
        });
        Ok(out.with_list(
            ListSpelling {
                list_key: "signatures",
                total_key: "signature_count",
                listed_key: "signatures_listed",
                cap_key: "listed_cap",
                noun: "signatures",
                remedy: "use structure action=outline with a larger listed_cap, or action=class_detail per class".into(),
            },
            Capped::collect(rows.iter().map(to_value), fixed_cap(MAX_ROWS)),
        ))
    }
}
