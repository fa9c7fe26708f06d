# A run stopped after it marked the product complete but before it removed the spool (the state a
# CI kill left once): `--resume` says "nothing to do" and removes the spool, keeping the product.
# Takes MPIEXEC, EXE, REFERENCE (a complete product), OUT, ARGS ('|'-separated) and JOB (fdas when
# not given; spiir keeps a spool too).
if(NOT JOB)
  set(JOB fdas)
endif()
file(REMOVE_RECURSE ${OUT} ${OUT}.spool)
file(COPY_FILE ${REFERENCE} ${OUT})
file(WRITE ${OUT}.spool/rank0.attempt1 "left by a stopped run")
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${MPIEXEC} -n 2 ${EXE} ${JOB} -o ${OUT} --resume ${ARGS} RESULT_VARIABLE rc
                ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--resume of a complete product failed (${rc}):\n${err}")
endif()
if(NOT err MATCHES "is complete: nothing to do")
  message(FATAL_ERROR "--resume did not find the product complete:\n${err}")
endif()
if(EXISTS ${OUT}.spool)
  message(FATAL_ERROR "the spool '${OUT}.spool' is still there after --resume of a complete product")
endif()
file(SHA256 ${REFERENCE} before)
file(SHA256 ${OUT} after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "--resume of a complete product changed it")
endif()
