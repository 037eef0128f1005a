// Whole-program build of the separate-compilation pair: both translation units in one, so
// the extern calls become internal (and mostly inlined) and no .extern declarations remain.
#include "rdc_lib.cu"
#include "rdc_main.cu"
