//! Languages: which files are which language, their tree-sitter grammars and
//! `.scm` queries, and extraction of definitions, call sites and imports from
//! one parse of one file. Knows nothing about storage or resolution across files.

mod branches;
mod chain;
mod conventions;
pub mod docs;
mod extract;
mod languages;
mod macro_calls;
mod matcher;
mod model;
mod noise;
mod returns;
mod test_paths;
mod visit;

pub use conventions::{
    Convention, Conventions, DefaultVisibility, EntryPoints, Export, LineSyntax, ModuleVariables,
    PublicApi, ReturnForm, Routes, TestEntry, TestExt, TestFiles, TestNames, TestPaths, TestRunner,
};
pub use extract::{
    ExtractError, FactsHook, Prior, extract, extract_again, extract_with, parse_and_visit,
    parse_only, use_query_cursor, validate_queries,
};
pub use languages::{Family, Language, ModuleStyle, Tier};
pub use model::{Base, BaseKind, BranchKind, CallSite, Def, DefKind, Field, FileExtract, Import};
pub use returns::{alias_target, callback_param_type, param_range, return_type, type_name};
pub use test_paths::is_test_path;
pub use visit::{TreeVisitor, visit};
