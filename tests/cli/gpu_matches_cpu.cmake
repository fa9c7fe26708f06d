# One run of job JOB (period unless given) through `--backend cuda` on NP ranks sharing the GPUs of
# this machine, skipped where no CUDA device can be used; then, with CHECK (a FIXTURES command
# line, "|"-separated, the product inserted after its first word), the CUDA product must pass it;
# otherwise the same run through `--backend cpu` on one rank must give the same product
# (floating-point datasets within REL of their largest value, everything else byte for byte:
# compare_products --close). The CUDA run goes first, so a machine without a GPU skips at once.
string(REPLACE "|" ";" ARGS "${ARGS}")
if(NOT JOB)
  set(JOB period)
endif()
execute_process(COMMAND ${MPIEXEC} -n ${NP} ${EXE} ${JOB} ${ARGS} -o ${OUT}_cuda.h5 --overwrite --backend cuda
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
if(err MATCHES "no CUDA (backend|device)")
  message("astrosweep-test-skipped: no CUDA device here")
  return()
endif()
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the CUDA run failed (${rc})")
endif()
if(CHECK)
  string(REPLACE "|" ";" CHECK "${CHECK}")
  list(POP_FRONT CHECK check_command)
  execute_process(COMMAND ${FIXTURES} ${check_command} ${OUT}_cuda.h5 ${CHECK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the CUDA product fails the check")
  endif()
  return()
endif()
execute_process(COMMAND ${MPIEXEC} -n 1 ${EXE} ${JOB} ${ARGS} -o ${OUT}_cpu.h5 --overwrite --backend cpu
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the CPU run failed (${rc}):\n${err}")
endif()
execute_process(COMMAND ${COMPARE} ${OUT}_cpu.h5 ${OUT}_cuda.h5 --close ${REL} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the products differ")
endif()
