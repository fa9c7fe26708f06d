# Sanitizer and fuzzing builds (docs/testing.md). Both apply to every C and C++ target of the
# project, so the libraries the tests and fuzzers exercise are instrumented, not only the programs.
#   ASTROSWEEP_SANITIZE=address,undefined  any -fsanitize= list (GCC or clang); UBSan is fatal
#   ASTROSWEEP_FUZZ=ON                     libFuzzer targets (tests/fuzz); clang only, and
#                                          address,undefined unless ASTROSWEEP_SANITIZE says otherwise
# CUDA device code is not instrumented (compute-sanitizer checks it: tools/gpu_checks.sh sanitize).

set(ASTROSWEEP_SANITIZE "" CACHE STRING "Sanitizers for every C/C++ target, e.g. address,undefined (empty: none)")
option(ASTROSWEEP_FUZZ "Build the libFuzzer targets of tests/fuzz (needs clang)" OFF)
set(ASTROSWEEP_FUZZ_SECONDS 60 CACHE STRING "How long each fuzzer runs as a ctest test (label fuzzing)")

set(astrosweep_sanitize "${ASTROSWEEP_SANITIZE}")
if(ASTROSWEEP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR
      "ASTROSWEEP_FUZZ=ON needs clang with libFuzzer (-fsanitize=fuzzer); configure with "
      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ (tools/install-deps.sh --with-clang installs them).")
  endif()
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
  check_cxx_source_compiles(
    "#include <cstddef>\n#include <cstdint>\nextern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }"
    ASTROSWEEP_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(NOT ASTROSWEEP_HAVE_LIBFUZZER)
    message(FATAL_ERROR "ASTROSWEEP_FUZZ=ON: clang cannot link -fsanitize=fuzzer; install libFuzzer and the "
                        "sanitizer runtimes (libclang-rt-dev on Debian 12: tools/install-deps.sh --with-clang).")
  endif()
  if(astrosweep_sanitize STREQUAL "")
    set(astrosweep_sanitize address,undefined)  # a fuzzer without sanitizers only finds crashes
  endif()
endif()

if(NOT astrosweep_sanitize STREQUAL "")
  set(astrosweep_sanitize_flags -fsanitize=${astrosweep_sanitize} -fno-omit-frame-pointer)
  if(astrosweep_sanitize MATCHES "undefined")
    # Undefined behaviour stops the program (a test fails) instead of printing and carrying on.
    list(APPEND astrosweep_sanitize_flags -fno-sanitize-recover=all)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${astrosweep_sanitize_flags}>")
  add_link_options(${astrosweep_sanitize_flags})
  message(STATUS "astrosweep: sanitizers ${astrosweep_sanitize}")
endif()

if(ASTROSWEEP_FUZZ)
  # Coverage feedback for libFuzzer in every object; only the fuzz targets link libFuzzer's main.
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>")
  message(STATUS "astrosweep: libFuzzer targets on, ${ASTROSWEEP_FUZZ_SECONDS} s each under ctest")
endif()
