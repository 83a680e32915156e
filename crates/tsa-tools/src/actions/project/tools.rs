//! `project tools`: what this build can do and what it needs from the machine
//! (nothing external: search, walking, git and storage are compiled in).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_envelope::{Success, Verdict};
use tsa_lang::{Language, Tier};

use crate::action::Action;
use crate::{Context, ToolError};

/// `project tools` takes no parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {}

pub struct Tools;

impl Action for Tools {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "tools";
    const SUMMARY: &'static str =
        "what this build has compiled in (search, git, storage, grammars)";
    const BRIEF: &'static str = "what this build has compiled in";

    fn run(&self, _ctx: &Context, _args: Args) -> Result<Success, ToolError> {
        let (major, minor, patch) = git2::Version::get().libgit2_version();
        let by_tier = |t: Tier| {
            Language::ALL
                .iter()
                .filter(|l| l.tier() == t)
                .map(|l| l.name())
                .collect::<Vec<_>>()
        };
        let tools = json!({
            "ripgrep": {"available": true, "how": "in process (grep-searcher, grep-regex)", "external_binary_needed": false},
            "fd": {"available": true, "how": "in process (ignore walker)", "external_binary_needed": false},
            "git": {"available": true, "how": format!("in process (libgit2 {major}.{minor}.{patch})"), "external_binary_needed": false},
            "sqlite": {"available": true, "how": format!("bundled SQLite {} with FTS5", tsa_index::sqlite_version()), "external_binary_needed": false},
            "tree_sitter": {"available": true, "abi": tree_sitter::LANGUAGE_VERSION, "languages": Language::ALL.len()},
        });
        Ok(Success::new(
            Verdict::Info,
            format!(
                "tools: everything in process; {} languages ({} full, {} symbol, {} structure)",
                Language::ALL.len(),
                by_tier(Tier::Full).len(),
                by_tier(Tier::Symbol).len(),
                by_tier(Tier::Structure).len()
            ),
        )
        .with("tools", tools)
        .with("external_tools_needed", false)
        .with(
            "languages",
            json!({"full": by_tier(Tier::Full), "symbol": by_tier(Tier::Symbol), "structure": by_tier(Tier::Structure)}),
        )
        .with_next_step("project action=parser language=<name> checks one language's grammar and queries."))
    }
}
