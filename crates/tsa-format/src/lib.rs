//! Output formats: the JSON object of an envelope, the TOON response shape
//! (`format` + `toon_content` + scalar metadata), and `compact_only`.
//!
//! TOON here is the official TOON specification v4 (encoder and decoder from the
//! `toon-format` crate, checked against the v4.1 conformance fixtures), so any
//! official decoder turns `toon_content` back into the exact JSON payload.

use serde_json::{Map, Value};
use tsa_envelope::{CONTROL_SURFACE, Envelope};

/// How a response is rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// Official TOON v4 in `toon_content` with scalar metadata beside it (MCP default).
    #[default]
    Toon,
    /// The plain JSON object.
    Json,
}

impl OutputFormat {
    pub fn parse(s: &str) -> Option<OutputFormat> {
        match s {
            "toon" => Some(OutputFormat::Toon),
            "json" => Some(OutputFormat::Json),
            _ => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            OutputFormat::Toon => "toon",
            OutputFormat::Json => "json",
        }
    }
}

/// A TOON encoding or decoding failure.
#[derive(Debug, thiserror::Error)]
#[error("toon: {0}")]
pub struct FormatError(String);

/// Encodes any JSON value as official TOON v4 (2-space indent, comma delimiter).
pub fn to_toon(value: &Value) -> Result<String, FormatError> {
    toon_format::encode_default(value).map_err(|e| FormatError(e.to_string()))
}

/// Encodes with explicit options (used by the conformance tests).
pub fn to_toon_with(value: &Value, delimiter: char, indent: usize) -> Result<String, FormatError> {
    let delimiter = match delimiter {
        '\t' => toon_format::Delimiter::Tab,
        '|' => toon_format::Delimiter::Pipe,
        _ => toon_format::Delimiter::Comma,
    };
    let opts = toon_format::EncodeOptions::new()
        .with_delimiter(delimiter)
        .with_spaces(indent);
    toon_format::encode(value, &opts).map_err(|e| FormatError(e.to_string()))
}

/// Decodes official TOON back into JSON.
pub fn from_toon(text: &str) -> Result<Value, FormatError> {
    toon_format::decode_default(text).map_err(|e| FormatError(e.to_string()))
}

/// Keys whose (large string) values never sit beside the TOON blob.
const LARGE_STRING_KEYS: [&str; 4] = [
    "content",
    "mermaid",
    "partial_content_result",
    "table_output",
];
/// Non-empty objects that still travel beside the TOON blob.
const PASS_THROUGH_OBJECTS: [&str; 3] = ["agent_summary", "errors_summary", "limits"];

/// Wraps a JSON payload as a TOON response: `format`, `toon_content`, then the
/// scalar metadata of envelope spec §7.2. Falls back to the JSON payload if the
/// encoder fails (it never has on our payloads).
pub fn toon_response(payload: Map<String, Value>) -> Map<String, Value> {
    let Ok(blob) = to_toon(&Value::Object(payload.clone())) else {
        return payload;
    };
    let mut out = Map::new();
    out.insert("format".into(), Value::String("toon".into()));
    out.insert("toon_content".into(), Value::String(blob));
    for (k, v) in payload {
        if k == "format" || k == "toon_content" || LARGE_STRING_KEYS.contains(&k.as_str()) {
            continue;
        }
        let keep = match &v {
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty() || PASS_THROUGH_OBJECTS.contains(&k.as_str()),
            _ => true,
        };
        if keep {
            out.insert(k, v);
        }
    }
    out
}

/// Reduces a TOON response to the control surface (§7.3). A no-op unless
/// `format == "toon"`; idempotent.
pub fn compact(mut response: Map<String, Value>) -> Map<String, Value> {
    if response.get("format").and_then(Value::as_str) != Some("toon") {
        return response;
    }
    response.retain(|k, _| CONTROL_SURFACE.contains(&k.as_str()));
    response
}

/// Writes integral floats as integers (`1.0` -> `1`, `-0.0` -> `0`, `9e15` ->
/// `9000000000000000`), the canonical number form TOON uses, so JSON and decoded
/// TOON are the same value. Every integral float in the 64-bit integer range is
/// converted (exactly: such a float is an integer); larger ones stay floats.
pub fn canonical_numbers(value: &mut Value) {
    // 2^63 and 2^64, exact as f64.
    const I64_END: f64 = 9_223_372_036_854_775_808.0;
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    match value {
        Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
            {
                if (-I64_END..I64_END).contains(&f) {
                    *value = Value::from(f as i64);
                } else if (0.0..U64_END).contains(&f) {
                    *value = Value::from(f as u64);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(canonical_numbers),
        Value::Object(o) => o.values_mut().for_each(canonical_numbers),
        _ => {}
    }
}

/// Renders an envelope in the requested format, applying `compact_only`.
pub fn render(envelope: &Envelope, format: OutputFormat, compact_only: bool) -> Map<String, Value> {
    let mut payload = Value::Object(envelope.to_json());
    canonical_numbers(&mut payload);
    let payload = match payload {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    match format {
        OutputFormat::Json => payload,
        OutputFormat::Toon => {
            let response = toon_response(payload);
            if compact_only {
                compact(response)
            } else {
                response
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tsa_envelope::{Success, Verdict};

    #[test]
    fn toon_response_keeps_scalars_and_agent_summary() {
        let env = Envelope::from(
            Success::new(Verdict::Info, "x")
                .with("file_path", "a.py")
                .with("rows", json!([1, 2]))
                .with("empty", json!([]))
                .with("content", "big text"),
        );
        let r = render(&env, OutputFormat::Toon, false);
        assert_eq!(r["format"], "toon");
        assert!(r.contains_key("agent_summary"));
        assert!(r.contains_key("empty"));
        assert!(!r.contains_key("rows"));
        assert!(!r.contains_key("content"));
        let back = from_toon(r["toon_content"].as_str().unwrap()).unwrap();
        assert_eq!(back, Value::Object(env.to_json()));
    }

    #[test]
    fn compact_is_the_control_surface_and_idempotent() {
        let env = Envelope::from(Success::new(Verdict::Safe, "x").with("file_path", "a.py"));
        let r = render(&env, OutputFormat::Toon, true);
        let keys: Vec<_> = r.keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "format",
                "toon_content",
                "success",
                "verdict",
                "summary_line",
                "file_path"
            ]
        );
        assert_eq!(compact(r.clone()), r);
    }

    /// Found by the `toon_roundtrip` fuzz target: `9e15` stayed a float in JSON
    /// while TOON wrote (and decoded) it as an integer.
    #[test]
    fn integral_floats_of_the_64_bit_range_round_trip_as_integers() {
        for f in [
            9.0e15,
            9.007_199_254_740_993e15,
            -9.223_372_036_854_776e18,
            9.223_372_036_854_776e18,
            1.8e19,
            1.0e21,
            -1.0e300,
            -0.0,
            0.5,
        ] {
            let mut v = json!([f, {"k": f}]);
            canonical_numbers(&mut v);
            let back = from_toon(&to_toon(&v).unwrap()).unwrap();
            assert_eq!(back, v, "{f}");
        }
    }

    #[test]
    fn compact_is_a_no_op_on_json() {
        let env = Envelope::from(Success::new(Verdict::Safe, "x"));
        let j = render(&env, OutputFormat::Json, false);
        assert_eq!(compact(j.clone()), j);
    }
}
