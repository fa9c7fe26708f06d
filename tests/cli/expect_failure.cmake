# Runs `MPIEXEC -n NP EXE ARGS` and checks that it fails with exit code CODE and that its stderr
# matches MATCH. ARGS arrives '|'-separated. ARGS entries may use @NONROOT@ to require a non-root user (the test is skipped as root,
# where permissions do not stop reads).
string(REPLACE "|" ";" ARGS "${ARGS}")
if(ARGS MATCHES "@NONROOT@")
  execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(uid STREQUAL "0")
    message("astrosweep-test-skipped: running as root, where file permissions do not stop reads")
    return()
  endif()
  string(REPLACE "@NONROOT@" "" ARGS "${ARGS}")
endif()
execute_process(COMMAND ${MPIEXEC} -n ${NP} ${EXE} ${ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
message("exit code: ${rc}\nstderr:\n${err}")
if(NOT rc STREQUAL "${CODE}")
  message(FATAL_ERROR "expected exit code ${CODE}, got '${rc}'")
endif()
if(NOT err MATCHES "${MATCH}")
  message(FATAL_ERROR "stderr does not match '${MATCH}'")
endif()
