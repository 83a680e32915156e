//! Runs every encode case of the official TOON v4.1 conformance fixtures, read from
//! the fixture files themselves (`../shared/conformance/toon/v4.1/fixtures/encode`),
//! and checks that decoding gives the input back.

use std::path::PathBuf;

use serde_json::Value;

fn fixture_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("TSA_TOON_FIXTURES") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/toon/v4.1/fixtures")
}

#[test]
fn all_v4_1_encode_cases_pass() {
    let dir = fixture_dir().join("encode");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("TOON fixtures missing at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let (mut passed, mut failures) = (0usize, Vec::new());
    for file in &files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        for (i, case) in doc["tests"].as_array().unwrap().iter().enumerate() {
            let opts = &case["options"];
            let delimiter = opts["delimiter"]
                .as_str()
                .and_then(|s| s.chars().next())
                .unwrap_or(',');
            let indent = opts["indentSize"].as_u64().unwrap_or(2) as usize;
            let got = tsa_format::to_toon_with(&case["input"], delimiter, indent);
            let should_error = case["shouldError"].as_bool().unwrap_or(false);
            let ok = match (&got, should_error) {
                (Err(_), true) => true,
                (Ok(text), false) => Some(text.as_str()) == case["expected"].as_str(),
                _ => false,
            };
            if ok {
                passed += 1;
            } else {
                failures.push(format!(
                    "{}#{i} {}: got {got:?}",
                    file.file_name().unwrap().to_string_lossy(),
                    case["name"]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(passed, 179, "expected the 179 v4.1 encode cases");
}

#[test]
fn default_encoding_round_trips_every_encode_input() {
    let dir = fixture_dir().join("encode");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for case in doc["tests"].as_array().unwrap() {
            let input = &case["input"];
            let Ok(text) = tsa_format::to_toon(input) else {
                continue;
            };
            let back = tsa_format::from_toon(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(
                same_json(&back, input),
                "{}: {input} -> {text} -> {back}",
                path.display()
            );
        }
    }
}

/// JSON equality where numbers compare by value (1.0 and 1 are the same number).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_json(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}
