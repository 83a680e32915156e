; Lua is a symbol-tier language: no call edges.
