//! `search unsubscribe`: cancel selector subscriptions by id or by selector.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::actions::common::fixed_cap;

use crate::action::Action;
use crate::{Context, ToolError};

/// Arguments of `search unsubscribe` (one of `sub_id`, `selector`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Subscription id returned by `search action=subscribe` (e.g. `sub-1`).
    #[serde(default)]
    pub sub_id: Option<String>,
    /// Cancel every subscription to this selector.
    #[serde(default)]
    #[schemars(length(max = tsa_analysis::hyphae::parse::MAX_SELECTOR_CHARS))]
    pub selector: Option<String>,
}

pub struct Unsubscribe;

impl Action for Unsubscribe {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "unsubscribe";
    const SUMMARY: &'static str = "cancel selector subscriptions by sub_id or selector";
    const BRIEF: &'static str = "cancel subscriptions";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let sub_id = args
            .sub_id
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let selector = args
            .selector
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        if sub_id.is_none() && selector.is_none() {
            return Err(ToolError::Validation(
                "give 'sub_id' or 'selector' (a non-empty string) to unsubscribe".into(),
            ));
        }
        let what = match (sub_id, selector) {
            (Some(i), Some(s)) => format!("sub_id '{i}' or selector '{s}'"),
            (Some(i), None) => format!("sub_id '{i}'"),
            (None, Some(s)) => format!("selector '{s}'"),
            (None, None) => String::new(),
        };
        let gone = ctx.unsubscribe(sub_id, selector, None);
        let remaining: Vec<String> = ctx.subscriptions().into_iter().map(|s| s.id).collect();
        if gone.is_empty() {
            return Ok(Success::new(
                Verdict::NotFound,
                format!("unsubscribe: no subscription with {what}"),
            )
            .with("removed_count", 0)
            .with("active_subscriptions", remaining.len())
            .with_next_step(if remaining.is_empty() {
                "This session has no subscription; create one with search action=subscribe."
                    .to_owned()
            } else {
                format!(
                    "Active subscription ids: {}; pass one as sub_id.",
                    remaining.join(", ")
                )
            }));
        }
        let ids: Vec<&str> = gone.iter().map(|s| s.id.as_str()).collect();
        let summary = format!(
            "unsubscribed {} subscription(s) ({})",
            gone.len(),
            ids.join(", ")
        );
        let rows = gone
            .iter()
            .map(|s| json!({"sub_id": s.id, "selector": s.selector, "resource_uri": s.uri}));
        Ok(Success::new(Verdict::Info, summary)
            .with_list(
                ListSpelling {
                    list_key: "removed",
                    total_key: "removed_count",
                    listed_key: "removed_listed",
                    cap_key: "listed_cap",
                    noun: "subscriptions",
                    remedy: "the rest were removed too".into(),
                },
                Capped::collect(rows, fixed_cap(100)),
            )
            .with("active_subscriptions", remaining.len())
            .with_next_step("No further notifications for these URIs."))
    }
}
