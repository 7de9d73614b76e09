# Project-wide warning flags, attached to targets through wordsens_warnings.
add_library(wordsens_warnings INTERFACE)
target_compile_options(wordsens_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                                                   -Wnon-virtual-dtor -Wold-style-cast)
if(WORDSENS_WERROR)
  target_compile_options(wordsens_warnings INTERFACE -Werror)
endif()
if(WORDSENS_NATIVE)
  target_compile_options(wordsens_warnings INTERFACE -march=native)
endif()
