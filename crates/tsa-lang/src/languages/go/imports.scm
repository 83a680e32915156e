; Go imports: one `import_spec` per imported path (single or grouped form);
; go/mod.rs turns each into the package name it binds.
(import_spec) @import
