//! The action registry: one file per action, one line each here, alphabetical.

mod common;
mod index_full;
mod index_status;
mod nav_callees;
mod nav_callers;
mod search_symbol;
pub mod set_project_path;

use crate::action::DynAction;

/// Every action this build implements. Catalog actions missing here answer
/// `unsupported_action`.
pub static REGISTRY: &[&dyn DynAction] = &[
    &index_full::Full,
    &index_status::Status,
    &nav_callees::Callees,
    &nav_callers::Callers,
    &search_symbol::Symbol,
];
