//! The analysis engines below the actions: what `tsa-tools`' actions compute with.
//!
//! Graph walks over resolved edges, the Hyphae selector and the chain DSL, the
//! health scorer and the graph-health models (dead code, file imports, routes),
//! cyclomatic complexity, caller trust, the semantic diff, git change sets and
//! history, text search, the code + docs knowledge graph, Mermaid pictures, the
//! path boundary, and the error type every failure envelope is written from.
//! Engines read the index (`tsa-index`) and parse with `tsa-lang`; they know nothing
//! of the dispatcher, a session or a transport (never `tsa-tools`, `tsa-mcp` or
//! `tsa-cli`).

pub mod activation;
pub mod ast_view;
pub mod call_graph;
pub mod call_paths;
pub mod card;
pub mod chain;
pub mod change_impact;
pub mod class_members;
pub mod class_tree;
pub mod co_change;
pub mod complexity;
pub mod constraints;
pub mod docrefs;
mod error;
pub mod explore;
pub mod file_table;
pub mod flat;
pub mod git;
pub mod graph;
pub mod health;
pub mod hierarchy;
pub mod history;
pub mod hyphae;
pub mod impact;
pub mod journal;
pub mod knowledge;
pub mod literal_search;
pub mod mermaid;
pub mod middleware;
pub mod mutation;
pub mod navigate;
pub mod project;
pub mod pulse;
pub mod read_range;
pub mod rename;
pub mod resolve;
pub mod run_tree;
pub mod security;
pub mod semantic;
pub mod semdiff;
pub mod signature;
pub mod similarity;
pub mod sitemap;
pub mod snapshot;
pub mod source;
pub mod state;
pub mod suggest;
pub mod task_context;
pub mod test_map;
#[cfg(test)]
mod test_support;
pub mod text_batch;
pub mod text_search;
pub mod trees;
pub mod trust;
pub mod ts_query;
pub mod uml;
pub mod unreachable;
pub mod usage_trace;
pub mod workflow;
pub mod xref;

/// Why a call failed; `tsa-tools` re-exports it as `ToolError`.
pub use error::ToolError as Error;
use error::ToolError;
