; Call sites: a bare name, or an attribute call with its receiver text.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
