; C definitions. Only functions with a body are definitions: prototypes in headers
; are declarations and are skipped.
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition.function

; Function-like macros are called like functions.
(preproc_function_def name: (identifier) @name) @definition.function

; Named structs, unions and enums with a body (a bare `struct x` is a use).
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

; `typedef struct { ... } Name;`: an anonymous body takes the typedef's name.
(type_definition
  type: (struct_specifier !name body: (_)) @definition.struct
  declarator: (type_identifier) @name)
(type_definition
  type: (union_specifier !name body: (_)) @definition.struct
  declarator: (type_identifier) @name)
(type_definition
  type: (enum_specifier !name body: (_)) @definition.enum
  declarator: (type_identifier) @name)

; `typedef <type> Name;` and `typedef <type> *Name;` over a type without a body.
(type_definition
  type: [
    (primitive_type)
    (sized_type_specifier)
    (type_identifier)
    (struct_specifier !body)
    (union_specifier !body)
    (enum_specifier !body)
  ]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
  ]) @definition.type

; `typedef int (*handler_fn)(int);`
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))) @definition.type

; `typedef struct tag { ... } Alias;` with an alias other than the tag: the struct is
; indexed under its tag above, the alias here at its own name (the tag is captured as
; @path only to compare it; definitions ignore that capture).
((type_definition
  type: [(struct_specifier name: (_) @path body: (_))
         (union_specifier name: (_) @path body: (_))
         (enum_specifier name: (_) @path body: (_))]
  declarator: (type_identifier) @name @definition.type)
  (#not-eq? @path @name))
