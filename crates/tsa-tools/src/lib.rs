//! Tools and actions: the one request path shared by MCP and the CLI.
//!
//! `arguments -> dispatch (tool, action, strict parameter check, path boundary)
//! -> action (reads the index, returns a typed envelope) -> format`. Only this
//! crate decides what a tool answers; transports only carry the bytes.

mod action;
mod actions;
mod arguments;
mod catalog;
mod chain;
pub mod complexity;
mod constraints;
mod context;
mod dispatch;
mod docrefs;
mod error;
mod git;
mod heal;
pub mod health;
pub mod history;
pub mod hyphae;
mod knowledge;
pub mod mermaid;
mod project_path;
mod schema;
mod security;
mod semdiff;
pub mod skills;
mod source;
mod text_search;
mod trust;

/// Entry points of the fuzz targets (`fuzz/`), behind the `fuzzing` feature; not
/// part of the supported API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::chain::parse as chain_parse;
}

pub use catalog::{ACTION_ALIASES, FACADES, Facade, available_actions};
pub use context::{Context, Subscription};
pub use dispatch::{Presentation, Reply, call, call_with};
pub use error::ToolError;
pub use heal::{moved_aside_warning, remember as remember_index_note};
pub use project_path::ProjectPath;
pub use schema::{
    ActionDescription, ToolDescription, action_descriptions, tool_descriptions,
    universal_properties,
};
pub use security::resolve_in_root;
pub use tsa_format::OutputFormat;
