// A models source including a header of its own layer and of one below: must compile (the
// control of upward_include.cpp, so that its failure is the layering's and nothing else's).
#include "core/philox.hpp"
#include "models/shared/feature_map.hpp"

int layering_probe_downward() { return 0; }
