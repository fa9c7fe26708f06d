# Test helpers: one place that knows how to run a test under MPI (MPIEXEC_* from FindMPI), with
# the environment OpenMPI needs in containers and as root.

set(ASTROSWEEP_MPI_TEST_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_rmaps_base_oversubscribe=1
  OMPI_MCA_btl_vader_single_copy_mechanism=none
  # Tests launch on this machine only: PMIx's munge component would wait 2.3 s for a munged that
  # a machine with Slurm's packages but no running Slurm lacks (docs/testing.md).
  PMIX_MCA_psec=native
  OMP_NUM_THREADS=2)

# astrosweep_add_gtest(name source...): a GoogleTest program run as one MPI rank.
function(astrosweep_add_gtest name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE astrosweep_test_main)
  astrosweep_warnings(${name})
  add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${MPIEXEC_PREFLAGS}
           $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS "unit" TIMEOUT 900)
  astrosweep_defer_sanitizer_environment()
endfunction()

# astrosweep_add_mpi_run(name NP n [LABELS ...] [FIXTURES_SETUP f] [FIXTURES_REQUIRED f] COMMAND exe args...)
function(astrosweep_add_mpi_run name)
  # Fixtures are lists ("a;b" arrives as two arguments): multi-value keywords, set quoted.
  cmake_parse_arguments(A "" "NP" "COMMAND;LABELS;FIXTURES_SETUP;FIXTURES_REQUIRED" ${ARGN})
  add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${A_NP} ${MPIEXEC_PREFLAGS}
           ${A_COMMAND} ${MPIEXEC_POSTFLAGS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS "mpi;${A_LABELS}" TIMEOUT 900)
  astrosweep_defer_sanitizer_environment()
  if(A_FIXTURES_SETUP)
    set_tests_properties(${name} PROPERTIES FIXTURES_SETUP "${A_FIXTURES_SETUP}")
  endif()
  if(A_FIXTURES_REQUIRED)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "${A_FIXTURES_REQUIRED}")
  endif()
endfunction()

# astrosweep_add_failure_test(name NP n CODE c MATCH regex [FILE path] [PRODUCTS p...] [ABSENT f...]
#                             [FSIZE bytes] [AS_NOBODY] COMMAND args...): runs astrosweep with a bad
# input and checks its exit code and that stderr explains the problem; the optional checks are
# described in tests/cli/expect_failure.cmake.
function(astrosweep_add_failure_test name)
  cmake_parse_arguments(A "AS_NOBODY" "NP;CODE;MATCH;FILE;FSIZE" "COMMAND;PRODUCTS;ABSENT;FIXTURES_REQUIRED" ${ARGN})
  if(NOT A_NP)
    set(A_NP 1)
  endif()
  string(REPLACE ";" "|" escaped "${A_COMMAND}")  # a list cannot cross the command line
  string(REPLACE ";" "|" products "${A_PRODUCTS}")
  string(REPLACE ";" "|" absent "${A_ABSENT}")
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND}
    -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=${A_NP} -DEXE=$<TARGET_FILE:astrosweep> -DTOOL=$<TARGET_FILE:bad_inputs>
    "-DARGS=${escaped}" -DCODE=${A_CODE} "-DMATCH=${A_MATCH}" "-DFILE=${A_FILE}" "-DPRODUCTS=${products}"
    "-DABSENT=${absent}" "-DFSIZE=${A_FSIZE}" "-DAS_NOBODY=${A_AS_NOBODY}"
    -P ${PROJECT_SOURCE_DIR}/tests/cli/expect_failure.cmake)
  # mpirun waits 2 s before it kills what is left of a failed job; a failing run needs no grace.
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV};OMPI_MCA_odls_base_sigkill_timeout=0"
                       LABELS "bad-input" TIMEOUT 300 SKIP_REGULAR_EXPRESSION "astrosweep-test-skipped")
  if(A_FIXTURES_REQUIRED)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "${A_FIXTURES_REQUIRED}")
  endif()
endfunction()

# astrosweep_add_kill_and_resume(name [JOB job] EXE path REFERENCE product PRODUCT product FIXTURE f
#                                MODE m NP list RESUME_NP n SEED s ROUNDS k LABELS list
#                                [OTHER args...] [AT_LOG text] ARGS args...): a kill-and-resume round through
# tests/cli/kill_and_resume.cpp (docs/reliability.md): the job is run with ARGS, stopped per MODE
# and resumed until its product equals REFERENCE; OTHER are the arguments of a resume that must be
# refused (MODE mismatch); AT_LOG, the moment of every round: when the job's log holds that text.
# Every job's resume tests go through this one function.
function(astrosweep_add_kill_and_resume name)
  cmake_parse_arguments(A "" "JOB;EXE;REFERENCE;PRODUCT;FIXTURE;MODE;NP;RESUME_NP;SEED;ROUNDS;AT_LOG"
                        "LABELS;OTHER;ARGS" ${ARGN})
  set(job)
  if(A_JOB)
    set(job --job ${A_JOB})
  endif()
  set(other)
  if(A_OTHER)
    string(REPLACE ";" "|" other "${A_OTHER}")  # a list cannot cross the command line
    set(other --other "${other}")
  endif()
  if(A_AT_LOG)
    list(APPEND other --at-log "${A_AT_LOG}")
  endif()
  # Under the sanitizers one round: every round runs the same code (kill, journal, resume) at
  # another moment, and the Release stage runs them all; the sanitizer stage is CI's longest step.
  set(rounds ${A_ROUNDS})
  if(NOT astrosweep_sanitize STREQUAL "")
    set(rounds 1)
  endif()
  add_test(NAME ${name}
    COMMAND kill_and_resume ${A_MODE} ${job} --mpiexec ${MPIEXEC_EXECUTABLE} --exe ${A_EXE}
            --compare $<TARGET_FILE:compare_products> --reference ${A_REFERENCE}
            --product ${A_PRODUCT} --np ${A_NP} --resume-np ${A_RESUME_NP} --seed ${A_SEED}
            --rounds ${rounds} ${other} -- ${A_ARGS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS "${A_LABELS}" TIMEOUT 300
                       FIXTURES_REQUIRED ${A_FIXTURE})
endfunction()

# In a sanitizer build (ASTROSWEEP_SANITIZE / ASTROSWEEP_FUZZ) every test of the calling directory
# gets the sanitizer settings: the committed suppressions (tests/sanitizers, reasons there), full
# allocation stacks so those can match, and UBSan stack traces. use_tls=0: LeakSanitizer's tracer
# crashes ("Tracer caught signal 11") scanning a bogus dynamic-TLS range of this toolchain's glibc
# in processes that load the MPI and HDF5 libraries; thread-local storage is then not a root,
# which can only add leak reports, never hide one. allocator_may_return_null: an
# impossible allocation (CFITSIO sizing a buffer from a corrupt header) fails as in production,
# where the library reports it, instead of aborting; one of ours then throws std::bad_alloc and the
# test fails anyway. OpenMPI installs no crash handlers (opal_signal empty), which would replace
# ASan's SEGV report with its own stack dump. Call after the tests are added. The fuzzing runs (label fuzzing) set their own:
# full stacks on every allocation would slow them down.
function(astrosweep_sanitizer_environment)
  if(astrosweep_sanitize STREQUAL "")
    return()
  endif()
  set(supp ${PROJECT_SOURCE_DIR}/tests/sanitizers)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} LABELS labels)
    get_test_property(${test} ENVIRONMENT environment)
    if("fuzzing" IN_LIST labels OR environment MATCHES "LSAN_OPTIONS=")
      continue()  # fuzzers set their own; a test already given the options keeps them once
    endif()
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
      "ASAN_OPTIONS=fast_unwind_on_malloc=0:allocator_may_return_null=1:check_initialization_order=1"
      "LSAN_OPTIONS=suppressions=${supp}/lsan.supp:print_suppressions=0:use_tls=0"
      "UBSAN_OPTIONS=print_stacktrace=1:suppressions=${supp}/ubsan.supp"
      "OMPI_MCA_opal_signal=")
  endforeach()
endfunction()

# Every directory that adds a test through the helpers below gets the sanitizer environment for
# all its tests when its CMakeLists.txt ends (tests/NAME of each job included), without a call of
# its own. set_property(TEST) reaches only the current directory's tests, hence the deferral.
function(astrosweep_defer_sanitizer_environment)
  get_property(deferred DIRECTORY PROPERTY ASTROSWEEP_SANITIZER_DEFERRED)
  if(NOT deferred)
    set_property(DIRECTORY PROPERTY ASTROSWEEP_SANITIZER_DEFERRED TRUE)
    cmake_language(DEFER CALL astrosweep_sanitizer_environment)
  endif()
endfunction()
