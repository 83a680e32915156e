; yaml: calls (to be written)
