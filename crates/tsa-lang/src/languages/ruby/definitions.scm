; Ruby definitions. `def` inside a class becomes a method (the shared extractor
; decides from nesting); `def self.x` is a singleton method of the same class.
(class name: [(constant) (scope_resolution)] @name) @definition.class
(class
  name: [(constant) (scope_resolution)] @name
  superclass: (superclass [(constant) (scope_resolution)] @extends)) @definition.class
; `include Mod` / `prepend Mod` in a class body: the mixin is an implemented base.
; (@receiver only carries the predicate; definitions ignore it.)
((class
  name: [(constant) (scope_resolution)] @name
  body: (body_statement
    (call
      !receiver
      method: (identifier) @receiver
      arguments: (argument_list [(constant) (scope_resolution)] @implements))))
  (#any-of? @receiver "include" "prepend"))
  @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function
