//! `index scip`: compiler-grade edges from SCIP indexes the project already makes
//! (`scip-python`, `scip-typescript`, `rust-analyzer scip`, `scip-go`, ...).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{DEFAULT_SCIP, ScipReport};

use crate::action::Action;
use crate::actions::common::{build_index, fixed_cap, to_value};
use crate::project_path::{ProjectPath, given_all};
use crate::{Context, ToolError};

/// Arguments of `index scip`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// SCIP files inside the project (default `index.scip` at the root). Later
    /// builds pick them up again whenever they change.
    #[serde(default)]
    pub input_paths: Option<Vec<ProjectPath>>,
}

pub struct Scip;

/// The fields of a SCIP import, shared with `index status` and the builds.
#[derive(Debug, Serialize)]
pub struct ScipFields<'a> {
    pub inputs: &'a [String],
    pub documents: usize,
    pub documents_fresh: usize,
    pub documents_stale: usize,
    pub documents_without_file: usize,
    pub call_sites_upgraded: usize,
    pub call_sites_added: usize,
    pub call_sites_contradicted: usize,
    pub call_sites_external: usize,
    pub references_without_call_site: usize,
    pub unmapped_targets: usize,
    pub bytes: u64,
    pub import_ms: u128,
}

/// [`ScipFields`] as JSON.
pub(crate) fn report_json(r: &ScipReport) -> Value {
    to_value(&ScipFields {
        inputs: &r.inputs,
        documents: r.documents,
        documents_fresh: r.fresh,
        documents_stale: r.stale,
        documents_without_file: r.without_file,
        call_sites_upgraded: r.upgraded,
        call_sites_added: r.added,
        call_sites_contradicted: r.contradicted,
        call_sites_external: r.external,
        references_without_call_site: r.references_without_call_site,
        unmapped_targets: r.unmapped_targets,
        bytes: r.bytes,
        import_ms: r.ms,
    })
}

impl Action for Scip {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "scip";
    const SUMMARY: &'static str =
        "import SCIP indexes (compiler-grade call edges, resolution=compiler) into the index";
    const BRIEF: &'static str = "import SCIP indexes";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let given = args
            .input_paths
            .map_or_else(|| vec![DEFAULT_SCIP.to_owned()], |p| given_all(&p));
        if given.is_empty() {
            return Err(ToolError::Validation(
                "parameter 'input_paths' must name at least one SCIP file".into(),
            ));
        }
        let mut inputs = Vec::new();
        for p in &given {
            let (abs, rel) = resolve_in_root(root, p)?;
            if !abs.is_file() {
                return Err(ToolError::NotFound(rel));
            }
            inputs.push(rel);
        }
        // The index first, current with the files the SCIP documents describe.
        build_index(ctx, &ctx.build_options())?;
        let r = tsa_index::import_scip(root, &inputs).map_err(|e| match e {
            tsa_index::IndexError::Scip(m) => ToolError::Validation(format!(
                "cannot read SCIP file {m}; the index is unchanged (re-run the indexer that made it)"
            )),
            other => ToolError::Index(other),
        })?;
        let verdict = if r.stale > 0 || r.fresh == 0 {
            Verdict::Warn
        } else {
            Verdict::Info
        };
        let summary = format!(
            "index scip: {} document(s), {} fresh, {} stale, {} without a file; call sites upgraded {}, added {}, contradicted {}, external {}",
            r.documents,
            r.fresh,
            r.stale,
            r.without_file,
            r.upgraded,
            r.added,
            r.contradicted,
            r.external
        );
        let mut s = Success::new(verdict, summary)
            .with("scip", report_json(&r))
            .with_list(
                ListSpelling {
                    list_key: "stale_files",
                    total_key: "stale_file_count",
                    listed_key: "stale_files_listed",
                    cap_key: "stale_files_cap",
                    noun: "stale documents",
                    remedy: "re-run the SCIP indexer, then index action=scip".into(),
                },
                Capped::counted(
                    r.stale_files.iter().map(|f| Value::from(f.as_str())).collect(),
                    r.stale,
                    fixed_cap(20),
                ),
            )
            .with_next_step(
                "Ask the graph: nav action=callers function_name=<name>; rows bound by the SCIP index show resolution=compiler",
            );
        if r.stale > 0 {
            s = s.with_warning(format!(
                "stale_scip_documents: {} document(s) describe an older version of their file and were ignored; those files keep the heuristic edges",
                r.stale
            ));
        }
        if r.fresh == 0 {
            s = s.with_warning(
                "no_fresh_scip_documents: no document of the SCIP input matches an indexed file as it is now".to_owned(),
            );
        }
        Ok(s)
    }
}

/// A build's SCIP pick-up in its answer: the import it ran, or why it failed.
pub(crate) fn with_build_scip(mut s: Success, r: &tsa_index::BuildReport) -> Success {
    if let Some(scip) = &r.scip {
        s = s.with("scip", report_json(scip));
    }
    if let Some(e) = &r.scip_error {
        s = s.with_warning(format!(
            "scip_import_failed: {e}; the heuristic edges stand (re-run the SCIP indexer)"
        ));
    }
    s
}
