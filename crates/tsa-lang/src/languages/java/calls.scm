; java: calls (to be written)
