; `using A.B;`, `using static A.B;`, `global using A.B;` and `using X = A.B;`.
(using_directive) @import
