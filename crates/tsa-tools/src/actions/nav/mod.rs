//! `nav`: the call graph (callers, callees, trees, paths, impact, tests, history).

pub(crate) mod call_path;
pub(crate) mod callee_tree;
pub(crate) mod callees;
pub(crate) mod caller_tree;
pub(crate) mod callers;
pub(crate) mod co_change;
pub(crate) mod context;
pub(crate) mod impact;
pub(crate) mod lineage;
pub(crate) mod navigate;
pub(crate) mod pulse;
pub(crate) mod pulse_batch;
pub(crate) mod resolve;
pub(crate) mod test_map;
pub(crate) mod trace;
pub(crate) mod xref;
