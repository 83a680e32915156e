//! `search subscribe`: watch a Hyphae selector; the MCP server pushes
//! `notifications/resources/updated` for `tsa://hyphae/{selector}` when its result changes.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use tsa_analysis::hyphae;
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::open_index;
use crate::actions::search::select::echo;
use crate::{Context, ToolError};

/// Arguments of `search subscribe`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Hyphae selector to watch (same grammar as `search action=select`).
    #[schemars(length(max = tsa_analysis::hyphae::parse::MAX_SELECTOR_CHARS))]
    pub selector: String,
    /// Fewest seconds between two notifications for this subscription (default 2.0, 0..=3600).
    #[serde(default)]
    pub min_interval: Option<f64>,
}

pub struct Subscribe;

impl Action for Subscribe {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "subscribe";
    const SUMMARY: &'static str = "watch a Hyphae selector: returns sub_id and resource_uri tsa://hyphae/{selector}; the MCP server pushes resources/updated when its result changes after an index sync";
    const BRIEF: &'static str = "watch a Hyphae selector";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        if args.selector.trim().is_empty() {
            return Err(ToolError::Validation(
                "parameter 'selector' must be a non-empty string".into(),
            ));
        }
        hyphae::validate(&args.selector)?;
        let interval = args.min_interval.unwrap_or(2.0);
        if !interval.is_finite() || !(0.0..=3600.0).contains(&interval) {
            return Err(ToolError::Validation(format!(
                "parameter 'min_interval' must be between 0 and 3600 seconds, got {interval}"
            )));
        }
        let opened = open_index(ctx)?;
        let outcome = hyphae::select(&opened.index, &args.selector)?;
        let digest = outcome.fingerprint();
        let sub = ctx.subscribe(&args.selector, Duration::from_secs_f64(interval), digest);
        let total = outcome.total();
        let mut s = Success::new(
            Verdict::Info,
            format!(
                "subscribed {} to '{}' ({} symbol(s) now)",
                sub.id,
                echo(&args.selector),
                total
            ),
        )
        .with("sub_id", sub.id.as_str())
        .with("resource_uri", sub.uri.as_str())
        .with("selector", echo(&args.selector))
        .with("min_interval", interval)
        .with("current_matches", total)
        .with("active_subscriptions", ctx.subscriptions().len())
        .with_next_step(format!(
            "Read the resource {} for the current result; a notifications/resources/updated arrives when it changes after an index sync. Cancel with search action=unsubscribe sub_id={}.",
            sub.uri, sub.id
        ));
        if !ctx.can_push() {
            s = s.with_warning(
                "no_push_channel: this session (the CLI) ends with this command, so no notification can follow; subscribe through the MCP server (tsa mcp) to receive notifications/resources/updated",
            );
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
