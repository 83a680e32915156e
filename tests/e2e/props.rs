//! Property tests over random envelopes: verdicts stay in the alphabet, truncation
//! fields agree, TOON round-trips to the JSON payload, compact_only is idempotent
//! and a subset of the control surface.

use std::num::NonZeroUsize;

use proptest::prelude::*;
use serde_json::{Value, json};
use tsa_envelope::{
    CONTROL_SURFACE, Capped, Envelope, ErrorType, Failure, ListSpelling, Success, Verdict,
};
use tsa_format::{OutputFormat, compact, from_toon, render};

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(|f| json!((f * 1000.0).round() / 1000.0)),
        "[ -~]{0,12}".prop_map(Value::from),
        "[a-z:,\\[\\]{}\"#\\- ]{0,8}".prop_map(Value::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn verdict() -> impl Strategy<Value = Verdict> {
    prop::sample::select(Verdict::ALL.to_vec())
}

fn error_type() -> impl Strategy<Value = ErrorType> {
    prop::sample::select(vec![
        ErrorType::Validation,
        ErrorType::UnsupportedAction,
        ErrorType::FileNotFound,
        ErrorType::SecurityViolation,
        ErrorType::EmptyProject,
        ErrorType::Internal,
    ])
}

fn envelope() -> impl Strategy<Value = Envelope> {
    let success = (
        verdict(),
        "[ -~]{1,30}",
        prop::collection::btree_map("[a-z]{1,8}", value(), 0..5),
        prop::option::of((prop::collection::vec(value(), 0..12), 1usize..6)),
        "[ -~]{0,20}",
    )
        .prop_map(|(v, summary, payload, list, step)| {
            let mut s = Success::new(v, summary).with_next_step(step);
            for (k, val) in payload {
                if !tsa_envelope::RESERVED_KEYS.contains(&k.as_str()) {
                    s = s.with(&format!("p_{k}"), val);
                }
            }
            if let Some((items, cap)) = list {
                let capped = Capped::collect(items, NonZeroUsize::new(cap).unwrap());
                s = s.with_list(
                    ListSpelling {
                        list_key: "items",
                        total_key: "item_count",
                        listed_key: "items_listed",
                        cap_key: "listed_cap",
                        noun: "items",
                        remedy: "raise limit".into(),
                    },
                    capped,
                );
            }
            Envelope::from(s)
        });
    let failure = (
        error_type(),
        "[ -~]{1,30}",
        prop::option::of("[a-z ]{1,20}"),
    )
        .prop_map(|(t, msg, ident)| {
            Envelope::from(Failure::new(t, msg).with_subject("nav", ident.as_deref()))
        });
    prop_oneof![3 => success, 1 => failure]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn envelopes_keep_the_contract(env in envelope()) {
        let j = env.to_json();
        let alphabet: Vec<&str> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
        let v = j["verdict"].as_str().unwrap();
        prop_assert!(alphabet.contains(&v));
        prop_assert_eq!(&j["agent_summary"]["verdict"], &j["verdict"]);
        prop_assert_eq!(&j["agent_summary"]["summary_line"], &j["summary_line"]);
        prop_assert_eq!(j["success"].as_bool().unwrap(), j.get("error").is_none());
        if j["success"] == false {
            prop_assert_eq!(v, "ERROR");
            prop_assert!(j["hint"].as_str().is_some_and(|h| !h.is_empty()));
        } else {
            prop_assert_ne!(v, "ERROR");
        }
        if let Some(items) = j.get("items") {
            let listed = items.as_array().unwrap().len() as u64;
            let total = j["item_count"].as_u64().unwrap();
            let cap = j["listed_cap"].as_u64().unwrap();
            prop_assert_eq!(j["items_listed"].as_u64().unwrap(), listed);
            prop_assert!(listed <= cap && listed <= total);
            prop_assert_eq!(j["truncated"].as_bool().unwrap(), total > listed);
            let step = j["next_step"].as_str().unwrap();
            if total > listed {
                let expected = format!("showing {listed} of {total} items");
                prop_assert!(step.starts_with(&expected), "{}", step);
            }
        }
    }

    #[test]
    fn toon_round_trips_and_compact_is_idempotent(env in envelope()) {
        let payload = Value::Object(render(&env, OutputFormat::Json, false));
        let toon = render(&env, OutputFormat::Toon, false);
        let decoded = from_toon(toon["toon_content"].as_str().unwrap()).unwrap();
        prop_assert_eq!(&decoded, &payload);
        let c = render(&env, OutputFormat::Toon, true);
        prop_assert!(c.keys().all(|k| CONTROL_SURFACE.contains(&k.as_str())));
        prop_assert_eq!(compact(c.clone()), c.clone());
        prop_assert_eq!(compact(compact(toon.clone())), compact(toon));
    }

    #[test]
    fn any_value_normalises_into_the_alphabet(v in value()) {
        let n = Verdict::normalize(&v);
        prop_assert!(Verdict::ALL.contains(&n));
    }
}
