; markdown: calls (to be written)
