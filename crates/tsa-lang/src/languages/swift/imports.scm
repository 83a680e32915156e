; swift: imports (to be written)
