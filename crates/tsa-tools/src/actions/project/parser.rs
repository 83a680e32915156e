//! `project parser`: is a language ready here? Its grammar loads, its queries
//! compile, what tier it has, and how many project files use it.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::suggest::closest;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::{Language, Tier};

use crate::action::Action;
use crate::{Context, ToolError};

/// Arguments of `project parser`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Language to check (e.g. python, rust, tsx); absent = every language.
    #[serde(default)]
    pub language: Option<String>,
    /// Also list every supported language with its tier and extensions.
    #[serde(default)]
    pub include_supported: bool,
}

pub struct Parser;

fn tier_name(t: Tier) -> &'static str {
    match t {
        Tier::Full => "full",
        Tier::Symbol => "symbol",
        Tier::Structure => "structure",
    }
}

/// Grammar loads and queries compile (an empty parse runs both).
fn readiness(l: Language) -> (bool, Option<String>) {
    let mut p = tree_sitter::Parser::new();
    if let Err(e) = p.set_language(&l.grammar()) {
        return (false, Some(format!("grammar: {e}")));
    }
    match tsa_lang::extract(l, b"") {
        Ok(_) => (true, None),
        Err(e) => (false, Some(e.to_string())),
    }
}

impl Action for Parser {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "parser";
    const SUMMARY: &'static str =
        "parser readiness of a language (grammar, queries, tier, project files)";
    const BRIEF: &'static str = "parser readiness of a language";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        // Project files per language, from the index when there is one.
        let counts = match tsa_index::Index::open(root)? {
            Some(i) => i.status()?.files_by_language,
            None => Default::default(),
        };
        let supported = |l: &Language| json!({"language": l.name(), "tier": tier_name(l.tier()), "extensions": l.extensions()});
        let mut s = match args.language.as_deref() {
            Some(name) => {
                let Some(l) = Language::from_name(name) else {
                    let names: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
                    let mut miss =
                        Success::new(Verdict::NotFound, format!("parser: no language '{name}'"))
                            .with("language", name)
                            .with("supported_languages", json!(names));
                    if let Some(c) = closest(&name.to_lowercase(), names.iter().copied()) {
                        miss = miss.with("suggestions", json!([c]));
                    }
                    return Ok(miss.with_next_step("Pick one of supported_languages."));
                };
                let (ready, problem) = readiness(l);
                let files = counts.get(l.name()).copied().unwrap_or(0);
                let mut s = Success::new(
                    if ready { Verdict::Info } else { Verdict::Warn },
                    format!(
                        "parser {}: {} ({} tier), {files} indexed file(s)",
                        l.name(),
                        if ready { "ready" } else { "NOT ready" },
                        tier_name(l.tier())
                    ),
                )
                .with("language", l.name())
                .with("ready", ready)
                .with("tier", tier_name(l.tier()))
                .with("extensions", json!(l.extensions()))
                .with(
                    "capabilities",
                    json!({
                        "definitions": true,
                        "imports": l.tier() != Tier::Structure,
                        "call_graph": l.tier() == Tier::Full,
                        "indexed": l.tier() != Tier::Structure,
                    }),
                )
                .with("project_files", files);
                if let Some(p) = problem {
                    s = s.with_warning(p);
                }
                s.with_next_step(if l.tier() == Tier::Structure {
                    "structure action=outline works on these files; they are not indexed."
                } else {
                    "index action=status shows what the index holds for this language."
                })
            }
            None => {
                let not_ready: Vec<&str> = Language::ALL
                    .iter()
                    .filter(|l| !readiness(**l).0)
                    .map(|l| l.name())
                    .collect();
                Success::new(
                    if not_ready.is_empty() {
                        Verdict::Info
                    } else {
                        Verdict::Warn
                    },
                    format!(
                        "parser: {} of {} languages ready",
                        Language::ALL.len() - not_ready.len(),
                        Language::ALL.len()
                    ),
                )
                .with("not_ready", json!(not_ready))
                .with("project_files_by_language", json!(counts))
                .with_next_step("Pass language=<name> for one language's details.")
            }
        };
        if args.include_supported {
            let n = Language::ALL.len().max(1);
            s = s.with_list(
                ListSpelling {
                    list_key: "supported",
                    total_key: "supported_count",
                    listed_key: "supported_listed",
                    cap_key: "supported_cap",
                    noun: "languages",
                    remedy: "every language is listed".into(),
                },
                Capped::collect(
                    Language::ALL.iter().map(supported),
                    std::num::NonZeroUsize::new(n).unwrap_or(std::num::NonZeroUsize::MIN),
                ),
            );
        }
        Ok(s)
    }
}
