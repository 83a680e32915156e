//! Unit tests of the health formulas: every dimension at its boundaries, grades,
//! re-normalisation, the smell penalty and its cap, signal labels, function smells.

use super::*;

fn cfg() -> HealthConfig {
    HealthConfig::defaults().unwrap()
}

#[test]
fn size_boundaries() {
    let c = cfg();
    assert_eq!(size_score(0, &c), 0.0);
    assert_eq!(size_score(1, &c), 100.0);
    assert_eq!(size_score(200, &c), 100.0);
    assert_eq!(size_score(1100, &c), 50.0);
    assert_eq!(size_score(2000, &c), 0.0);
    assert_eq!(size_score(5000, &c), 0.0);
}

#[test]
fn complexity_boundaries() {
    let c = cfg();
    // No functions: CC 1.
    assert_eq!(complexity_score(&[], &c), 100.0);
    // Fewer than 3 functions: the total.
    assert_eq!(complexity_score(&[15], &c), 100.0);
    assert_eq!(complexity_score(&[10, 10], &c), 100.0 - 70.0 * 5.0 / 25.0);
    assert_eq!(complexity_score(&[40], &c), 30.0);
    assert_eq!(complexity_score(&[100], &c), 5.0);
    assert_eq!(complexity_score(&[70], &c), 30.0 - 25.0 * 30.0 / 60.0);
    assert_eq!(complexity_score(&[101], &c), 5.0);
    // Three or more: the average.
    assert_eq!(complexity_score(&[5, 5, 5], &c), 100.0);
    assert_eq!(complexity_score(&[6, 8, 7], &c), 100.0 - 70.0 * 2.0 / 5.0);
    assert_eq!(complexity_score(&[10, 10, 10], &c), 30.0);
    assert_eq!(complexity_score(&[15, 15, 15], &c), 5.0);
    assert_eq!(complexity_score(&[16, 16, 16], &c), 5.0);
}

#[test]
fn dependency_boundaries() {
    let c = cfg();
    let k = |o, i, n| ImportCounts {
        fan_out: o,
        fan_in: i,
        non_stdlib: n,
    };
    assert_eq!(dependencies_score(k(3, 5, 0), DepsMode::Full, &c), 100.0);
    assert_eq!(dependencies_score(k(100, 50, 0), DepsMode::Full, &c), 0.0);
    // out 100 -> 0 (x0.6), in 5 -> 100 (x0.4)
    assert!((dependencies_score(k(100, 5, 0), DepsMode::Full, &c) - 40.0).abs() < 1e-9);
    assert!((dependencies_score(k(0, 50, 0), DepsMode::Full, &c) - 60.0).abs() < 1e-9);
    assert_eq!(dependencies_score(k(0, 0, 3), DepsMode::Fast, &c), 100.0);
    assert_eq!(dependencies_score(k(0, 0, 100), DepsMode::Fast, &c), 0.0);
}

#[test]
fn duplication_boundaries() {
    let c = cfg();
    assert_eq!(duplication_ratio("a\nb\n", &c), None);
    assert_eq!(duplication_score(None, &c), 100.0);
    let unique: String = (0..20).map(|i| format!("x{i}\n")).collect();
    assert_eq!(duplication_ratio(&unique, &c), Some(0.0));
    let twice = "a\nb\nc\n".repeat(4);
    // windows abc, bca, cab all repeat.
    assert_eq!(duplication_ratio(&twice, &c), Some(1.0));
    assert_eq!(duplication_score(Some(0.05), &c), 100.0);
    assert_eq!(duplication_score(Some(0.30), &c), 0.0);
    assert!((duplication_score(Some(0.175), &c) - 50.0).abs() < 1e-9);
    // Blank windows are skipped.
    let blanks = format!("{}{}", "\n".repeat(12), "z\n");
    assert_eq!(duplication_ratio(&blanks, &c), Some(0.0));
}

#[test]
fn structure_and_git_boundaries() {
    let c = cfg();
    assert_eq!(structure_score(Some(10), &c), 100.0);
    assert_eq!(structure_score(Some(20), &c), 50.0);
    assert_eq!(structure_score(Some(30), &c), 0.0);
    assert_eq!(structure_score(None, &c), 50.0);
    assert_eq!(git_score(5, &c), 100.0);
    assert_eq!(git_score(50, &c), 0.0);
    assert!((git_score(27, &c) - (100.0 * (1.0 - 22.0 / 45.0))).abs() < 1e-9);
}

#[test]
fn grades_and_renormalisation() {
    let c = cfg();
    assert_eq!(grade_of(90.0, &c), 'A');
    assert_eq!(grade_of(89.9, &c), 'B');
    assert_eq!(grade_of(80.0, &c), 'B');
    assert_eq!(grade_of(70.0, &c), 'C');
    assert_eq!(grade_of(50.0, &c), 'D');
    assert_eq!(grade_of(49.9, &c), 'F');
    // Coverage and git unavailable: the remaining 80 weight points are re-normalised.
    let dims = vec![
        (Dimension::Size, 100.0),
        (Dimension::Complexity, 0.0),
        (Dimension::Dependencies, 100.0),
        (Dimension::Duplication, 100.0),
        (Dimension::Structure, 100.0),
    ];
    assert!((weighted_total(&dims, &c) - 100.0 * 55.0 / 80.0).abs() < 1e-9);
    assert_eq!(weighted_total(&[], &c), 0.0);
}

#[test]
fn smell_penalty_and_signal() {
    let c = cfg();
    let long = "x".repeat(150);
    let crit = "y".repeat(250);
    let text = format!("{long}\n{crit}\nok\n");
    let smells = detect_smells(&text, &[], &[], &c);
    let kinds: Vec<(&str, &str, u32)> = smells
        .iter()
        .map(|s| (s.kind.as_str(), s.severity.as_str(), s.line))
        .collect();
    assert_eq!(
        kinds,
        vec![("long_line", "warning", 1), ("long_line", "critical", 2)]
    );
    assert_eq!(smell_penalty(&smells, &c), 3.0 + 8.0);
    let one = "z".repeat(6000);
    let s = detect_smells(&one, &[], &[], &c);
    // single_line_file critical (35+10) + long_line critical (3+5)
    assert_eq!(smell_penalty(&s, &c), 53.0);
    let many = format!("{}\n", "w".repeat(130)).repeat(30);
    assert_eq!(smell_penalty(&detect_smells(&many, &[], &[], &c), &c), 60.0);
    assert_eq!(signal_of(None, &c), "no_data");
    assert_eq!(
        signal_of(Some((Dimension::Complexity, 70.0)), &c),
        "healthy"
    );
    assert_eq!(
        signal_of(Some((Dimension::Complexity, 69.9)), &c),
        "moderate_cc"
    );
    assert_eq!(
        signal_of(Some((Dimension::Complexity, 40.0)), &c),
        "moderate_cc"
    );
    assert_eq!(
        signal_of(Some((Dimension::Complexity, 39.9)), &c),
        "high_cc"
    );
    assert_eq!(
        signal_of(Some((Dimension::Dependencies, 10.0)), &c),
        "high_coupling"
    );
}

#[test]
fn function_smells_carry_line_and_fix() {
    let c = cfg();
    let body: String = (0..12)
        .map(|i| format!("    if x == {i}:\n        return {i}\n"))
        .collect();
    let text = format!("def big(x, a, b, c, d, e):\n{body}    return 0\n");
    let f = facts_of("m.py", &text, &c);
    assert!(f.analysable && !f.syntax_error);
    assert_eq!(f.functions[0].complexity, 13);
    let kinds: Vec<&str> = f.smells.iter().map(|s| s.kind.as_str()).collect();
    assert!(kinds.contains(&"complex_function"), "{kinds:?}");
    assert!(kinds.contains(&"too_many_parameters"), "{kinds:?}");
    assert!(f.smells.iter().all(|s| s.line == 1 && !s.fix.is_empty()));
    assert!(facts_of("m.py", "def f(:\n", &c).syntax_error);
}

/// The facts the index build takes on the extraction's walk are those of a walk of
/// their own, in a language with a complexity table and in one without (depth only).
#[test]
fn facts_riding_the_extraction_walk_are_a_fresh_measure() {
    let hook = facts_hook();
    let cases: [(Language, &str); 6] = [
        (
            Language::Python,
            "class A:\n    def m(self, x):\n        if x and y:\n            for i in x:\n                g(i)\n        return [h(v) for v in x if v]\n\ndef f():\n    while True:\n        break\n",
        ),
        (
            Language::C,
            "static int f(int a, int b) {\n  if (a && b) { return g(a); }\n  for (;;) { if (b) break; }\n  return a ? b : 0;\n}\nstruct s { int x; };\n",
        ),
        (Language::Python, "def broken(:\n    if x\n        g(\n"),
        (Language::Json, "{\"a\": [1, {\"b\": [2, [3]]}]}"),
        // The deepest nodes are anonymous leaves (`;`, brackets), which the
        // extraction's walk passes over: the depth counts them all the same.
        (Language::C, "void f(void) {{{{;}}}}\n"),
        (Language::Json, "[[[[]]]]"),
    ];
    for (i, (lang, src)) in cases.into_iter().enumerate() {
        let x = tsa_lang::extract_with(lang, src.as_bytes(), Some(&hook)).unwrap();
        let tree = complexity::parse(lang, src.as_bytes()).unwrap();
        let alone =
            serde_json::to_string(&tree_facts(lang, tree.root_node(), src.as_bytes())).unwrap();
        assert_eq!(x.facts.as_deref(), Some(alone.as_str()), "{lang:?}: {src}");
        // And the same as the separate measures, each a walk of its own written
        // apart from the pass: depth, functions, classes.
        let facts: TreeFacts = serde_json::from_str(&alone).unwrap();
        let root = tree.root_node();
        assert_eq!(facts.max_depth, Some(complexity::max_depth(root)));
        if let Some(rules) = complexity::rules(lang) {
            let mut functions = complexity::functions(rules, root, src.as_bytes());
            functions.sort_by_key(|f| (f.line, f.end_line));
            assert_eq!(json(&functions), json(&facts.functions), "{lang:?}");
            let classes = complexity::classes(rules, root, src.as_bytes());
            assert_eq!(json(&classes), json(&facts.classes), "{lang:?}");
        }
        if i < 2 {
            assert!(
                !facts.functions.is_empty(),
                "{lang:?}: {:?}",
                facts.functions
            );
        }
    }
}

fn json<T: Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).unwrap()
}
