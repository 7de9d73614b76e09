# On Debian jobs/install_deps.sh installs every dependency; elsewhere docs/INSTALL.md's table
# lists them with these minimums (tests/packaging/check_dependency_table.py keeps the two equal).
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(MPI 3.0 REQUIRED COMPONENTS C)
# 1.10.1: the paged file-space strategy of the results file (H5Pset_file_space_strategy).
find_package(HDF5 1.10.1 REQUIRED COMPONENTS C)
find_package(ZLIB 1.2 REQUIRED)  # crc32 of the results file's task table (HDF5 links it anyway)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
# A pretrained encoder's weights (io/inputs/encoder_weights.cpp): the safetensors header is JSON, the
# file's digest SHA-256.
find_package(nlohmann_json 3 REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)

find_path(RANDOM123_INCLUDE_DIR Random123/philox.h REQUIRED)
add_library(Random123::Random123 INTERFACE IMPORTED)
target_include_directories(Random123::Random123 SYSTEM INTERFACE ${RANDOM123_INCLUDE_DIR})

add_library(HDF5::C INTERFACE IMPORTED)
target_include_directories(HDF5::C SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
target_link_libraries(HDF5::C INTERFACE ${HDF5_C_LIBRARIES})
target_compile_definitions(HDF5::C INTERFACE ${HDF5_C_DEFINITIONS})

# Open MPI's deprecated C++ bindings trip -Wextra -Werror; we only use the C API.
target_compile_definitions(MPI::MPI_C INTERFACE OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX)

if(WORDSENS_EXTERNAL_BLAS)
  # Must be single-threaded (one MPI rank per core): Debian's libopenblas-serial-dev, or
  # OPENBLAS_NUM_THREADS=1 with a threaded build.
  find_package(BLAS REQUIRED)
endif()

if(WORDSENS_BUILD_TESTS)
  find_package(GTest 1.10 REQUIRED)
endif()
if(WORDSENS_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
