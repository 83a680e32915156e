; C++ definitions. Functions with a body only (declarations inside a class body or
; a header are skipped). A function directly inside a class becomes its method by
; nesting; an out-of-class `void Foo::bar() {}` is named `bar` at its own place.
(function_definition
  declarator: (function_declarator
    declarator: [
      (identifier) @name
      (field_identifier) @name
      (operator_name) @name
      (destructor_name) @name
      (qualified_identifier name: [(identifier) (operator_name) (destructor_name)] @name)
      (qualified_identifier
        name: (qualified_identifier name: [(identifier) (operator_name) (destructor_name)] @name))
    ])) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: [
        (identifier) @name
        (field_identifier) @name
        (operator_name) @name
        (qualified_identifier name: [(identifier) (operator_name)] @name)
        (qualified_identifier
          name: (qualified_identifier name: [(identifier) (operator_name)] @name))
      ]))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: [
          (identifier) @name
          (field_identifier) @name
          (qualified_identifier name: (identifier) @name)
        ])))) @definition.function
(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: [
        (identifier) @name
        (field_identifier) @name
        (operator_name) @name
        (qualified_identifier name: [(identifier) (operator_name)] @name)
        (qualified_identifier
          name: (qualified_identifier name: [(identifier) (operator_name)] @name))
      ]))) @definition.function

; Function-like macros are called like functions.
(preproc_function_def name: (identifier) @name) @definition.function

; Classes, structs and unions with a body; bases from the base clause.
(class_specifier
  name: [(type_identifier) (template_type)] @name
  body: (_)) @definition.class
(class_specifier
  name: [(type_identifier) (template_type)] @name
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @extends)
  body: (_)) @definition.class
(struct_specifier
  name: [(type_identifier) (template_type)] @name
  body: (_)) @definition.struct
(struct_specifier
  name: [(type_identifier) (template_type)] @name
  (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @extends)
  body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum

; `typedef struct { ... } Name;`: an anonymous body takes the typedef's name.
(type_definition
  type: (struct_specifier !name body: (_)) @definition.struct
  declarator: (type_identifier) @name)
(type_definition
  type: (enum_specifier !name body: (_)) @definition.enum
  declarator: (type_identifier) @name)

; `typedef <type> Name;` over a type without a body, and `using Name = <type>;`.
(type_definition
  type: [
    (primitive_type)
    (sized_type_specifier)
    (type_identifier)
    (qualified_identifier)
    (template_type)
    (struct_specifier !body)
    (class_specifier !body)
    (enum_specifier !body)
  ]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
  ]) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type

; Named namespaces (`namespace a::b` is one module named `a::b`).
(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module
