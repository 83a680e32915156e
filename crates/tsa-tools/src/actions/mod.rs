//! The action registry: one file per action, one line each here, alphabetical.

pub(crate) mod common;
mod edit_ast_diff;
mod edit_classify;
mod edit_common;
mod edit_constraints;
mod edit_guard;
mod edit_impact;
mod edit_pr;
mod edit_refactor;
mod edit_safe;
mod graph;
mod health_common;
mod health_dead;
mod health_deadcode;
mod health_deps;
mod health_file;
mod health_files;
mod health_heatmap;
mod health_imports;
mod health_matrix;
mod health_model;
mod health_overview;
mod health_patterns;
mod health_project;
mod health_routes;
mod health_routes_scan;
mod health_scale;
mod health_test_gap;
mod index_auto;
mod index_build;
mod index_cache;
mod index_full;
mod index_knowledge;
mod index_scip;
mod index_status;
mod index_sync;
mod nav_call_path;
mod nav_callee_tree;
mod nav_callees;
mod nav_caller_tree;
mod nav_callers;
mod nav_co_change;
mod nav_context;
mod nav_impact;
mod nav_lineage;
mod nav_navigate;
mod nav_resolve;
mod nav_test_map;
mod nav_trace;
mod nav_xref;
mod project_doc_sync;
mod project_files;
mod project_journal;
mod project_metrics;
mod project_overview;
mod project_parser;
mod project_skills;
mod project_smart;
mod project_tools;
mod project_workflow;
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
mod structure_analyze;
mod structure_ast_path;
mod structure_class_detail;
mod structure_class_tree;
mod structure_common;
mod structure_explore;
mod structure_outline;
mod structure_read;
mod structure_signatures;
mod structure_sitemap;
mod text_common;
mod viz_graph;
mod viz_knowledge;
mod viz_similarity;
mod viz_uml;

use crate::action::DynAction;

/// Every action this build implements. Catalog actions missing here answer
/// `unsupported_action`.
pub static REGISTRY: &[&dyn DynAction] = &[
    &edit_ast_diff::AstDiff,
    &edit_classify::Classify,
    &edit_constraints::Constraints,
    &edit_guard::Guard,
    &edit_impact::Impact,
    &edit_pr::Pr,
    &health_dead::Dead,
    &health_deps::Deps,
    &health_imports::Imports,
    &health_matrix::Matrix,
    &health_overview::Overview,
    &health_routes::Routes,
    &health_test_gap::TestGap,
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
    &index_knowledge::Knowledge,
    &index_scip::Scip,
    &index_status::Status,
    &index_sync::Sync,
    &nav_call_path::CallPath,
    &nav_callee_tree::CalleeTree,
    &nav_callees::Callees,
    &nav_caller_tree::CallerTree,
    &nav_callers::Callers,
    &nav_co_change::CoChange,
    &nav_context::TaskContext,
    &nav_impact::Impact,
    &nav_lineage::Lineage,
    &nav_navigate::Navigate,
    &nav_resolve::Resolve,
    &nav_test_map::TestMap,
    &nav_trace::Trace,
    &nav_xref::Xref,
    &project_doc_sync::DocSync,
    &project_files::Files,
    &project_journal::Journal,
    &project_metrics::Metrics,
    &project_overview::Overview,
    &project_parser::Parser,
    &project_skills::Skills,
    &project_smart::Smart,
    &project_tools::Tools,
    &project_workflow::Workflow,
    &search_batch::Batch,
    &search_chain::Chain,
    &search_content::Content,
    &search_grep::Grep,
    &search_query::QueryAction,
    &search_select::Select,
    &search_subscribe::Subscribe,
    &search_symbol::Symbol,
    &search_unsubscribe::Unsubscribe,
    &structure_analyze::Analyze,
    &structure_ast_path::AstPath,
    &structure_class_detail::ClassDetail,
    &structure_class_tree::ClassTree,
    &structure_explore::Explore,
    &structure_outline::Outline,
    &structure_read::Read,
    &structure_signatures::Signatures,
    &structure_sitemap::Sitemap,
    &viz_graph::Graph,
    &viz_knowledge::Knowledge,
    &viz_similarity::Similarity,
    &viz_uml::Uml,
];
