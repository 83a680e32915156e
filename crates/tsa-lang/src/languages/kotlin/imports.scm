; Kotlin imports (`a.b.C`, `a.b.*`, `a.b.C as D`); kotlin/mod.rs splits each.
(import) @import
