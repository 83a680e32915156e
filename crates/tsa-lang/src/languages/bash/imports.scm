; `source x.sh` and `. x.sh` (@name only carries the predicate).
((command
  name: (command_name (word) @name)
  argument: (_)) @import
  (#any-of? @name "source" "."))
