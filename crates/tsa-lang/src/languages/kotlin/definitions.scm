; Kotlin definitions.
; `class` and `enum class` share one node: the declaration's head text tells them
; apart (the same regular expression in each pair of patterns, so exactly one kind
; matches a node). Supertypes (`: Base(x), Iface, Other by impl`) are all extends.
((class_declaration "class" name: (identifier) @name) @definition.class
  (#not-match? @definition.class "^(@[A-Za-z_.]+(\\([^)]*\\))?\\s+)*([a-z]+\\s+)*enum\\s+class\\b"))
((class_declaration
  "class"
  name: (identifier) @name
  (delegation_specifiers
    (delegation_specifier
      [(user_type) @extends
       (constructor_invocation (user_type) @extends)
       (explicit_delegation (user_type) @extends)]))) @definition.class
  (#not-match? @definition.class "^(@[A-Za-z_.]+(\\([^)]*\\))?\\s+)*([a-z]+\\s+)*enum\\s+class\\b"))
((class_declaration "class" name: (identifier) @name) @definition.enum
  (#match? @definition.enum "^(@[A-Za-z_.]+(\\([^)]*\\))?\\s+)*([a-z]+\\s+)*enum\\s+class\\b"))
((class_declaration
  "class"
  name: (identifier) @name
  (delegation_specifiers
    (delegation_specifier
      [(user_type) @extends
       (constructor_invocation (user_type) @extends)
       (explicit_delegation (user_type) @extends)]))) @definition.enum
  (#match? @definition.enum "^(@[A-Za-z_.]+(\\([^)]*\\))?\\s+)*([a-z]+\\s+)*enum\\s+class\\b"))

(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration
  "interface"
  name: (identifier) @name
  (delegation_specifiers
    (delegation_specifier
      [(user_type) @extends
       (constructor_invocation (user_type) @extends)
       (explicit_delegation (user_type) @extends)]))) @definition.interface

; `object Foo` is a class with one instance.
(object_declaration name: (identifier) @name) @definition.class
(object_declaration
  name: (identifier) @name
  (delegation_specifiers
    (delegation_specifier
      [(user_type) @extends
       (constructor_invocation (user_type) @extends)
       (explicit_delegation (user_type) @extends)]))) @definition.class

; Functions (top-level, member and extension functions). Companion objects are not
; definitions of their own: their functions nest in the enclosing class, which is how
; callers name them (`Order.of(...)`).
(function_declaration name: (identifier) @name) @definition.function

(type_alias type: (identifier) @name) @definition.type

; Top-level properties.
(source_file
  (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
