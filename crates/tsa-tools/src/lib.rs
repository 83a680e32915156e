//! Tools and actions: the one request path shared by MCP and the CLI.
//!
//! `arguments -> dispatch (tool, action, strict parameter check, path boundary)
//! -> action (reads the index, returns a typed envelope) -> format`. Only this
//! crate decides what a tool answers; transports only carry the bytes.

mod action;
mod actions;
mod arguments;
mod catalog;
mod context;
mod dispatch;
mod heal;
mod help;
mod latency;
mod project_path;
mod resume;
mod schema;
pub mod skills;

/// The engines the actions adapt (`tsa-analysis`), public here as they were
/// before they moved there.
pub use tsa_analysis::{complexity, health, history, hyphae, mermaid};

/// Entry points of the fuzz targets (`fuzz/`), behind the `fuzzing` feature; not
/// part of the supported API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    pub use tsa_analysis::chain::parse as chain_parse;
}

pub use catalog::{ACTION_ALIASES, FACADES, Facade, available_actions};
pub use context::{Context, Subscription};
pub use dispatch::{Presentation, Reply, call, call_with, call_within};
pub use heal::{moved_aside_warning, remember as remember_index_note};
pub use project_path::ProjectPath;
pub use schema::{
    ActionDescription, ToolDescription, action_descriptions, tool_descriptions,
    universal_properties,
};
pub use tsa_analysis::Error as ToolError;
pub use tsa_analysis::security::resolve_in_root;
pub use tsa_format::OutputFormat;
