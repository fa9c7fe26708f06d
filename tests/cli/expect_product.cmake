# Runs `MPIEXEC -n NP EXE ARGS` (it must succeed and write OUT), then `TOOL product OUT`, and checks
# that the listing (one line per object: status bits, points, best frequency and power) matches
# every regex of EXPECT ('@@'-separated). With ARGS2 and OUT2, runs that too and checks that both
# products list the same objects with the same results (an input given in another order).
# ARGS and ARGS2 arrive '|'-separated.
function(run_and_list args out listing)
  string(REPLACE "|" ";" args "${args}")
  file(REMOVE ${out})
  execute_process(COMMAND ${MPIEXEC} -n ${NP} ${EXE} ${args} RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 240)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "astrosweep failed (${rc}):\n${err}")
  endif()
  execute_process(COMMAND ${TOOL} product ${out} RESULT_VARIABLE rc OUTPUT_VARIABLE text)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cannot list ${out}")
  endif()
  message("${out}:\n${text}")
  set(${listing} "${text}" PARENT_SCOPE)
endfunction()

run_and_list("${ARGS}" ${OUT} listing)
string(REPLACE "@@" ";" EXPECT "${EXPECT}")
foreach(regex IN LISTS EXPECT)
  if(NOT listing MATCHES "${regex}")
    message(FATAL_ERROR "the product does not match '${regex}'")
  endif()
endforeach()
if(ARGS2)
  run_and_list("${ARGS2}" ${OUT2} listing2)
  if(NOT listing STREQUAL listing2)
    message(FATAL_ERROR "${OUT} and ${OUT2} differ")
  endif()
endif()
