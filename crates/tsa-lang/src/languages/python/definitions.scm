; Python definitions. Methods are functions whose enclosing definition is a class;
; the shared extractor decides that from nesting.
(function_definition name: (identifier) @name) @definition.function
(class_definition
  name: (identifier) @name
  superclasses: (argument_list [(identifier) (attribute)] @extends)) @definition.class
(class_definition name: (identifier) @name) @definition.class
