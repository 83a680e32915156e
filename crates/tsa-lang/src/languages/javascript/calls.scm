; javascript: calls (to be written)
