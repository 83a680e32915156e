; cpp: calls (to be written)
