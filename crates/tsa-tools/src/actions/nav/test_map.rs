//! `nav test_map`: which tests exercise a function: test-code callers that follow
//! their language's test-entry convention, plus the tests one hop above helpers in
//! test code; with the command to run them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::graph::{Definition, definitions};
use tsa_analysis::test_map::{run_command, test_map};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;

use crate::action::Action;
use crate::actions::common::{
    Targets, cap, find_targets, fixed_cap, open_index, to_value, with_payload,
};
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

pub(crate) use tsa_analysis::test_map::{Lines, is_entry, test_command};

/// The payload of `nav test_map`, in answer order (test files, test functions and
/// tests reached through a helper follow as lists; the trust fields after it).
#[derive(Clone, Debug, Serialize)]
pub struct TestMapPayload<'a> {
    /// The symbol as asked.
    pub symbol: &'a str,
    /// Its definitions.
    pub definitions: Vec<Definition>,
    /// (definition, test) pairs.
    pub edge_count: usize,
    /// Test helpers walked one hop up.
    pub helpers_walked: usize,
    /// Present (true) when the name has several definitions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ambiguous: Option<bool>,
    /// With ambiguous: how many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_count: Option<usize>,
}

/// A test that reaches the function through a test helper.
#[derive(Clone, Debug, Serialize)]
pub struct ViaHelper {
    /// `file::qualified_name` of the test.
    pub test: String,
    /// `file::qualified_name` of the helper.
    pub helper: String,
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
        let r = test_map(index, root, &defs)?;
        let full = |s: &SymbolRow| format!("{}::{}", s.file, s.qualname);
        let test_functions: Vec<Value> =
            r.tests.iter().map(|t| Value::from(full(&t.test))).collect();
        let via_helpers: Vec<Value> = r
            .tests
            .iter()
            .filter_map(|t| {
                let h = t.helper.as_ref()?;
                Some(to_value(&ViaHelper {
                    test: full(&t.test),
                    helper: full(h),
                }))
            })
            .collect();
        let test_files = &r.test_files;
        let total = r.tests.len();
        let verdict = if total > 0 {
            Verdict::Info
        } else {
            Verdict::Warn
        };
        let language = r
            .tests
            .first()
            .map(|t| t.test.language.clone())
            .unwrap_or_else(|| defs[0].language.clone());
        let step = if total == 0 {
            format!(
                "No test reaches '{}' through resolved calls (directly or through one helper). Consider adding a test; nav action=callers shows its production callers.",
                args.symbol
            )
        } else {
            let names: Vec<&SymbolRow> = r.tests.iter().map(|t| &t.test).collect();
            run_command(root, &language, test_files, &names)
        };
        let payload = TestMapPayload {
            symbol: &args.symbol,
            definitions: definitions(&defs),
            edge_count: r.edge_count,
            helpers_walked: r.helpers_walked,
            ambiguous: (defs.len() > 1).then_some(true),
            candidate_count: (defs.len() > 1).then_some(defs.len()),
        };
        let mut s = with_payload(
            Success::new(
                verdict,
                format!(
                    "test_map: '{}' is exercised by {total} test function(s) in {} file(s)",
                    args.symbol,
                    test_files.len()
                ),
            ),
            &payload,
        )
        .with_list(
            ListSpelling {
                list_key: "test_files",
                total_key: "test_file_count",
                listed_key: "test_files_listed",
                cap_key: "test_files_cap",
                noun: "test files",
                remedy: "narrow with file_path".into(),
            },
            Capped::collect(
                test_files.iter().map(|f| Value::from(f.as_str())),
                fixed_cap(1000),
            ),
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
        .with_next_step(step)
        .with_agent("test_function_count", total);
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
