// Compiled only to own the test binaries' precompiled header (tests/CMakeLists.txt: unit_pch).
