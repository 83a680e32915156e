//! `nav callee_tree`: the nested tree of what a function calls, level by level.

use tsa_analysis::graph::Dir;
use tsa_envelope::Success;

use crate::action::Action;
use crate::actions::nav::caller_tree::{Args, run_tree};
use crate::{Context, ToolError};

pub struct CalleeTree;

impl Action for CalleeTree {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "callee_tree";
    const SUMMARY: &'static str = "nested tree of callees to max_depth (cycles marked, exact node count, each node with its edge's resolution)";
    const BRIEF: &'static str = "tree of callees";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("function_name", "symbol")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        run_tree(ctx, args, Dir::Down)
    }
}
