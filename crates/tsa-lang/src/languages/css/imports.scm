; css: imports (to be written)
