//! Resuming a capped answer: `offset` (skip that many rows of every capped list)
//! or the opaque `cursor` an answer returns as `next_cursor`, which names where
//! each of its lists stops and what the answer was computed from.
//!
//! A resumed call re-runs the action with every list keeping its earlier rows
//! too ([`tsa_envelope::with_reach`]), then skips the rows earlier pages listed,
//! before any budget cut, so pages add up to every row exactly once with the same
//! totals. A cursor carries two digests: the call (tool, action, arguments made
//! exact, universal parameters left out) and the data (verdict, every list's key and
//! exact total, the index's content fingerprint). A cursor of another call, or one
//! whose data changed since (the index was rebuilt from other files, a total moved),
//! is refused as a validation error, never answered with shifted rows.

use std::cell::OnceCell;
use std::path::PathBuf;

use serde_json::{Map, Value};
use tsa_envelope::Success;

use crate::context::FingerprintCache;
use crate::{Context, ToolError};

/// The version tag every cursor starts with.
const TAG: &str = "r1";
/// Hex digits of each digest in a cursor.
const DIGEST_HEX: usize = 12;
/// Most lists an answer attaches that a cursor may name.
const MAX_LISTS: usize = 64;

/// How a call asks for a later page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resume {
    /// Every capped list skips its first `n` rows.
    Offset(usize),
    /// The positions and digests of an earlier answer's `next_cursor`.
    Cursor(Cursor),
}

/// A parsed `cursor`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    offsets: Vec<usize>,
    call: String,
    data: String,
}

impl Cursor {
    /// Parses a cursor string; anything not written by [`Resumer`] is refused.
    pub fn parse(s: &str) -> Result<Cursor, ToolError> {
        let bad = || {
            ToolError::Validation(
                "parameter 'cursor' is not a cursor tsa wrote: it expects the next_cursor string of an earlier answer, unchanged".into(),
            )
        };
        let parts: Vec<&str> = s.trim().split('-').collect();
        let [tag, offsets, call, data] = parts.as_slice() else {
            return Err(bad());
        };
        let hex = |d: &str| d.len() == DIGEST_HEX && d.bytes().all(|b| b.is_ascii_hexdigit());
        if *tag != TAG || !hex(call) || !hex(data) {
            return Err(bad());
        }
        let offsets: Vec<usize> = offsets
            .split('.')
            .map(|o| o.parse::<usize>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        if offsets.len() > MAX_LISTS {
            return Err(bad());
        }
        Ok(Cursor {
            offsets,
            call: (*call).to_owned(),
            data: (*data).to_owned(),
        })
    }
}

impl Resume {
    /// The rows every list keeps beyond its cap while the action runs.
    pub fn reach(&self) -> usize {
        match self {
            Resume::Offset(n) => *n,
            Resume::Cursor(c) => c.offsets.iter().copied().max().unwrap_or(0),
        }
    }
}

/// Writes and checks the cursors of one call.
pub struct Resumer {
    root: Option<PathBuf>,
    fingerprints: FingerprintCache,
    call: String,
    data: OnceCell<String>,
}

impl Resumer {
    /// The resumer of `tool action` with `args` (already made exact).
    pub fn new(ctx: &Context, tool: &str, action: &str, args: &Map<String, Value>) -> Self {
        let mut text = format!("{tool}\0{action}\0");
        canonical(&Value::Object(args.clone()), &mut text);
        Resumer {
            root: ctx.root().ok().map(PathBuf::from),
            fingerprints: ctx.fingerprint_cache(),
            call: digest(&text),
            data: OnceCell::new(),
        }
    }

    /// The digest of what `success` was computed from (the same for every page).
    fn data(&self, success: &Success) -> &str {
        self.data.get_or_init(|| {
            let mut text = serde_json::to_string(&success.verdict()).unwrap_or_default();
            for (key, total) in success.list_totals() {
                text.push_str(&format!("\0{key}={total}"));
            }
            text.push('\0');
            text.push_str(&self.index_fingerprint());
            digest(&text)
        })
    }

    /// The content fingerprint of the project's index ("" without one).
    fn index_fingerprint(&self) -> String {
        self.root
            .as_deref()
            .map(|root| self.fingerprints.get(root))
            .unwrap_or_default()
    }

    /// Makes `success` the page `resume` asks for, or refuses a cursor of another
    /// call or of data that changed since.
    pub fn page(&self, success: &mut Success, resume: &Resume) -> Result<(), ToolError> {
        let offsets = match resume {
            Resume::Offset(n) => vec![*n; success.list_totals().len()],
            Resume::Cursor(c) => {
                if c.call != self.call {
                    return Err(ToolError::Validation(
                        "parameter 'cursor' belongs to another call: repeat the call that returned it with the same tool, action and arguments, adding only cursor".into(),
                    ));
                }
                if c.data != self.data(success) || c.offsets.len() != success.list_totals().len() {
                    return Err(ToolError::Validation(
                        "parameter 'cursor' is stale: the index or the answer's totals changed since it was written, so its positions no longer point at the same rows; repeat the call without cursor to start again".into(),
                    ));
                }
                c.offsets.clone()
            }
        };
        success.page(&offsets);
        Ok(())
    }

    /// Writes `next_cursor` when a list has rows left, and clears it otherwise.
    pub fn mark(&self, success: &mut Success) {
        if !success.truncated() {
            success.set_resume(None);
            return;
        }
        let offsets: Vec<String> = success
            .next_offsets()
            .iter()
            .map(usize::to_string)
            .collect();
        let cursor = format!(
            "{TAG}-{}-{}-{}",
            offsets.join("."),
            self.call,
            self.data(success)
        );
        success.set_resume(Some(cursor));
    }
}

fn digest(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..DIGEST_HEX].to_owned()
}

/// JSON text with object keys sorted at every level, and every number and boolean
/// written as the string it is spelled as, so the same arguments in another order,
/// or as the CLI spells them (`"1"` for 1, which an action's schema may accept as
/// is), give the same digest.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for k in keys {
                out.push_str(&Value::from(k.as_str()).to_string());
                out.push(':');
                canonical(&m[k], out);
                out.push(',');
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for x in a {
                canonical(x, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Number(_) | Value::Bool(_) => out.push_str(&Value::from(v.to_string()).to_string()),
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_round_trips_and_junk_is_refused() {
        let c = Cursor::parse("r1-20.0.3-0123456789ab-ba9876543210").unwrap();
        assert_eq!(c.offsets, [20, 0, 3]);
        assert_eq!(Resume::Cursor(c).reach(), 20);
        for bad in [
            "",
            "r1",
            "r2-1-0123456789ab-ba9876543210",
            "r1-x-0123456789ab-ba9876543210",
            "r1-1-0123456789a-ba9876543210",
            "r1-1-0123456789ag-ba9876543210",
        ] {
            assert!(Cursor::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn canonical_text_ignores_key_order() {
        let (mut a, mut b) = (String::new(), String::new());
        canonical(
            &serde_json::json!({"b": [1, {"y": 2, "x": 1}], "a": "s"}),
            &mut a,
        );
        canonical(
            &serde_json::json!({"a": "s", "b": [1, {"x": 1, "y": 2}]}),
            &mut b,
        );
        assert_eq!(a, b);
    }
}
