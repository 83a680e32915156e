; CSS outline: rule sets named by their selector list; @media, @supports and
; @layer blocks as modules named by their condition; @keyframes by their name.
; Nested rules (inside @media or CSS nesting) get qualified names.
(rule_set (selectors) @name) @definition.section
(media_statement . (_) @name) @definition.module
(supports_statement . (_) @name) @definition.module
((at_rule (at_keyword) @receiver . (keyword_query) @name) @definition.module
  (#eq? @receiver "@layer"))
(keyframes_statement (keyframes_name) @name) @definition.section
