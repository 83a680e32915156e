//! End-to-end tests: the `tsa` binary over the CLI and as an MCP stdio server,
//! on fixture projects copied into temporary directories.

mod arguments;
mod bad_input;
mod budget;
mod cli;
mod crash;
mod drift;
mod dsl;
mod edit_git;
mod faults;
mod fixtures;
mod graph_truth;
mod health_graph;
mod health_score;
mod history;
mod http;
mod knowledge;
mod limits;
mod load;
mod mcp;
mod nav_graph;
mod parity_core;
mod project;
mod project_metrics;
mod props;
mod resolution;
mod scip_export;
mod search_text;
mod security;
mod skills;
mod structure;
mod support;
mod tidy;
mod trust;
mod viz;
mod watch;
