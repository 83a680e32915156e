//! TOON round trip: any JSON value, with numbers made canonical the way every
//! answer's are, encodes with our encoder and decodes (official decoder) to the
//! same value. The input is JSON text when it parses, else the bytes build a
//! value (deep nesting, odd keys, numbers at the edges).

#![no_main]

use arbitrary::{Result as ArbResult, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};

fuzz_target!(|data: &[u8]| {
    let value = match serde_json::from_slice::<Value>(data) {
        Ok(v) => v,
        Err(_) => match build(&mut Unstructured::new(data), 0) {
            Ok(v) => v,
            Err(_) => return,
        },
    };
    roundtrip(value);
});

fn roundtrip(mut value: Value) {
    tsa_format::canonical_numbers(&mut value);
    let Ok(text) = tsa_format::to_toon(&value) else {
        // The encoder may refuse a value; answers then fall back to JSON.
        return;
    };
    let back = tsa_format::from_toon(&text)
        .unwrap_or_else(|e| panic!("our TOON does not decode: {e}\nvalue: {value}\ntoon:\n{text}"));
    assert!(
        back == value,
        "TOON round trip changed the value\nvalue: {value}\nback:  {back}\ntoon:\n{text}"
    );
    // The answer wrapper keeps the same blob.
    if let Value::Object(map) = &value {
        let response = tsa_format::toon_response(map.clone());
        if let Some(Value::String(blob)) = response.get("toon_content") {
            assert_eq!(blob, &text);
        }
    }
}

fn key(u: &mut Unstructured<'_>) -> ArbResult<String> {
    const KEYS: &[&str] = &[
        "", "a", "key", "a b", "a,b", "a:b", "-", "#", "[1]", "{x}", "\"q\"", "\\", "\t", "\n",
        "true", "null", "1", "-1", "0x", "a.b", "é", " lead", "trail ",
    ];
    Ok(if u.ratio(2u8, 3u8)? {
        KEYS[u.choose_index(KEYS.len())?].to_owned()
    } else {
        u.arbitrary::<&str>()?.to_owned()
    })
}

fn string(u: &mut Unstructured<'_>) -> ArbResult<String> {
    const STRINGS: &[&str] = &[
        "", " ", "true", "false", "null", "0", "-0", "1.0", "1e3", "05", "-", "- x", "a,b", "a|b",
        "a\tb", "x: y", "[1]", "{}", "\"", "\\", "\n", "\r", "#x", " pad ", "é", "\u{0}", "\u{7f}",
        "\u{2028}", "1.5e-7", "Infinity", "NaN",
    ];
    Ok(if u.ratio(1u8, 2u8)? {
        STRINGS[u.choose_index(STRINGS.len())?].to_owned()
    } else {
        u.arbitrary::<&str>()?.to_owned()
    })
}

fn number(u: &mut Unstructured<'_>) -> ArbResult<Value> {
    Ok(match u.int_in_range(0..=6u8)? {
        0 => Value::from(u.arbitrary::<i64>()?),
        1 => Value::from(u.arbitrary::<u64>()?),
        2 => Value::from(u.int_in_range(-10i64..=10)?),
        3 => {
            const EDGES: &[f64] = &[
                0.0,
                -0.0,
                0.5,
                -1.5,
                1e-7,
                1e-6,
                1e21,
                1e15,
                9.0e15,
                9.007_199_254_740_993e15,
                1.0e300,
                5e-324,
                f64::MAX,
                f64::MIN_POSITIVE,
                0.1,
                123_456_789.125,
            ];
            Number::from_f64(EDGES[u.choose_index(EDGES.len())?]).map_or(Value::Null, Value::Number)
        }
        _ => Number::from_f64(u.arbitrary::<f64>()?).map_or(Value::Null, Value::Number),
    })
}

fn build(u: &mut Unstructured<'_>, depth: u32) -> ArbResult<Value> {
    let pick = if depth >= 6 {
        u.int_in_range(0..=3u8)?
    } else {
        u.int_in_range(0..=6u8)?
    };
    Ok(match pick {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => number(u)?,
        3 => Value::String(string(u)?),
        4 => {
            // Arrays of objects with the same keys take TOON's tabular form.
            let n = u.int_in_range(0..=4usize)?;
            if u.ratio(1u8, 2u8)? {
                let keys: Vec<String> = (0..u.int_in_range(1..=3usize)?)
                    .map(|_| key(u))
                    .collect::<ArbResult<_>>()?;
                let mut rows = Vec::new();
                for _ in 0..n {
                    let mut m = Map::new();
                    for k in &keys {
                        m.insert(k.clone(), build(u, 6)?);
                    }
                    rows.push(Value::Object(m));
                }
                Value::Array(rows)
            } else {
                Value::Array(
                    (0..n)
                        .map(|_| build(u, depth + 1))
                        .collect::<ArbResult<_>>()?,
                )
            }
        }
        _ => {
            let n = u.int_in_range(0..=4usize)?;
            let mut m = Map::new();
            for _ in 0..n {
                m.insert(key(u)?, build(u, depth + 1)?);
            }
            Value::Object(m)
        }
    })
}
