//! `project card`: the project's summary card, served from `.tsa/card.json` while
//! it matches the index and is under a day old, rebuilt otherwise (or on
//! `force_refresh`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::card::{self, Card};
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{open_index, to_value};
use crate::{Context, ToolError};

/// Arguments of `project card`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Rebuild the card even if the stored one is current (default false).
    #[serde(default)]
    pub force_refresh: Option<bool>,
    /// Include the notes stored with `index build add_notes` (default true).
    #[serde(default)]
    pub include_notes: Option<bool>,
}

pub struct ProjectCard;

fn payload(s: &mut Success, c: &Card, rebuilt: bool, notes: Option<String>) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let age_h = now.saturating_sub(c.index_built_at) as f64 / 3600.0;
    let fields: [(&str, Value); 15] = [
        ("project_root", json!(".")),
        ("project_name", json!(c.project_name)),
        ("rebuilt", json!(rebuilt)),
        ("index_age_hours", json!((age_h * 100.0).round() / 100.0)),
        ("is_fresh", json!(age_h < 1.0)),
        ("file_count", json!(c.file_count)),
        ("language_distribution", to_value(&c.language_distribution)),
        ("top_level_structure", to_value(&c.top_level_structure)),
        ("key_files", to_value(&c.key_files)),
        ("entry_points", to_value(&c.entry_points)),
        ("critical_nodes", to_value(&c.critical_nodes)),
        ("quick_start", json!(c.quick_start)),
        ("readme_excerpt", json!(c.readme_excerpt)),
        ("module_descriptions", to_value(&c.module_descriptions)),
        ("custom_notes", json!(notes)),
    ];
    for (k, v) in fields {
        if k == "custom_notes" && v.is_null() {
            continue;
        }
        s.insert(k, v);
    }
}

impl Action for ProjectCard {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "card";
    const SUMMARY: &'static str = "the project's summary card: languages, layout, key files, entry points, most depended-on files (PageRank), README excerpt; kept until the index changes";
    const BRIEF: &'static str = "project summary card";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let stored = if args.force_refresh.unwrap_or(false) {
            None
        } else {
            card::load(root, index)
        };
        let rebuilt = stored.is_none();
        let c = match stored {
            Some(c) => c,
            None => card::build(root, index)?,
        };
        let saved = !rebuilt || card::store(root, &c);
        let top3: Vec<&str> = c
            .critical_nodes
            .iter()
            .take(3)
            .map(|n| n.name.as_str())
            .collect();
        let summary = format!(
            "{} {} {:.0}% critical: {}",
            c.project_name,
            c.top_language.as_deref().unwrap_or("mixed"),
            c.top_language_share * 100.0,
            if top3.is_empty() {
                "n/a".to_owned()
            } else {
                top3.join(", ")
            }
        );
        let mut s = Success::new(Verdict::Info, summary);
        let notes = if args.include_notes.unwrap_or(true) {
            index.meta("custom_notes")?
        } else {
            None
        };
        payload(&mut s, &c, rebuilt, notes);
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        if !saved {
            s = s.with_warning(
                "the card could not be stored in .tsa/ (read-only?); it is rebuilt on every call",
            );
        }
        let step = match (c.critical_nodes.first(), c.entry_points.first()) {
            (Some(n), _) => format!("structure action=outline file_path={}", n.file),
            (None, Some(e)) => format!("structure action=outline file_path={}", e.file),
            _ => "structure action=sitemap".to_owned(),
        };
        Ok(s.with_next_step(format!(
            "Start reading at the most depended-on file: {step}"
        )))
    }
}
