; `require 'x'` and `require_relative 'x'` (@name only carries the predicate).
((call
  !receiver
  method: (identifier) @name
  arguments: (argument_list . (string))) @import
  (#any-of? @name "require" "require_relative"))
