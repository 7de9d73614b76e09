# Project-wide warning flags, attached to targets through wordsens_warnings.
add_library(wordsens_warnings INTERFACE)
target_compile_options(wordsens_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                                                   -Wnon-virtual-dtor -Wold-style-cast)
# GCC 12 reports false -Wrestrict positives inside libstdc++'s std::string concatenation at -O3
# (GCC bugs 105329, 105651); the warning is not actionable in our code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(wordsens_warnings INTERFACE -Wno-restrict)
endif()
if(WORDSENS_WERROR)
  target_compile_options(wordsens_warnings INTERFACE -Werror)
endif()
if(WORDSENS_NATIVE)
  target_compile_options(wordsens_warnings INTERFACE -march=native)
endif()
