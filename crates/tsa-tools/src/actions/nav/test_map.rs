//! `nav test_map`: which tests exercise a function: test-code callers that follow
//! their language's test-entry convention, plus the tests one hop above helpers in
//! test code; with the command to run them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::graph::{Dir, IndexGraph, Neighbors, load_symbols};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;
use tsa_lang::{Language, TestEntry, TestRunner};

use crate::action::Action;
use crate::actions::common::{Targets, cap, definitions_json, find_targets, fixed_cap, open_index};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `nav test_map`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Function or method under test; `ClassName.method` narrows.
    pub symbol: String,
    /// Project-relative file defining it (picks one of several definitions).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Most test functions to list (default 50). test_files is always complete.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct TestMap;

/// Lines of a file, read once per answer.
pub(crate) struct Lines<'a> {
    root: &'a Path,
    files: HashMap<String, Vec<String>>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(root: &'a Path) -> Self {
        Lines {
            root,
            files: HashMap::new(),
        }
    }

    /// Attribute lines directly above `line` (1-based), nearest first.
    fn attributes_above(&mut self, file: &str, line: u32) -> Vec<String> {
        let root = self.root;
        let lines = self.files.entry(file.to_owned()).or_insert_with(|| {
            tsa_analysis::security::read_text_in_root(root, file)
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
pub(crate) fn is_entry(s: &SymbolRow, lines: &mut Lines<'_>) -> bool {
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
fn run_command(root: &Path, language: &str, files: &[String], names: &[&SymbolRow]) -> String {
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
pub(crate) fn test_command(
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
            let pkg = tsa_analysis::security::inside_root(root, "package.json")
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

impl Action for TestMap {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "test_map";
    const SUMMARY: &'static str = "tests that exercise a function (direct, or one hop above a test helper) and the command to run them";
    const BRIEF: &'static str = "tests that exercise a function";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("function_name", "symbol")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 50)?;
        let root = ctx.root()?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let defs = match find_targets(
            ctx,
            index,
            "test_map",
            &args.symbol,
            args.file_path.as_deref(),
        )? {
            Targets::Found(d) => d,
            Targets::Missing(s) => return Ok(s.with("symbol", args.symbol.as_str())),
        };
        let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
        let mut g = IndexGraph::new(index);
        let direct = g.neighbors(&ids, Dir::Up)?;
        let mut syms: HashMap<i64, SymbolRow> = HashMap::new();
        load_symbols(index, &mut syms, direct.values().flatten().map(|h| h.node))?;
        let mut lines = Lines {
            root,
            files: HashMap::new(),
        };
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
        let mut rows: Vec<(&SymbolRow, Option<i64>)> = tests
            .iter()
            .filter_map(|t| {
                let via = edges
                    .iter()
                    .find(|((_, tt), _)| tt == t)
                    .and_then(|(_, v)| *v);
                syms.get(t).map(|s| (s, via))
            })
            .collect();
        rows.sort_by(|a, b| (&a.0.file, &a.0.qualname).cmp(&(&b.0.file, &b.0.qualname)));
        let test_files: Vec<String> = rows
            .iter()
            .map(|(s, _)| s.file.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let test_functions: Vec<Value> = rows
            .iter()
            .map(|(s, _)| json!(format!("{}::{}", s.file, s.qualname)))
            .collect();
        let via_helpers: Vec<Value> = rows
            .iter()
            .filter_map(|(s, via)| {
                let h = syms.get(&(*via)?)?;
                Some(json!({"test": format!("{}::{}", s.file, s.qualname), "helper": format!("{}::{}", h.file, h.qualname)}))
            })
            .collect();
        let total = rows.len();
        let edge_count = edges.len();
        let verdict = if total > 0 {
            Verdict::Info
        } else {
            Verdict::Warn
        };
        let language = rows
            .first()
            .map(|(s, _)| s.language.clone())
            .unwrap_or_else(|| defs[0].language.clone());
        let step = if total == 0 {
            format!(
                "No test reaches '{}' through resolved calls (directly or through one helper). Consider adding a test; nav action=callers shows its production callers.",
                args.symbol
            )
        } else {
            let names: Vec<&SymbolRow> = rows.iter().map(|(s, _)| *s).collect();
            run_command(root, &language, &test_files, &names)
        };
        let mut s = Success::new(
            verdict,
            format!(
                "test_map: '{}' is exercised by {total} test function(s) in {} file(s)",
                args.symbol,
                test_files.len()
            ),
        )
        .with("symbol", args.symbol.as_str())
        .with("definitions", definitions_json(&defs))
        .with_list(
            ListSpelling {
                list_key: "test_files",
                total_key: "test_file_count",
                listed_key: "test_files_listed",
                cap_key: "test_files_cap",
                noun: "test files",
                remedy: "narrow with file_path".into(),
            },
            Capped::collect(test_files.iter().map(|f| json!(f)), fixed_cap(1000)),
        )
        .with_list(
            ListSpelling {
                list_key: "test_functions",
                total_key: "unique_function_count",
                listed_key: "test_functions_listed",
                cap_key: "test_functions_cap",
                noun: "test functions",
                remedy: "raise limit; test_files is complete".into(),
            },
            Capped::collect(test_functions, limit),
        )
        .with_list(
            ListSpelling {
                list_key: "via_helpers",
                total_key: "via_helper_count",
                listed_key: "via_helpers_listed",
                cap_key: "via_helpers_cap",
                noun: "tests reached through a helper",
                remedy: "raise limit".into(),
            },
            Capped::collect(via_helpers, limit),
        )
        .with("edge_count", edge_count)
        .with("helpers_walked", helpers.len())
        .with_next_step(step)
        .with_agent("test_function_count", total);
        if defs.len() > 1 {
            s = s
                .with("ambiguous", true)
                .with("candidate_count", defs.len());
        }
        // Tests found through resolved calls only: the same trust as its callers.
        s = tsa_analysis::trust::Assessor::new(index, root)
            .assess(&defs, 0)?
            .annotate(s);
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
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
        let mut lines = Lines {
            root: dir.path(),
            files: HashMap::new(),
        };
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
        let mut lines = Lines {
            root: dir.path(),
            files: HashMap::new(),
        };
        let mut s = sym("helper", "rust");
        s.line = 3;
        assert!(!is_entry(&s, &mut lines));
        s.line = 6;
        assert!(is_entry(&s, &mut lines));
        s.line = 10;
        assert!(is_entry(&s, &mut lines));
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
