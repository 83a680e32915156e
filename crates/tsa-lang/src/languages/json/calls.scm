; json: calls (to be written)
