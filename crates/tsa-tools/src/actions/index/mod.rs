//! `index`: building, syncing and inspecting the index.

pub(crate) mod auto;
pub(crate) mod build;
pub(crate) mod cache;
pub(crate) mod full;
pub(crate) mod knowledge;
pub(crate) mod schema;
pub(crate) mod scip;
pub(crate) mod status;
pub(crate) mod sync;
