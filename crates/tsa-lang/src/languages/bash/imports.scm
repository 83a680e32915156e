; bash: imports (to be written)
