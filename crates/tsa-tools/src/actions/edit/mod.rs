//! `edit`: change analysis before an edit (impact, safety, guards, diffs).

pub(crate) mod ast_diff;
pub(crate) mod classify;
pub(crate) mod common;
pub(crate) mod constraints;
pub(crate) mod guard;
pub(crate) mod impact;
pub(crate) mod mutation_probe;
pub(crate) mod plan_rename;
pub(crate) mod pr;
pub(crate) mod refactor;
pub(crate) mod release_snapshot;
pub(crate) mod rename;
pub(crate) mod safe;
pub(crate) mod verify;
