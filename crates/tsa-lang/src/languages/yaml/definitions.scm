; YAML outline: mapping keys, block (`a:`) and flow (`{a: 1}`) alike. A pair spans
; its value, so nested keys get qualified names (`services.web.image`); keys of
; mappings inside sequences nest under the sequence's key. Quoted keys keep their quotes.
(block_mapping_pair
  key: (flow_node [(plain_scalar) (double_quote_scalar) (single_quote_scalar)] @name)) @definition.variable
(flow_pair
  key: (flow_node [(plain_scalar) (double_quote_scalar) (single_quote_scalar)] @name)) @definition.variable
