; Kotlin call sites: `f()`, `f<T>()`, `f { ... }`, and `x.f()` / `x?.f()` with the
; navigation's left side as receiver (`this`, `super`, a value, a type or an object).
(call_expression . (identifier) @name) @reference.call
(call_expression
  . (navigation_expression . (_) @receiver (identifier) @name .)) @reference.call
