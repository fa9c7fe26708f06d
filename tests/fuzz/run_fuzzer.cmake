# One bounded libFuzzer run (the ctest test fuzz_<target>; docs/testing.md):
#   cmake -DFUZZER=... -DREPLAY=... -DTARGET=... -DSECONDS=... -DSOURCE=tests/fuzz -DWORK=build/tests/fuzz
#         -DMPIEXEC=mpiexec [-DDICTIONARY=name.dict] -P run_fuzzer.cmake
# The fuzzer runs as rank 0 of a one-rank mpiexec job, never as an MPI singleton: in a singleton
# (OpenMPI forks its own orted) LeakSanitizer's tracer can crash on a bogus dynamic-TLS range at a
# leak check ("Tracer caught signal 11"), which failed every fuzzer in CI while they ran clean here.
# The fuzzer starts from the committed seeds and regressions (read only) and keeps what it learns
# in WORK/corpus/TARGET, which later runs in the same build directory continue from. A crash, a
# sanitizer report, a leak, a hang (-timeout) or an allocation over the memory limit stops it and
# leaves the input in WORK/findings/TARGET; this script then says how to turn it into a regression
# test.
set(corpus ${WORK}/corpus/${TARGET})
set(findings ${WORK}/findings/${TARGET})
file(MAKE_DIRECTORY ${corpus} ${findings})
set(inputs ${corpus})
foreach(dir ${SOURCE}/corpus/${TARGET} ${SOURCE}/regressions/${TARGET})
  if(IS_DIRECTORY ${dir})
    list(APPEND inputs ${dir})
  endif()
endforeach()
# Inputs up to 4 KiB, or the longest seed (libFuzzer's default would be the longest seed alone).
set(max_len 4096)
foreach(dir ${inputs})
  file(GLOB seeds ${dir}/*)
  foreach(seed ${seeds})
    file(SIZE ${seed} size)
    if(size GREATER max_len)
      set(max_len ${size})
    endif()
  endforeach()
endforeach()
set(options -max_total_time=${SECONDS} -max_len=${max_len} -timeout=30 -rss_limit_mb=2048 -print_final_stats=1
            -artifact_prefix=${findings}/)
if(DICTIONARY)
  list(APPEND options -dict=${SOURCE}/dictionaries/${DICTIONARY})
endif()

message(STATUS "fuzz_${TARGET}: ${SECONDS} s from ${inputs}")
execute_process(COMMAND ${MPIEXEC} -n 1 ${FUZZER} ${options} ${inputs} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB found ${findings}/*)
  message(FATAL_ERROR
    "fuzz_${TARGET} found a problem (exit ${rc}); the input is in ${findings}: ${found}\n"
    "Reproduce it without libFuzzer:  mpiexec -n 1 ${REPLAY} FILE\n"
    "Keep it as a regression test: copy it to ${SOURCE}/regressions/${TARGET}/ under a name that says "
    "what it triggers, fix the bug, and the test fuzz_regressions_${TARGET} replays it in every build.")
endif()
