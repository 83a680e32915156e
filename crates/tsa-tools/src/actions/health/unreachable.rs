//! `health unreachable`: statements that can never run inside functions, for one
//! file or the project (Python, JavaScript, TypeScript, Java, Go, C, C++, Rust).

use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::unreachable::{self, FileReport};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// file or project.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One file (file_path).
    #[default]
    File,
    /// Every source file of the project.
    Project,
}

/// Arguments of `health unreachable`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// file (default; needs file_path) or project.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// The file to analyse (mode=file).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Also analyse test files in project mode (default false).
    #[serde(default)]
    pub include_test_files: Option<bool>,
    /// Most files analysed in project mode (default 500); the rest are counted.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
}

pub struct Unreachable;

/// Files with findings listed in project mode.
const FILES_LISTED: usize = 200;

fn verdict(reports: &[FileReport]) -> Verdict {
    let warn = reports
        .iter()
        .flat_map(|r| &r.unreachable_blocks)
        .any(|b| b.severity == "warning");
    if warn {
        Verdict::Caution
    } else {
        Verdict::Info
    }
}

impl Action for Unreachable {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "unreachable";
    const SUMMARY: &'static str = "statements that can never run: after return/raise/throw/break/continue, an exiting call (sys.exit, os.Exit, panic!, ...), an infinite loop without break; branches of constant conditions";
    const BRIEF: &'static str = "unreachable code in functions";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        match args.mode.unwrap_or_default() {
            Mode::File => {
                let f = args.file_path.ok_or_else(|| {
                    ToolError::Validation("mode=file needs file_path (or pass mode=project)".into())
                })?;
                file(ctx, f)
            }
            Mode::Project => {
                let max = crate::actions::common::cap("max_files", args.max_files, 500)?;
                project(ctx, args.include_test_files.unwrap_or(false), max.get())
            }
        }
    }
}

fn file(ctx: &Context, f: ProjectPath) -> Result<Success, ToolError> {
    let rel = f.relative().to_owned();
    let lang = Language::from_path(&rel)
        .filter(|l| unreachable::supported(*l))
        .ok_or_else(|| ToolError::Language(rel.clone()))?;
    let bytes = tsa_analysis::security::read_in_root(ctx.root()?, &rel)?;
    let r = unreachable::analyse(&rel, lang, &bytes);
    let v = verdict(std::slice::from_ref(&r));
    let s = with_payload(
        Success::new(
            v,
            format!(
                "unreachable {rel}: {} block(s) in {} function(s)",
                r.unreachable_count, r.functions_analyzed
            ),
        ),
        &r,
    );
    Ok(if r.unreachable_count > 0 {
        s.with_next_step("Delete each block (or fix the statement before it that always leaves); check the function with health action=file.")
    } else {
        s.with_next_step("No unreachable statement in this file's functions.")
    })
}

fn project(ctx: &Context, tests: bool, max: usize) -> Result<Success, ToolError> {
    let scan = unreachable::scan_project(ctx.root()?, tests, max);
    let eligible = scan.eligible;
    let reports = scan.reports;
    let functions: usize = reports.iter().map(|r| r.functions_analyzed).sum();
    let blocks: usize = reports.iter().map(|r| r.unreachable_count).sum();
    let v = verdict(&reports);
    let with: Vec<&FileReport> = reports
        .iter()
        .filter(|r| r.unreachable_count > 0 || r.errors > 0)
        .collect();
    let scanned = reports.len();
    let truncated_by_max_files = eligible > scanned;
    let mut s = with_payload(
        Success::new(
            v,
            format!(
                "unreachable: {blocks} block(s) in {} of {} file(s) ({functions} functions)",
                with.len(),
                scanned
            ),
        ),
        &json!({
            "files_scanned": scanned,
            "files_eligible": eligible,
            "truncated_by_max_files": truncated_by_max_files,
            "total_functions_analyzed": functions,
            "total_unreachable_blocks": blocks,
        }),
    );
    if truncated_by_max_files {
        s = s.with_warning(format!(
            "{} of {eligible} files analysed (max_files); raise max_files for the rest",
            scanned
        ));
    }
    let n = with.len();
    let s = s.with_list(
        ListSpelling {
            list_key: "results",
            total_key: "files_with_issues",
            listed_key: "files_listed",
            cap_key: "listed_cap",
            noun: "files",
            remedy: "narrow with mode=file file_path=<file>".into(),
        },
        Capped::counted(
            with.into_iter().map(to_value).collect(),
            n,
            NonZeroUsize::new(FILES_LISTED).unwrap_or(NonZeroUsize::MIN),
        ),
    );
    Ok(if blocks > 0 {
        s.with_next_step("Open the first file with health action=unreachable mode=file file_path=<file> and delete each block.")
    } else {
        s.with_next_step("No unreachable statement found in the files analysed.")
    })
}
