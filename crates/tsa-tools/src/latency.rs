//! This process's own latency per route (`health self`): every answered call timed
//! under (tool, action, tier), tier `cold` when no call of that route had finished
//! in this process when it started, else `warm`; the last 256 samples per key kept
//! for percentiles, the count unwindowed. Off when `TSA_LATENCY_INSTRUMENTATION`
//! is `0`, `false`, `no`, `off` or empty.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Samples kept per key.
pub const WINDOW: usize = 256;

#[derive(Default)]
struct Samples {
    count: u64,
    window: VecDeque<f64>,
}

#[derive(Default)]
struct Registry {
    /// (tool, action, tier) -> samples.
    keys: BTreeMap<(String, String, &'static str), Samples>,
    /// (tool, action) -> calls finished.
    finished: BTreeMap<(String, String), u64>,
}

fn registry() -> &'static Mutex<Registry> {
    static R: OnceLock<Mutex<Registry>> = OnceLock::new();
    R.get_or_init(Default::default)
}

/// When this process started answering (the first use of this module).
pub fn started() -> Instant {
    static T: OnceLock<Instant> = OnceLock::new();
    *T.get_or_init(Instant::now)
}

/// Whether calls are timed.
pub fn enabled() -> bool {
    match std::env::var("TSA_LATENCY_INSTRUMENTATION") {
        Ok(v) => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no" | "off"
        ),
        Err(_) => true,
    }
}

/// A call being timed.
pub struct Timing {
    tool: String,
    action: String,
    tier: &'static str,
    at: Instant,
}

/// Starts timing a call of `tool`/`action`: its tier is decided now.
pub fn start(tool: &str, action: &str) -> Option<Timing> {
    if !enabled() {
        return None;
    }
    started();
    let r = registry().lock().unwrap_or_else(|e| e.into_inner());
    let warm = r
        .finished
        .get(&(tool.to_owned(), action.to_owned()))
        .is_some_and(|n| *n > 0);
    Some(Timing {
        tool: tool.to_owned(),
        action: action.to_owned(),
        tier: if warm { "warm" } else { "cold" },
        at: Instant::now(),
    })
}

/// Records a finished call.
pub fn finish(t: Timing) {
    let ms = t.at.elapsed().as_secs_f64() * 1000.0;
    let mut r = registry().lock().unwrap_or_else(|e| e.into_inner());
    *r.finished
        .entry((t.tool.clone(), t.action.clone()))
        .or_insert(0) += 1;
    let s = r.keys.entry((t.tool, t.action, t.tier)).or_default();
    s.count += 1;
    s.window.push_back(ms);
    if s.window.len() > WINDOW {
        s.window.pop_front();
    }
}

/// One route's figures.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Route {
    pub tool: String,
    pub action: String,
    pub tier: &'static str,
    pub count: u64,
    pub samples_in_window: usize,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
}

/// Nearest rank: the value at index ceil(p/100 * n) - 1 of the sorted samples.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let i = ((p / 100.0 * sorted.len() as f64).ceil() as usize).max(1) - 1;
    Some((sorted[i.min(sorted.len() - 1)] * 1000.0).round() / 1000.0)
}

/// Every route observed, sorted by (tool, action, tier).
pub fn routes() -> Vec<Route> {
    let r = registry().lock().unwrap_or_else(|e| e.into_inner());
    r.keys
        .iter()
        .map(|((tool, action, tier), s)| {
            let mut v: Vec<f64> = s.window.iter().copied().collect();
            v.sort_by(f64::total_cmp);
            Route {
                tool: tool.clone(),
                action: action.clone(),
                tier,
                count: s.count,
                samples_in_window: v.len(),
                p50_ms: percentile(&v, 50.0),
                p95_ms: percentile(&v, 95.0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(5.0));
        assert_eq!(percentile(&v, 95.0), Some(10.0));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&[2.5], 95.0), Some(2.5));
    }
}
