; html: calls (to be written)
