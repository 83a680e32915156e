; Swift call sites: `f()` (also `Type(...)` initializers and trailing closures),
; `x.f()`, `self.f()`, `Type.f()`, `x?.f()` (the receiver is the target expression),
; and implicit members `.f()` (a static member of the type the context expects: the
; receiver is the bare `.`, which no rule types, so the site stays open).
(call_expression . (simple_identifier) @name) @reference.call
(call_expression
  . (navigation_expression
    target: (_) @receiver
    suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call
(call_expression
  . (prefix_expression
    operation: "." @receiver
    target: (simple_identifier) @name)) @reference.call
