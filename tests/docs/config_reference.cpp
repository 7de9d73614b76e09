// Prints docs/CONFIG.md as the keys' declarations make it (the docs_config_reference test
// compares the two; `build/ci/tests/docs/config_reference > docs/CONFIG.md` writes it again).
#include <iostream>

#include "cli/config.hpp"

int main() {
  std::cout << wordsens::cli::config_reference();
  return std::cout.good() ? 0 : 1;
}
