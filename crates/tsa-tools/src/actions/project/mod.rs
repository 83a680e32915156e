//! `project`: the project as a whole (overview, files, metrics, workflow, journal).

pub(crate) mod card;
pub(crate) mod doc_sync;
pub(crate) mod files;
pub(crate) mod journal;
pub(crate) mod metrics;
pub(crate) mod overview;
pub(crate) mod parser;
pub(crate) mod skills;
pub(crate) mod smart;
pub(crate) mod tools;
pub(crate) mod workflow;
