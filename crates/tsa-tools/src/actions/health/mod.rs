//! `health`: code health (dead code, scores, dependencies, routes) and its shared models.

pub(crate) mod common;
pub(crate) mod dead;
pub(crate) mod deps;
pub(crate) mod file;
pub(crate) mod heatmap;
pub(crate) mod imports;
pub(crate) mod matrix;
pub(crate) mod middleware;
pub(crate) mod overview;
pub(crate) mod patterns;
pub(crate) mod project;
pub(crate) mod refactor_queue;
pub(crate) mod routes;
pub(crate) mod scale;
pub(crate) mod self_health;
pub(crate) mod test_gap;
pub(crate) mod unreachable;
