//! The action registry: one file per action, one line each here, alphabetical.

mod common;
mod edit_refactor;
mod edit_safe;
mod graph;
mod health_common;
mod health_file;
mod health_heatmap;
mod health_patterns;
mod health_project;
mod health_scale;
mod index_auto;
mod index_build;
mod index_cache;
mod index_full;
mod index_status;
mod index_sync;
mod nav_call_path;
mod nav_callee_tree;
mod nav_callees;
mod nav_caller_tree;
mod nav_callers;
mod nav_context;
mod nav_impact;
mod nav_navigate;
mod nav_resolve;
mod nav_test_map;
mod nav_trace;
mod nav_xref;
mod search_batch;
mod search_chain;
mod search_content;
mod search_grep;
mod search_query;
mod search_select;
mod search_subscribe;
mod search_symbol;
mod search_unsubscribe;
pub mod set_project_path;
mod text_common;

use crate::action::DynAction;

/// Every action this build implements. Catalog actions missing here answer
/// `unsupported_action`.
pub static REGISTRY: &[&dyn DynAction] = &[
    &edit_refactor::Refactor,
    &edit_safe::Safe,
    &health_file::FileHealth,
    &health_heatmap::Heatmap,
    &health_patterns::Patterns,
    &health_project::ProjectHealth,
    &health_scale::Scale,
    &index_auto::Auto,
    &index_build::Build,
    &index_cache::Cache,
    &index_full::Full,
    &index_status::Status,
    &index_sync::Sync,
    &nav_call_path::CallPath,
    &nav_callee_tree::CalleeTree,
    &nav_callees::Callees,
    &nav_caller_tree::CallerTree,
    &nav_callers::Callers,
    &nav_context::TaskContext,
    &nav_impact::Impact,
    &nav_navigate::Navigate,
    &nav_resolve::Resolve,
    &nav_test_map::TestMap,
    &nav_trace::Trace,
    &nav_xref::Xref,
    &search_batch::Batch,
    &search_chain::Chain,
    &search_content::Content,
    &search_grep::Grep,
    &search_query::QueryAction,
    &search_select::Select,
    &search_subscribe::Subscribe,
    &search_symbol::Symbol,
    &search_unsubscribe::Unsubscribe,
];
