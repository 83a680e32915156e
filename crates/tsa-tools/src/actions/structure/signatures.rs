//! `structure signatures`: one line per function or method of a file,
//! `name(params) -> ret  start-end`, grouped by owning type.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::fixed_cap;
use crate::actions::structure::common::{load, signature_line};
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

impl Action for Signatures {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "signatures";
    const SUMMARY: &'static str = "one line per function/method of a file, `name(params) -> ret  start-end`, grouped by class";
    const BRIEF: &'static str = "signatures of a file";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let f = load(ctx, &args.file_path, args.language.as_deref())?;
        let x = &f.extract;
        // Groups in order of first appearance: module-level functions under `null`.
        let mut groups: Vec<(Option<String>, Vec<usize>)> = Vec::new();
        for i in f.ordered() {
            let d = &x.defs[i];
            if !d.kind.is_callable() {
                continue;
            }
            let key = d.owner.clone();
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(i),
                None => groups.push((key, vec![i])),
            }
        }
        let class_count = groups.iter().filter(|(k, _)| k.is_some()).count();
        let rows: Vec<_> = groups
            .iter()
            .flat_map(|(k, v)| {
                v.iter().map(move |&i| {
                    json!({
                        "class": k,
                        "signature": signature_line(f.lang, &x.defs[i]),
                    })
                })
            })
            .collect();
        let n = rows.len();
        let mut out = Success::new(
            Verdict::Info,
            format!(
                "signatures {}: {} functions/methods in {} classes",
                f.rel, n, class_count
            ),
        )
        .with("file_path", f.rel.clone())
        .with("language", f.lang.name())
        .with("class_count", class_count);
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
            Capped::collect(rows, fixed_cap(MAX_ROWS)),
        ))
    }
}
