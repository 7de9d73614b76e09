# Writes version.hpp with the project version and the git commit the build was made from.
execute_process(
  COMMAND git rev-parse HEAD
  WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
  OUTPUT_VARIABLE WORDSENS_GIT_SHA
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT WORDSENS_GIT_SHA)
  set(WORDSENS_GIT_SHA "unknown")
endif()
execute_process(
  COMMAND git status --porcelain --untracked-files=no
  WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
  OUTPUT_VARIABLE WORDSENS_GIT_DIRTY_TEXT
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(WORDSENS_GIT_DIRTY_TEXT)
  set(WORDSENS_GIT_SHA "${WORDSENS_GIT_SHA}-dirty")
endif()
# Re-run configure when HEAD moves so the recorded sha stays true: HEAD itself changes on a
# checkout, the branch's ref file on a commit.
if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/.git/HEAD")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/.git/HEAD")
  file(READ "${CMAKE_CURRENT_SOURCE_DIR}/.git/HEAD" git_head)
  if(git_head MATCHES "^ref: ([^\n]+)")
    foreach(ref_file "${CMAKE_CURRENT_SOURCE_DIR}/.git/${CMAKE_MATCH_1}"
                     "${CMAKE_CURRENT_SOURCE_DIR}/.git/packed-refs")
      if(EXISTS "${ref_file}")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${ref_file}")
      endif()
    endforeach()
  endif()
endif()
# What the numbers depend on besides the sources: recorded in every results file.
if(WORDSENS_EXTERNAL_BLAS)
  set(WORDSENS_BLAS_TEXT "external BLAS (${BLAS_LIBRARIES})")
else()
  set(WORDSENS_BLAS_TEXT "Eigen ${Eigen3_VERSION} own kernels")
endif()
set(WORDSENS_BUILD_TEXT
    "-march=${WORDSENS_ARCH_RESOLVED}; ${WORDSENS_BLAS_TEXT}; ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}; ${CMAKE_BUILD_TYPE}")
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/version.hpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/wordsens/version.hpp @ONLY)
