
; TSX: components rendered as elements (`<Foo />`, `<Foo.Item>`) are calls of the
; component. Lower-case names are intrinsic elements (`<div>`), not calls.
(jsx_self_closing_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call
(jsx_opening_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call
(jsx_self_closing_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call
(jsx_opening_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call
