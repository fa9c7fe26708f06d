# The same catalog through `--backend cpu` on one rank and `--backend cuda` on NP ranks sharing the
# GPUs of this machine must give the same product (floating-point datasets within REL of their
# largest value, everything else byte for byte). Skipped where no CUDA device can be used.
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${MPIEXEC} -n 1 ${EXE} period ${ARGS} -o ${OUT}_cpu.h5 --overwrite --backend cpu
                RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the CPU run failed (${rc}):\n${err}")
endif()
execute_process(COMMAND ${MPIEXEC} -n ${NP} ${EXE} period ${ARGS} -o ${OUT}_cuda.h5 --overwrite --backend cuda
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
if(err MATCHES "no CUDA (backend|device)")
  message("astrosweep-test-skipped: no CUDA device here")
  return()
endif()
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the CUDA run failed (${rc})")
endif()
execute_process(COMMAND ${COMPARE} ${OUT}_cpu.h5 ${OUT}_cuda.h5 --close ${REL} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the products differ")
endif()
