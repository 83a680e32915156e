//! Docs and code agree: the verdict and control-surface tables of
//! `docs/envelope-contract.md` list exactly the constants of `tsa-envelope`.

use std::collections::BTreeSet;

use tsa_envelope::{CONTROL_SURFACE, Verdict};

fn table_keys(doc: &str, marker: &str) -> BTreeSet<String> {
    let start = format!("<!-- drift:{marker}:start -->");
    let end = format!("<!-- drift:{marker}:end -->");
    let from = doc
        .find(&start)
        .unwrap_or_else(|| panic!("missing {start}"))
        + start.len();
    let to = doc[from..]
        .find(&end)
        .unwrap_or_else(|| panic!("missing {end}"))
        + from;
    doc[from..to]
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn documented_verdicts_and_control_surface_match_the_code() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/envelope-contract.md"
    ))
    .unwrap();
    let verdicts: BTreeSet<String> = Verdict::ALL.iter().map(|v| v.as_str().to_owned()).collect();
    assert_eq!(table_keys(&doc, "verdicts"), verdicts);
    let surface: BTreeSet<String> = CONTROL_SURFACE.iter().map(|s| s.to_string()).collect();
    assert_eq!(table_keys(&doc, "control-surface"), surface);
}
