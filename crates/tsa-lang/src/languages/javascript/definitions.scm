; JavaScript definitions. Methods are functions nested in a class: the shared
; extractor turns them into methods from nesting, so class members are captured
; as functions here.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

; `const f = () => ...`, `let g = function () {...}`, `var h = function* () {...}`:
; the function node is the definition (its header is the signature).
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @definition.function)

; CommonJS exports: `exports.f = function () {...}`, `module.exports.g = () => ...`.
; (@receiver only constrains the match here; definitions ignore it.)
(assignment_expression
  left: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)] @definition.function
  (#match? @receiver "^(module\\.)?exports$"))

; Classes, with their base (`extends Base`, `extends ns.Base`).
(class_declaration name: (identifier) @name) @definition.class
(class_declaration
  name: (identifier) @name
  (class_heritage [(identifier) (member_expression)] @extends)) @definition.class

; `const Foo = class extends Base {...}`.
(variable_declarator
  name: (identifier) @name
  value: (class) @definition.class)
(variable_declarator
  name: (identifier) @name
  value: (class (class_heritage [(identifier) (member_expression)] @extends)) @definition.class)

; Class members: methods (also getters, setters, `constructor`, `#private`) and
; fields holding a function (`onClick = () => {...}`). Object-literal methods are
; not definitions: they belong to no named scope.
(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name) @definition.function)
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name
    value: [(arrow_function) (function_expression)] @definition.function))
