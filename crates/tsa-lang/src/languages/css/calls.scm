; css: calls (to be written)
