; `#include "x.h"` and `#include <x.h>`; c/mod.rs turns each into one import.
(preproc_include path: [(string_literal) (system_lib_string)] @import)
