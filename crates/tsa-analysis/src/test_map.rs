//! The tests that exercise a function (the engine of `nav test_map`, and the test
//! conventions `edit impact` shares): test entry points by each language's
//! convention (names, attributes), the tests calling the function directly or one
//! hop above a test helper, and the command that runs them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use tsa_index::{Index, SymbolRow};
use tsa_lang::{Language, TestEntry, TestRunner};

use crate::ToolError;
use crate::graph::{Dir, IndexGraph, Neighbors, load_symbols};

/// Lines of a file, read once per answer.
pub struct Lines<'a> {
    root: &'a Path,
    files: HashMap<String, Vec<String>>,
}

impl<'a> Lines<'a> {
    /// Reads files under `root` on demand.
    pub fn new(root: &'a Path) -> Self {
        Lines {
            root,
            files: HashMap::new(),
        }
    }

    /// Attribute lines directly above `line` (1-based), nearest first.
    fn attributes_above(&mut self, file: &str, line: u32) -> Vec<String> {
        let root = self.root;
        let lines = self.files.entry(file.to_owned()).or_insert_with(|| {
            crate::security::read_text_in_root(root, file)
                .map(|t| t.lines().map(str::to_owned).collect())
                .unwrap_or_default()
        });
        let mut out = Vec::new();
        let mut i = line as usize;
        while i >= 2 {
            i -= 1;
            let t = lines.get(i - 1).map(|l| l.trim()).unwrap_or("");
            if t.starts_with("#[") || t.starts_with('@') {
                out.push(t.chars().filter(|c| !c.is_whitespace()).collect());
            } else if !(t.starts_with("//") || t.starts_with("///")) {
                break;
            }
        }
        out
    }
}

/// Whether a test-code definition is a test entry point by its language's convention.
pub fn is_entry(s: &SymbolRow, lines: &mut Lines<'_>) -> bool {
    let n = s.name.as_str();
    let rule = Language::from_name(&s.language).and_then(|l| l.conventions().test_entry.get());
    match rule {
        Some(TestEntry::Names {
            prefixes,
            boundary,
            spaced,
        }) => {
            (*spaced && n.contains(' '))
                || prefixes.iter().any(|p| {
                    n.strip_prefix(p).is_some_and(|rest| {
                        !boundary
                            || rest.is_empty()
                            || rest.starts_with(|c: char| c.is_uppercase() || c == '_')
                    })
                })
        }
        Some(TestEntry::NotPrivate) => !n.starts_with('_'),
        Some(TestEntry::Attribute {
            exact,
            suffixes,
            infixes,
            prefixes,
        }) => lines.attributes_above(&s.file, s.line).iter().any(|a| {
            exact.contains(&a.as_str())
                || suffixes.iter().any(|x| a.ends_with(x))
                || infixes.iter().any(|x| a.contains(x))
                || prefixes.iter().any(|x| a.starts_with(x))
        }),
        Some(TestEntry::Any) | None => true,
    }
}

/// How to run the listed tests, by the language of the tests.
pub fn run_command(root: &Path, language: &str, files: &[String], names: &[&SymbolRow]) -> String {
    let runner = Language::from_name(language).and_then(|l| l.conventions().test_runner.get());
    match (runner, test_command(root, language, files, names)) {
        (Some(TestRunner::Pytest), Some(cmd)) => format!("Run per-file tests: {cmd}"),
        (_, Some(cmd)) => format!("Run them: {cmd}"),
        (_, None) => format!(
            "Run the test files above with the project's test runner: {}",
            files.join(" ")
        ),
    }
}

/// The bare command that runs `files` / test entries `names` of `language`
/// (None when the language has no known runner).
pub fn test_command(
    root: &Path,
    language: &str,
    files: &[String],
    names: &[&SymbolRow],
) -> Option<String> {
    let files_arg = files.join(" ");
    let runner = Language::from_name(language).and_then(|l| l.conventions().test_runner.get());
    Some(match runner? {
        TestRunner::Pytest => format!("pytest {files_arg}"),
        TestRunner::Cargo => {
            let mut n: Vec<String> = names
                .iter()
                .map(|s| s.qualname.replace('.', "::"))
                .collect();
            n.sort();
            n.dedup();
            if n.is_empty() {
                "cargo test".to_owned()
            } else {
                format!("cargo test -- {}", n.join(" "))
            }
        }
        TestRunner::GoTest => {
            let mut tests = BTreeSet::new();
            let mut benches = BTreeSet::new();
            for s in names {
                if s.name.starts_with("Benchmark") {
                    benches.insert(s.name.clone());
                } else {
                    tests.insert(s.name.clone());
                }
            }
            let dirs: BTreeSet<String> = files
                .iter()
                .map(|f| match f.rfind('/') {
                    Some(i) => format!("./{}/", &f[..i]),
                    None => "./".to_owned(),
                })
                .collect();
            let mut cmd = String::from("go test");
            let join = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join("|");
            cmd.push_str(&format!(
                " -run '^({})$'",
                if tests.is_empty() {
                    "$^".to_owned()
                } else {
                    join(&tests)
                }
            ));
            if !benches.is_empty() {
                cmd.push_str(&format!(" -bench '^({})$'", join(&benches)));
            }
            cmd.push(' ');
            cmd.push_str(&dirs.into_iter().collect::<Vec<_>>().join(" "));
            cmd
        }
        TestRunner::Node => {
            let pkg = crate::security::inside_root(root, "package.json")
                .and_then(|p| std::fs::read_to_string(p).ok())
                .unwrap_or_default();
            let runner = if pkg.contains("vitest") {
                "npx vitest run"
            } else {
                "npx jest"
            };
            format!("{runner} {files_arg}")
        }
        TestRunner::MavenOrGradle => return None,
    })
}

/// A test function reaching the definitions, and the helper it went through.
#[derive(Clone, Debug)]
pub struct TestHit {
    /// The test entry point.
    pub test: SymbolRow,
    /// The test helper between it and the definition, if any.
    pub helper: Option<SymbolRow>,
}

/// The tests of some definitions.
#[derive(Clone, Debug, Default)]
pub struct TestMapReport {
    /// Test functions, by file and qualified name.
    pub tests: Vec<TestHit>,
    /// Their files, sorted and distinct.
    pub test_files: Vec<String>,
    /// (definition, test) pairs.
    pub edge_count: usize,
    /// Test helpers calling the definitions directly, walked one hop up.
    pub helpers_walked: usize,
}

/// The test entry points calling `defs` over resolved edges, directly or through one
/// test helper.
pub fn test_map(
    index: &Index,
    root: &Path,
    defs: &[SymbolRow],
) -> Result<TestMapReport, ToolError> {
    let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
    let mut g = IndexGraph::new(index);
    let direct = g.neighbors(&ids, Dir::Up)?;
    let mut syms: HashMap<i64, SymbolRow> = HashMap::new();
    load_symbols(index, &mut syms, direct.values().flatten().map(|h| h.node))?;
    let mut lines = Lines::new(root);
    // (target, test function) pairs, and the helper a test reached it through.
    let mut edges: BTreeMap<(i64, i64), Option<i64>> = BTreeMap::new();
    let mut helpers: Vec<(i64, i64)> = Vec::new();
    for (target, hops) in &direct {
        for h in hops {
            let Some(c) = syms.get(&h.node) else { continue };
            if !c.is_test {
                continue;
            }
            if is_entry(c, &mut lines) {
                edges.insert((*target, c.id), None);
            } else {
                helpers.push((*target, c.id));
            }
        }
    }
    let helper_ids: Vec<i64> = helpers.iter().map(|(_, h)| *h).collect();
    let above = g.neighbors(&helper_ids, Dir::Up)?;
    load_symbols(index, &mut syms, above.values().flatten().map(|h| h.node))?;
    for (target, helper) in &helpers {
        for h in above.get(helper).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(c) = syms.get(&h.node)
                && c.is_test
                && is_entry(c, &mut lines)
            {
                edges.entry((*target, c.id)).or_insert(Some(*helper));
            }
        }
    }
    let tests: BTreeSet<i64> = edges.keys().map(|(_, t)| *t).collect();
    let mut rows: Vec<TestHit> = tests
        .iter()
        .filter_map(|t| {
            let via = edges
                .iter()
                .find(|((_, tt), _)| tt == t)
                .and_then(|(_, v)| *v);
            syms.get(t).map(|s| TestHit {
                test: s.clone(),
                helper: via.and_then(|h| syms.get(&h).cloned()),
            })
        })
        .collect();
    rows.sort_by(|a, b| (&a.test.file, &a.test.qualname).cmp(&(&b.test.file, &b.test.qualname)));
    let test_files: Vec<String> = rows
        .iter()
        .map(|r| r.test.file.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    Ok(TestMapReport {
        tests: rows,
        test_files,
        edge_count: edges.len(),
        helpers_walked: helpers.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(name: &str, language: &str) -> SymbolRow {
        SymbolRow {
            id: 1,
            name: name.into(),
            kind: "function".into(),
            qualname: name.into(),
            owner: None,
            file: "t".into(),
            language: language.into(),
            line: 1,
            end_line: 1,
            signature: String::new(),
            is_test: true,
        }
    }

    #[test]
    fn test_entry_conventions_per_language() {
        let dir = tempfile::tempdir().unwrap();
        let mut lines = Lines::new(dir.path());
        let cases = [
            ("test_build", "python", true),
            ("make_value", "python", false),
            ("TestOpen", "go", true),
            ("Test", "go", true),
            ("Testify", "go", false),
            ("BenchmarkOpen", "go", true),
            ("newTestStore", "go", false),
            ("renders a page", "typescript", true),
            ("itWorks", "javascript", true),
            ("helper", "javascript", false),
            ("shouldOpen", "java", true),
            ("_setup", "java", false),
            ("anything", "lua", true),
        ];
        for (name, lang, want) in cases {
            assert_eq!(
                is_entry(&sym(name, lang), &mut lines),
                want,
                "{lang} {name}"
            );
        }
    }

    #[test]
    fn rust_entries_need_a_test_attribute() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("t"),
            "#[cfg(test)]\nmod tests {\n    fn helper() {}\n\n    #[test]\n    fn starts() {}\n\n    #[tokio::test]\n    // a comment\n    async fn runs() {}\n}\n",
        )
        .unwrap();
        let mut lines = Lines::new(dir.path());
        let mut s = sym("helper", "rust");
        s.line = 3;
        assert!(!is_entry(&s, &mut lines));
        s.line = 6;
        assert!(is_entry(&s, &mut lines));
        s.line = 10;
        assert!(is_entry(&s, &mut lines));
    }

    #[test]
    fn tests_directly_and_through_a_helper() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("app.py"), "def build():\n    return 1\n").unwrap();
        std::fs::create_dir_all(dir.path().join("tests")).unwrap();
        std::fs::write(
            dir.path().join("tests/test_app.py"),
            "from app import build\n\n\ndef make():\n    return build()\n\n\ndef test_direct():\n    assert build()\n\n\ndef test_helper():\n    assert make()\n",
        )
        .unwrap();
        tsa_index::build(dir.path(), &tsa_index::BuildOptions::default()).unwrap();
        let ix = Index::open(dir.path()).unwrap().unwrap();
        let defs = ix.symbols_in_file("app.py").unwrap();
        let r = test_map(&ix, dir.path(), &defs).unwrap();
        let names: Vec<(&str, Option<&str>)> = r
            .tests
            .iter()
            .map(|t| {
                (
                    t.test.name.as_str(),
                    t.helper.as_ref().map(|h| h.name.as_str()),
                )
            })
            .collect();
        assert_eq!(
            names,
            [("test_direct", None), ("test_helper", Some("make"))]
        );
        assert_eq!(r.test_files, ["tests/test_app.py"]);
        assert_eq!(r.helpers_walked, 1);
    }

    #[test]
    fn run_commands_follow_the_language() {
        let dir = tempfile::tempdir().unwrap();
        let files = vec!["web/a.test.ts".to_owned()];
        assert_eq!(
            run_command(dir.path(), "typescript", &files, &[]),
            "Run them: npx jest web/a.test.ts"
        );
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"devDependencies":{"vitest":"1"}}"#,
        )
        .unwrap();
        assert_eq!(
            run_command(dir.path(), "typescript", &files, &[]),
            "Run them: npx vitest run web/a.test.ts"
        );
        let t = sym("TestA", "go");
        assert_eq!(
            run_command(dir.path(), "go", &["x_test.go".to_owned()], &[&t]),
            "Run them: go test -run '^(TestA)$' ./"
        );
    }
}
