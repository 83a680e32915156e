; scala: calls (to be written)
