//! The action registry: one folder per tool, one file per action, one line each
//! here, sorted by tool then action.

pub(crate) mod common;
pub mod set_project_path;
mod text_common;

mod edit;
mod health;
mod index;
mod nav;
mod project;
mod search;
mod structure;
mod viz;

use crate::action::DynAction;

/// Parameters `edit plan_rename` refuses by name (it never writes).
pub(crate) use edit::plan_rename::PREVIEW_ONLY_REFUSED as PLAN_RENAME_REFUSED;

/// Every action this build implements, sorted by tool then action. Catalog actions
/// missing here answer `unsupported_action`.
pub static REGISTRY: &[&dyn DynAction] = &[
    &edit::ast_diff::AstDiff,
    &edit::classify::Classify,
    &edit::constraints::Constraints,
    &edit::guard::Guard,
    &edit::impact::Impact,
    &edit::mutation_probe::MutationProbe,
    &edit::plan_rename::PlanRename,
    &edit::pr::Pr,
    &edit::refactor::Refactor,
    &edit::release_snapshot::ReleaseSnapshot,
    &edit::rename::Rename,
    &edit::safe::Safe,
    &edit::verify::Verify,
    &health::dead::Dead,
    &health::deps::Deps,
    &health::file::FileHealth,
    &health::heatmap::Heatmap,
    &health::imports::Imports,
    &health::matrix::Matrix,
    &health::middleware::Middleware,
    &health::overview::Overview,
    &health::patterns::Patterns,
    &health::project::ProjectHealth,
    &health::refactor_queue::RefactorQueue,
    &health::routes::Routes,
    &health::scale::Scale,
    &health::self_health::SelfHealth,
    &health::test_gap::TestGap,
    &health::unreachable::Unreachable,
    &index::auto::Auto,
    &index::build::Build,
    &index::cache::Cache,
    &index::full::Full,
    &index::knowledge::Knowledge,
    &index::schema::Schema,
    &index::scip::Scip,
    &index::status::Status,
    &index::sync::Sync,
    &nav::call_path::CallPath,
    &nav::callee_tree::CalleeTree,
    &nav::callees::Callees,
    &nav::caller_tree::CallerTree,
    &nav::callers::Callers,
    &nav::co_change::CoChange,
    &nav::context::TaskContext,
    &nav::impact::Impact,
    &nav::lineage::Lineage,
    &nav::navigate::Navigate,
    &nav::pulse::PulseAction,
    &nav::pulse_batch::PulseBatch,
    &nav::resolve::Resolve,
    &nav::test_map::TestMap,
    &nav::trace::Trace,
    &nav::xref::Xref,
    &project::card::ProjectCard,
    &project::doc_sync::DocSync,
    &project::files::Files,
    &project::journal::Journal,
    &project::metrics::Metrics,
    &project::overview::Overview,
    &project::parser::Parser,
    &project::skills::Skills,
    &project::smart::Smart,
    &project::tools::Tools,
    &project::workflow::Workflow,
    &search::batch::Batch,
    &search::chain::Chain,
    &search::content::Content,
    &search::grep::Grep,
    &search::query::QueryAction,
    &search::select::Select,
    &search::semantic::Semantic,
    &search::subscribe::Subscribe,
    &search::symbol::Symbol,
    &search::text::Text,
    &search::tql_execute::TqlExecute,
    &search::tql_schema::TqlSchema,
    &search::unsubscribe::Unsubscribe,
    &structure::analyze::Analyze,
    &structure::ast_path::AstPath,
    &structure::class_detail::ClassDetail,
    &structure::class_tree::ClassTree,
    &structure::explore::Explore,
    &structure::outline::Outline,
    &structure::read::Read,
    &structure::signatures::Signatures,
    &structure::sitemap::Sitemap,
    &viz::graph::Graph,
    &viz::knowledge::Knowledge,
    &viz::similarity::Similarity,
    &viz::uml::Uml,
];
