; PHP call sites.
; `f()` and the global `\f()`.
(function_call_expression function: (name) @name) @reference.call
((function_call_expression function: (qualified_name (name) @name)) @reference.call
  (#match? @reference.call "^\\\\[A-Za-z0-9_]+\\s*\\("))
; `App\Support\f()`: the namespace is the path.
(function_call_expression
  function: (qualified_name prefix: (namespace_name) @path (name) @name)) @reference.call

; `$obj->m()`, `$this->m()`, `$a?->m()`.
(member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @receiver name: (name) @name) @reference.call

; `Foo::m()`, `self::m()`, `static::m()`, `parent::m()`, `App\Foo::m()` (last segment).
(scoped_call_expression scope: [(name) (relative_scope)] @path name: (name) @name) @reference.call
(scoped_call_expression scope: (qualified_name (name) @path) name: (name) @name) @reference.call

; `new Foo()` / `new App\Foo()`: a construction binds to the class.
((object_creation_expression (name) @name) @reference.call
  (#not-any-of? @name "self" "static" "parent"))
(object_creation_expression (qualified_name (name) @name)) @reference.call
