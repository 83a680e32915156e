; Scala definitions (symbol tier). Classes and objects are classes, traits are traits;
; `def`s nested in a class, object or trait become its methods.
(class_definition name: [(identifier) (operator_identifier)] @name) @definition.class
(class_definition
  name: [(identifier) (operator_identifier)] @name
  extend: (extends_clause
    [(type_identifier) (generic_type) (stable_type_identifier)] @extends)) @definition.class
(object_definition name: [(identifier) (operator_identifier)] @name) @definition.class
(object_definition
  name: [(identifier) (operator_identifier)] @name
  extend: (extends_clause
    [(type_identifier) (generic_type) (stable_type_identifier)] @extends)) @definition.class
(trait_definition name: [(identifier) (operator_identifier)] @name) @definition.trait
(trait_definition
  name: [(identifier) (operator_identifier)] @name
  extend: (extends_clause
    [(type_identifier) (generic_type) (stable_type_identifier)] @extends)) @definition.trait
(enum_definition name: [(identifier) (operator_identifier)] @name) @definition.enum
(enum_definition
  name: [(identifier) (operator_identifier)] @name
  extend: (extends_clause
    [(type_identifier) (generic_type) (stable_type_identifier)] @extends)) @definition.enum
(package_object name: [(identifier) (operator_identifier)] @name) @definition.module

(function_definition name: [(identifier) (operator_identifier)] @name) @definition.function
(function_declaration name: [(identifier) (operator_identifier)] @name) @definition.function

(type_definition name: (type_identifier) @name) @definition.type

; Top-level `val`/`var`s: in the file, a package block or a package object.
(compilation_unit (val_definition pattern: (identifier) @name) @definition.variable)
(compilation_unit (var_definition pattern: (identifier) @name) @definition.variable)
(package_clause body: (template_body (val_definition pattern: (identifier) @name) @definition.variable))
(package_clause body: (template_body (var_definition pattern: (identifier) @name) @definition.variable))
(package_object body: (template_body (val_definition pattern: (identifier) @name) @definition.variable))
(package_object body: (template_body (var_definition pattern: (identifier) @name) @definition.variable))
