//! `project skills`: the agent skills (procedures + the tools each uses) shipped with
//! tsa and those the project keeps, and whether each is installed in the project.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::skills::{BUILTIN, DEFAULT_DIR, Skill, in_dir, parse};
use crate::{Context, ToolError};

/// Arguments of `project skills`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Project folder holding `<name>/SKILL.md` skills (default `.claude/skills`).
    #[serde(default)]
    pub skills_root: Option<ProjectPath>,
    /// Most skills to list (default 50).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Skills;

/// A skill, as a row of `skills`.
#[derive(Debug, Serialize)]
pub struct SkillRow<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub tools: String,
    pub steps: usize,
    /// `builtin` or `project`.
    pub source: &'static str,
    pub installed: bool,
    pub path: String,
}

fn row(s: &Skill, source: &'static str, installed: bool, path: String) -> serde_json::Value {
    to_value(&SkillRow {
        name: &s.name,
        description: &s.description,
        tools: s.tools.join(", "),
        steps: s.steps,
        source,
        installed,
        path,
    })
}

#[derive(Debug, Serialize)]
struct SkillsRoot<'a> {
    skills_root: &'a str,
}

#[derive(Debug, Serialize)]
struct NotInstalled {
    not_installed: usize,
}

impl Action for Skills {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "skills";
    const SUMMARY: &'static str =
        "agent skills (SKILL.md procedures and the tools each uses), built in and in the project";
    const BRIEF: &'static str = "agent skills";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 50)?;
        let root = ctx.root()?;
        let dir_rel = args.skills_root.as_deref().unwrap_or(DEFAULT_DIR);
        let (dir, dir_rel) = resolve_in_root(root, dir_rel)?;
        let project = in_dir(root, &dir);
        let mut rows = Vec::new();
        for (folder, text) in BUILTIN {
            let Some(s) = parse(text) else { continue };
            let installed = project.iter().any(|(f, _)| f == folder);
            rows.push(row(
                &s,
                "builtin",
                installed,
                format!("{dir_rel}/{folder}/SKILL.md"),
            ));
        }
        for (folder, s) in &project {
            if BUILTIN.iter().any(|(b, _)| b == folder) {
                continue;
            }
            rows.push(row(
                s,
                "project",
                true,
                format!("{dir_rel}/{folder}/SKILL.md"),
            ));
        }
        let missing = BUILTIN
            .iter()
            .filter(|(f, _)| !project.iter().any(|(p, _)| p == f))
            .count();
        let listed = Capped::collect(rows, limit);
        let total = listed.total();
        let step = if missing > 0 {
            format!(
                "{missing} built-in skill(s) are not installed in {dir_rel}: run `tsa skills install` to write them there."
            )
        } else {
            "Every built-in skill is installed; follow the one that matches the task.".to_owned()
        };
        let s = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "skills: {total} ({} built in, {} in {dir_rel})",
                    BUILTIN.len(),
                    project.len()
                ),
            ),
            &SkillsRoot {
                skills_root: &dir_rel,
            },
        )
        .with_list(
            ListSpelling {
                list_key: "skills",
                total_key: "skill_count",
                listed_key: "skills_listed",
                cap_key: "limit",
                noun: "skills",
                remedy: "raise limit".into(),
            },
            listed,
        );
        Ok(with_payload(
            s,
            &NotInstalled {
                not_installed: missing,
            },
        )
        .with_next_step(step))
    }
}
