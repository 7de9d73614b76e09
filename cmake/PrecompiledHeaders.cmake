# Precompiled headers. Eigen's <Eigen/Core> alone takes ~3 s of every translation unit's 3-10 s
# at -march=x86-64-v3 (its AVX headers), Boost.Program_options ~2.6 s and GoogleTest ~1.8 s: parsed
# once into a precompiled header, the `wordsens` build takes about a quarter less time (280 s to
# 204 s on 2 cores, docs/PERFORMANCE.md "First run on a fresh machine"). The code
# generated is the same (a precompiled header is the same text, parsed earlier). Off with
# -DWORDSENS_PCH=OFF (e.g. for a compiler or a cache tool that does not handle them).
option(WORDSENS_PCH "Precompile the heavy third-party headers (Eigen, Boost, GoogleTest)" ON)

# GCC 12 reports -Wstringop-overflow and -Warray-bounds false positives from inside libstdc++'s
# std::string concatenation at -O3 (GCC bugs 105329, 105651, like the -Wrestrict ones of
# Warnings.cmake). Code reached through a precompiled header loses the system-header status
# that silences them (checked: the same file compiles clean without it), so they surface as
# errors in our files. Not actionable in our code; GCC 13 and later keep both warnings.
if(WORDSENS_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(wordsens_warnings INTERFACE -Wno-stringop-overflow -Wno-array-bounds)
endif()

# The header every computing layer parses (core/types.hpp). Only third-party headers that the
# sources include anyway, so that a missing #include still fails to compile.
set(WORDSENS_PCH_COMMON <Eigen/Core>)

# wordsens_precompile(<target> [<owner>] [HEADERS <header>...]): <target> reuses <owner>'s
# precompiled header when <owner> is given (one header parsed once for all the layers), else
# precompiles HEADERS itself. A reusing target must be compiled with the owner's flags and
# definitions (all our targets take theirs from wordsens_warnings and wordsens_core).
function(wordsens_precompile target)
  if(NOT WORDSENS_PCH)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 pch "" "REUSE_FROM" "HEADERS")
  if(pch_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${pch_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${pch_HEADERS})
  endif()
endfunction()
