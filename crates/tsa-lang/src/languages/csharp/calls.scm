; csharp: calls (to be written)
