//! `project parser`: is a language ready here? Its grammar loads, its queries
//! compile, what tier it has, and how many project files use it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::project::{Capabilities, capabilities, readiness, tier_name};
use tsa_analysis::suggest::closest;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::{Language, Tier};

use crate::action::Action;
use crate::actions::common::{to_value, with_payload};
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

/// A supported language, as a row of `supported`.
#[derive(Debug, Serialize)]
pub struct SupportedRow {
    pub language: &'static str,
    pub tier: &'static str,
    /// Space-separated (the rows stay one TOON table).
    #[serde(serialize_with = "tsa_analysis::flat::spaced")]
    pub extensions: &'static [&'static str],
}

/// The payload of an unknown language.
#[derive(Debug, Serialize)]
struct NoLanguage<'a> {
    language: &'a str,
    supported_languages: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suggestions: Option<[&'static str; 1]>,
}

/// The payload of one language.
#[derive(Debug, Serialize)]
pub struct LanguagePayload {
    pub language: &'static str,
    pub ready: bool,
    pub tier: &'static str,
    pub extensions: &'static [&'static str],
    pub capabilities: Capabilities,
    pub project_files: u64,
}

/// The payload of every language.
#[derive(Debug, Serialize)]
pub struct AllPayload<'a> {
    pub not_ready: Vec<&'static str>,
    pub project_files_by_language: &'a BTreeMap<String, u64>,
}

fn one(l: Language, counts: &BTreeMap<String, u64>) -> Success {
    let (ready, problem) = readiness(l);
    let files = counts.get(l.name()).copied().unwrap_or(0);
    let payload = LanguagePayload {
        language: l.name(),
        ready,
        tier: tier_name(l.tier()),
        extensions: l.extensions(),
        capabilities: capabilities(l),
        project_files: files,
    };
    let mut s = with_payload(
        Success::new(
            if ready { Verdict::Info } else { Verdict::Warn },
            format!(
                "parser {}: {} ({} tier), {files} indexed file(s)",
                l.name(),
                if ready { "ready" } else { "NOT ready" },
                tier_name(l.tier())
            ),
        ),
        &payload,
    );
    if let Some(p) = problem {
        s = s.with_warning(p);
    }
    s.with_next_step(if l.tier() == Tier::Structure {
        "structure action=outline works on these files; they are not indexed."
    } else {
        "index action=status shows what the index holds for this language."
    })
}

fn all(counts: &BTreeMap<String, u64>) -> Success {
    let not_ready: Vec<&str> = Language::ALL
        .iter()
        .filter(|l| !readiness(**l).0)
        .map(|l| l.name())
        .collect();
    let verdict = if not_ready.is_empty() {
        Verdict::Info
    } else {
        Verdict::Warn
    };
    let summary = format!(
        "parser: {} of {} languages ready",
        Language::ALL.len() - not_ready.len(),
        Language::ALL.len()
    );
    let payload = AllPayload {
        not_ready,
        project_files_by_language: counts,
    };
    with_payload(Success::new(verdict, summary), &payload)
        .with_next_step("Pass language=<name> for one language's details.")
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
        let mut s = match args.language.as_deref() {
            Some(name) => {
                let Some(l) = Language::from_name(name) else {
                    let names: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
                    let payload = NoLanguage {
                        language: name,
                        suggestions: closest(&name.to_lowercase(), names.iter().copied())
                            .map(|c| [c]),
                        supported_languages: names,
                    };
                    return Ok(with_payload(
                        Success::new(Verdict::NotFound, format!("parser: no language '{name}'")),
                        &payload,
                    )
                    .with_next_step("Pick one of supported_languages."));
                };
                one(l, &counts)
            }
            None => all(&counts),
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
                    Language::ALL.iter().map(|l| {
                        to_value(&SupportedRow {
                            language: l.name(),
                            tier: tier_name(l.tier()),
                            extensions: l.extensions(),
                        })
                    }),
                    std::num::NonZeroUsize::new(n).unwrap_or(std::num::NonZeroUsize::MIN),
                ),
            );
        }
        Ok(s)
    }
}
