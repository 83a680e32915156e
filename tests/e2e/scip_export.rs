//! `tsa export scip`: the file read back with the `scip` crate matches the index.

use protobuf::Message;
use tsa_index::Index;

use crate::support::{project, run};

#[test]
fn scip_export_matches_the_index() {
    let p = project("tricky");
    let (code, out, err) = run(&p.root, &["export", "scip"]);
    assert_eq!(code, 0, "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["output"], ".tsa/index.scip");
    let bytes = std::fs::read(p.root.join(".tsa/index.scip")).unwrap();
    assert_eq!(report["bytes"], bytes.len() as u64);
    let scip = scip::types::Index::parse_from_bytes(&bytes).unwrap();
    assert_eq!(scip.metadata.tool_info.name, "tsa");

    let index = Index::open(&p.root).unwrap().unwrap();
    let files = index.files().unwrap();
    assert_eq!(scip.documents.len(), files.len());
    let mut references = 0;
    for doc in &scip.documents {
        let defs = index.symbols_in_file(&doc.relative_path).unwrap();
        let def_occ: Vec<_> = doc
            .occurrences
            .iter()
            .filter(|o| o.symbol_roles & scip::types::SymbolRole::Definition as i32 != 0)
            .collect();
        assert_eq!(def_occ.len(), defs.len(), "{}", doc.relative_path);
        assert_eq!(doc.symbols.len(), defs.len());
        for (o, d) in def_occ.iter().zip(&defs) {
            assert_eq!(
                o.range[0],
                d.line as i32 - 1,
                "{} {}",
                doc.relative_path,
                d.qualname
            );
            scip::symbol::parse_symbol(&o.symbol).unwrap();
        }
        let bound = index
            .calls_in_file(&doc.relative_path)
            .unwrap()
            .into_iter()
            .filter(|c| c.target.is_some())
            .count();
        let refs = doc.occurrences.len() - def_occ.len();
        assert_eq!(refs, bound, "{}", doc.relative_path);
        references += refs;
    }
    assert_eq!(report["references"], references);

    // A reference through the re-export names the definition's own symbol.
    let views = scip
        .documents
        .iter()
        .find(|d| d.relative_path == "webapp/views.py")
        .unwrap();
    let jsonify = scip
        .documents
        .iter()
        .find(|d| d.relative_path == "webapp/json/__init__.py")
        .unwrap()
        .symbols
        .iter()
        .find(|s| s.display_name == "jsonify")
        .unwrap()
        .symbol
        .clone();
    let uses = views
        .occurrences
        .iter()
        .filter(|o| o.symbol == jsonify)
        .count();
    assert_eq!(uses, 3, "index, via_package, via_alias");
    // Methods are enclosed by their class.
    let speak = views
        .symbols
        .iter()
        .find(|s| s.display_name == "speak" && s.enclosing_symbol.contains("Dog#"))
        .expect("Dog.speak");
    assert_eq!(
        speak.kind.value(),
        scip::types::symbol_information::Kind::Method as i32
    );
}

#[test]
fn scip_export_stays_inside_the_root() {
    let p = project("tricky");
    let (code, out, _) = run(&p.root, &["export", "scip", "--output", "../escape.scip"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("outside project boundary"), "{out}");
    assert!(!p.root.parent().unwrap().join("escape.scip").exists());
}
