//! The Hyphae selector parser on arbitrary text: never panics, errors point
//! inside the selector, resource URIs round trip, and a selector that parses is
//! evaluated on the fixture project's index through `search select` (both output
//! formats), keeping the envelope contract.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tsa_tools::{OutputFormat, call, hyphae};

fuzz_target!(|data: &[u8]| {
    let Ok(selector) = std::str::from_utf8(data) else {
        return;
    };
    let uri = hyphae::resource_uri(selector);
    assert_eq!(
        hyphae::selector_of_uri(&uri).as_deref(),
        Some(selector.trim()),
        "resource URI round trip"
    );
    match hyphae::parse::parse(selector) {
        Err(e) => {
            let chars = selector.chars().count();
            assert!(
                (1..=chars + 1).contains(&e.column),
                "column {} outside 1..={} for {selector:?}: {e}",
                e.column,
                chars + 1
            );
        }
        Ok(ast) => {
            assert!(!ast.selectors.is_empty());
            let format = if data.len() % 2 == 0 { "json" } else { "toon" };
            let mut ctx = common::context();
            let reply = call(
                &mut ctx,
                "search",
                json!({"action": "select", "selector": selector, "output_format": format, "max_results": 5}),
                OutputFormat::Toon,
            );
            common::check_reply(&reply);
        }
    }
});
