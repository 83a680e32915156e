; Scala imports (`a.b.C`, `a.b.{C, D => E}`, `a.b._`, `a.b.*`, `a.b.C as D`);
; scala/mod.rs splits each into the names it binds.
(import_declaration) @import
