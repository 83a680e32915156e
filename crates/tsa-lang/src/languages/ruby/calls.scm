; Ruby call sites. A bare name is only a call when it has arguments or a block
; (`foo` alone may be a local variable).
(call !receiver method: (identifier) @name arguments: (argument_list)) @reference.call
(call !receiver method: (identifier) @name block: (_)) @reference.call

; `Foo.new(...)` / `Mod::Foo.new`: a construction, named after the class so it
; binds to the class definition.
((call receiver: (constant) @name method: (identifier)) @reference.call
  (#match? @reference.call "^[A-Z][A-Za-z0-9_]*\\s*\\.\\s*new\\b"))
((call receiver: (scope_resolution name: (constant) @name) method: (identifier)) @reference.call
  (#match? @reference.call "^[A-Za-z0-9_:]*\\s*\\.\\s*new\\b"))

; `Foo.bar` / `Mod::Foo.bar`: a constant receiver is a path (the last segment).
((call receiver: (constant) @path method: (identifier) @name) @reference.call
  (#not-match? @reference.call "^[A-Z][A-Za-z0-9_]*\\s*\\.\\s*new\\b"))
((call receiver: (scope_resolution name: (constant) @path) method: (identifier) @name) @reference.call
  (#not-match? @reference.call "^[A-Za-z0-9_:]*\\s*\\.\\s*new\\b"))

; `obj.m`, `self.m`, `@x.m`, `a&.m`, `foo.bar.m`: any receiver that is not a constant.
((call receiver: (_) @receiver method: (identifier) @name) @reference.call
  (#not-match? @receiver "^(::)?[A-Z][A-Za-z0-9_]*(::[A-Z][A-Za-z0-9_]*)*$"))
