; `#include "x.hpp"` / `#include <vector>`, and `using std::x;` / `using namespace std;`.
(preproc_include path: [(string_literal) (system_lib_string)] @import)
(using_declaration) @import
