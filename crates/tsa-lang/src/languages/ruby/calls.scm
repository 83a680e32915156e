; ruby: calls (to be written)
