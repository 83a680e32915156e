; Import statements; python/mod.rs turns each into its bound names.
(import_statement) @import
(import_from_statement) @import
