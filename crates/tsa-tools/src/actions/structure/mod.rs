//! `structure`: outlines and reads of files and classes.

pub(crate) mod analyze;
pub(crate) mod ast_path;
pub(crate) mod class_detail;
pub(crate) mod class_tree;
pub(crate) mod common;
pub(crate) mod explore;
pub(crate) mod outline;
pub(crate) mod read;
pub(crate) mod signatures;
pub(crate) mod sitemap;
