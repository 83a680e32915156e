; `require "mod"` and `require("mod")` with a literal module name (@name only carries
; the predicate).
((function_call
  name: (identifier) @name
  arguments: (arguments . (string))) @import
  (#eq? @name "require"))
