//! End-to-end tests: the `tsa` binary over the CLI and as an MCP stdio server,
//! on fixture projects copied into temporary directories.

mod bad_input;
mod cli;
mod crash;
mod drift;
mod fixtures;
mod mcp;
mod nav_graph;
mod props;
mod support;
mod tidy;
