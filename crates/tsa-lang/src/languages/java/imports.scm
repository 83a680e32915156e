; java: imports (to be written)
