//! `project tools`: what this build can do and what it needs from the machine
//! (nothing external: search, walking, git and storage are compiled in).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_envelope::{Success, Verdict};
use tsa_lang::{Language, Tier};

use crate::action::Action;
use crate::actions::common::with_payload;
use crate::{Context, ToolError};

/// `project tools` takes no parameters.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {}

pub struct Tools;

/// A tool compiled in.
#[derive(Debug, Serialize)]
pub struct InProcess {
    pub available: bool,
    pub how: String,
    pub external_binary_needed: bool,
}

fn in_process(how: String) -> InProcess {
    InProcess {
        available: true,
        how,
        external_binary_needed: false,
    }
}

/// Tree-sitter with its ABI and grammars.
#[derive(Debug, Serialize)]
pub struct TreeSitter {
    pub available: bool,
    pub abi: usize,
    pub languages: usize,
}

/// What the build has compiled in.
#[derive(Debug, Serialize)]
pub struct ToolSet {
    pub ripgrep: InProcess,
    pub fd: InProcess,
    pub git: InProcess,
    pub sqlite: InProcess,
    pub tree_sitter: TreeSitter,
}

/// Languages per tier.
#[derive(Debug, Serialize)]
pub struct ByTier {
    pub full: Vec<&'static str>,
    pub symbol: Vec<&'static str>,
    pub structure: Vec<&'static str>,
}

/// The payload of `project tools`.
#[derive(Debug, Serialize)]
pub struct ToolsPayload {
    pub tools: ToolSet,
    pub external_tools_needed: bool,
    pub languages: ByTier,
}

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
        let payload = ToolsPayload {
            tools: ToolSet {
                ripgrep: in_process("in process (grep-searcher, grep-regex)".to_owned()),
                fd: in_process("in process (ignore walker)".to_owned()),
                git: in_process(format!("in process (libgit2 {major}.{minor}.{patch})")),
                sqlite: in_process(format!(
                    "bundled SQLite {} with FTS5",
                    tsa_index::sqlite_version()
                )),
                tree_sitter: TreeSitter {
                    available: true,
                    abi: tree_sitter::LANGUAGE_VERSION,
                    languages: Language::ALL.len(),
                },
            },
            external_tools_needed: false,
            languages: ByTier {
                full: by_tier(Tier::Full),
                symbol: by_tier(Tier::Symbol),
                structure: by_tier(Tier::Structure),
            },
        };
        Ok(with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "tools: everything in process; {} languages ({} full, {} symbol, {} structure)",
                    Language::ALL.len(),
                    payload.languages.full.len(),
                    payload.languages.symbol.len(),
                    payload.languages.structure.len()
                ),
            ),
            &payload,
        )
        .with_next_step(
            "project action=parser language=<name> checks one language's grammar and queries.",
        ))
    }
}
