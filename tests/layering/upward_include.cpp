// A models source including a header of a later layer (grid/): the build must refuse it.
#include "grid/study.hpp"

int layering_probe_upward() { return 0; }
