// A models source including a header of a later layer (study/): the build must refuse it.
#include "study/study.hpp"

int layering_probe_upward() { return 0; }
