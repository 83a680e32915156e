//! `search`: finding symbols and text (symbol, content, grep, chain, select, subscriptions).

pub(crate) mod batch;
pub(crate) mod chain;
pub(crate) mod content;
pub(crate) mod grep;
pub(crate) mod query;
pub(crate) mod select;
pub(crate) mod semantic;
pub(crate) mod subscribe;
pub(crate) mod symbol;
pub(crate) mod text;
pub(crate) mod tql_execute;
pub(crate) mod tql_schema;
pub(crate) mod unsubscribe;
