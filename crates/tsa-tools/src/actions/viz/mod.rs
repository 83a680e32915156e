//! `viz`: graphs and diagrams (call graph, knowledge graph, UML, similarity).

pub(crate) mod graph;
pub(crate) mod knowledge;
pub(crate) mod similarity;
pub(crate) mod uml;
