//! `health self`: how fast and how healthy this tsa process is: latency per route
//! (cold and warm calls, nearest-rank p50/p95 over the last 256), its caches, its
//! index on disk, uptime and resident memory. This process only; nothing persists.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::latency;
use crate::{Context, ToolError};

/// Arguments of `health self` (none beyond the universal ones).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {}

pub struct SelfHealth;

/// Resident memory of this process, from `/proc/self/status` (Linux).
fn rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: u64 = s
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// The index block: where it is, and what it holds.
fn index_block(ctx: &Context) -> Value {
    let Ok(root) = ctx.root() else {
        return json!({"path": null, "present": false, "status": "ABSENT", "reason": "no project root is set"});
    };
    let path = tsa_index::index_path(root);
    let size = std::fs::metadata(&path).ok().map(|m| m.len());
    let (status, files) = match tsa_index::Index::open(root) {
        Ok(Some(i)) => match i.status() {
            Ok(st) if st.files > 0 => ("OK", Some(st.files)),
            Ok(_) => ("EMPTY", Some(0)),
            Err(_) => ("UNREADABLE", None),
        },
        Ok(None) => ("ABSENT", None),
        Err(_) => ("UNREADABLE", None),
    };
    json!({
        "path": ".tsa/index.db",
        "present": size.is_some(),
        "size_bytes": size,
        "indexed_files": files,
        "status": status,
        "hit_rate": null,
        "hit_rate_status": "UNAVAILABLE_NOT_INSTRUMENTED",
    })
}

impl Action for SelfHealth {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "self";
    const SUMMARY: &'static str = "this process's latency per route (cold/warm, p50/p95 over the last 256 calls), caches, index on disk, uptime and memory";
    const BRIEF: &'static str = "this server's latency and state";

    fn run(&self, ctx: &Context, _args: Args) -> Result<Success, ToolError> {
        let routes = latency::routes();
        let total: u64 = routes.iter().map(|r| r.count).sum();
        let observed = !routes.is_empty();
        let index = index_block(ctx);
        let cache = json!({
            "status": "NOT_INSTRUMENTED",
            "reason": "no answer cache: every call reads the index (SQLite's page cache is not counted)",
            "hit_rate": null, "hits": null, "misses": null, "total_requests": null,
        });
        let summary = format!(
            "self_health status={} routes={} invocations={total} analysis_cache_hit_rate=n/a ast_index={} indexed_files={}",
            if observed { "OK" } else { "NO_OBSERVATIONS" },
            routes.len(),
            index["status"].as_str().unwrap_or("ABSENT"),
            index["indexed_files"]
                .as_u64()
                .map_or("n/a".to_owned(), |n| n.to_string()),
        );
        let mut s = Success::new(
            if observed {
                Verdict::Info
            } else {
                Verdict::Warn
            },
            summary,
        );
        for (k, v) in [
            ("scope", json!("current_process")),
            ("instrumentation_enabled", json!(latency::enabled())),
            (
                "observations_status",
                json!(if observed { "OK" } else { "NO_OBSERVATIONS" }),
            ),
            (
                "percentile_method",
                json!("nearest rank over the window: sorted[ceil(p/100*n)-1]"),
            ),
            (
                "tier_definition",
                json!(
                    "cold: no call of this tool and action had finished in this process when it started; warm: one had; cached: served from an answer cache (tsa has none)"
                ),
            ),
            ("window", json!(latency::WINDOW)),
            ("total_invocations", json!(total)),
            ("uptime_s", json!(latency::started().elapsed().as_secs())),
            ("rss_bytes", json!(rss_bytes())),
            ("routes", serde_json::to_value(&routes).unwrap_or_default()),
            ("analysis_cache", cache),
            ("ast_index", index),
        ] {
            s.insert(k, v);
        }
        Ok(s.with_next_step(if observed {
            "Slow routes show in p95_ms; a cold call includes opening the index."
        } else {
            "No call observed yet in this process (a one-shot CLI call sees only itself): ask again from a running MCP server."
        }))
    }
}
