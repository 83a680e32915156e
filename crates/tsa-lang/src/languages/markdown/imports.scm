; markdown: imports (to be written)
