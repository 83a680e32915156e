; Java imports (single-type, on-demand, static); java/mod.rs splits each into
; module and imported name.
(import_declaration) @import
