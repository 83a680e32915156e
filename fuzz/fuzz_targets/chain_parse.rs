//! The chain DSL parser on arbitrary text: never panics, errors point inside the
//! query, the pipeline an answer shows (`Step::render`) parses back to the same
//! steps, and a query that parses runs on the fixture project's index through
//! `search chain`, keeping the envelope contract.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tsa_tools::fuzzing::chain_parse::{MAX_QUERY_CHARS, MAX_STEPS, Step, parse};
use tsa_tools::{OutputFormat, call};

/// Steps without their columns (a rendered pipeline is laid out anew).
fn shape(steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .map(|s| {
            let mut s = s.clone();
            s.column = 0;
            for a in &mut s.args {
                a.column = 0;
            }
            s
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(query) = std::str::from_utf8(data) else {
        return;
    };
    match parse(query) {
        Err(e) => {
            let chars = query.chars().count();
            assert!(
                (1..=chars + 1).contains(&e.column),
                "column {} outside 1..={} for {query:?}: {e}",
                e.column,
                chars + 1
            );
        }
        Ok(steps) => {
            assert!(!steps.is_empty() && steps.len() <= MAX_STEPS);
            let pipeline = steps.iter().map(Step::render).collect::<Vec<_>>().join(".");
            // Escaped quotes can make the shown pipeline longer than a query may be.
            if pipeline.chars().count() <= MAX_QUERY_CHARS {
                let again = parse(&pipeline).unwrap_or_else(|e| {
                    panic!("rendered pipeline {pipeline:?} does not parse: {e}")
                });
                assert_eq!(
                    shape(&again),
                    shape(&steps),
                    "rendered pipeline {pipeline:?} parses to other steps"
                );
            }
            let mut ctx = common::context();
            let reply = call(
                &mut ctx,
                "search",
                json!({"action": "chain", "query": query, "output_format": "json", "max_symbols": 5}),
                OutputFormat::Json,
            );
            common::check_reply(&reply);
        }
    }
});
