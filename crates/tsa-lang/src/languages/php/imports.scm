; php: imports (to be written)
