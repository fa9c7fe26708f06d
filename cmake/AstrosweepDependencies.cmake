# All third-party dependencies, found through CMake's own modules.

find_package(MPI 3.0 REQUIRED COMPONENTS C CXX)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Threads REQUIRED)
find_package(Boost 1.71 REQUIRED COMPONENTS program_options)

# zlib: scfind compresses its mask chunks on all cores in the deflate filter's format (io/h5_deflate_chunks).
find_package(ZLIB REQUIRED)
# Parallel HDF5: every rank writes its own rows of one product, so a serial build cannot work.
set(HDF5_PREFER_PARALLEL ON)
find_package(HDF5 1.10 REQUIRED COMPONENTS C HL)  # HL: dimension scales (the axes of datasets)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR
    "astrosweep needs a parallel (MPI) build of HDF5, but the HDF5 found at "
    "'${HDF5_INCLUDE_DIRS}' is serial. On Debian/Ubuntu install libhdf5-openmpi-dev "
    "(tools/install-deps.sh does), or point HDF5_ROOT / the h5pcc wrapper at a parallel build.")
endif()
add_library(astrosweep_hdf5 INTERFACE)
target_include_directories(astrosweep_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
target_link_libraries(astrosweep_hdf5 INTERFACE ${HDF5_C_HL_LIBRARIES} ${HDF5_C_LIBRARIES} MPI::MPI_C)
target_compile_definitions(astrosweep_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})

find_package(PkgConfig REQUIRED)
pkg_check_modules(CFITSIO REQUIRED IMPORTED_TARGET cfitsio>=3.4)
# FFTW (Debian libfftw3-dev), double and float: the fdas job's correlations and the period job's
# NUFFT (the fast method). GLOBAL: both jobs' folders link PkgConfig::FFTW3.
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET GLOBAL fftw3 fftw3f)
# wcslib (Debian wcslib-dev): the scfind catalogue's world coordinates, as SoFiA-2 converts them.
pkg_check_modules(WCSLIB REQUIRED IMPORTED_TARGET GLOBAL wcslib>=7)

if(ASTROSWEEP_TESTS)
  find_package(GTest 1.10 REQUIRED)
endif()

set(ASTROSWEEP_HAVE_CUDA OFF)
if(NOT ASTROSWEEP_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Hopper (H100/H200) machine code plus PTX that newer GPUs compile at load; override for others.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    set(CMAKE_CUDA_STANDARD 17)  # CMake 3.25 knows no CUDA20 flags for nvcc; the .cu files need 17
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(ASTROSWEEP_HAVE_CUDA ON)
  elseif(ASTROSWEEP_CUDA STREQUAL "ON")
    message(FATAL_ERROR "ASTROSWEEP_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER).")
  endif()
endif()
message(STATUS "astrosweep: CUDA backend ${ASTROSWEEP_HAVE_CUDA}")
