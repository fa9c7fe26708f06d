# End-to-end tests of the fdas job (docs/fdas.md): a beam of DM trials with an accelerated
# pulsar (tests/fdas/make_fdas_beam.cpp) searched on 1, 2 and 3 ranks from SIGPROC .tim files,
# PRESTO .dat/.inf pairs and the HDF5 batch convert writes; the pulsar found where it was put
# (fdas_check, spec §13 item 3) and the products identical for every rank count (item 7); runs
# killed and resumed; bad inputs refused with their exit codes.
set(fdas_out ${CMAKE_CURRENT_BINARY_DIR}/fdas)
file(MAKE_DIRECTORY ${fdas_out})
# 5 DM trials 10 ... 18, the pulsar at DM 14: 2^15 samples of 64 us (T = 2.097152 s), f0 = 137.1 Hz,
# z = 5 (its 8th harmonic drifts 40 bins: within --zmax 50).
set(fdas_beam --n 32768 --z 5 --n-dm 5)
set(fdas_search --zmax 50 --numharm 8 --quiet)
set(fdas_truth --f0 137.1 --z 5 --dm 14 --span 2.097152)
add_test(NAME fdas_make_beam COMMAND make_fdas_beam -o ${fdas_out}/beam ${fdas_beam})
add_test(NAME fdas_make_beam_presto COMMAND make_fdas_beam -o ${fdas_out}/beam_presto --format presto ${fdas_beam})
set_tests_properties(fdas_make_beam PROPERTIES FIXTURES_SETUP fdas_beam LABELS fdas)
set_tests_properties(fdas_make_beam_presto PROPERTIES FIXTURES_SETUP fdas_beam_presto LABELS fdas)

foreach(np 1 2 3)
  astrosweep_add_mpi_run(fdas_tim_np${np} NP ${np} LABELS fdas FIXTURES_REQUIRED fdas_beam
    FIXTURES_SETUP fdas_tim_np${np}
    COMMAND ${exe} fdas -i ${fdas_out}/beam -o ${fdas_out}/tim_np${np}.h5 --overwrite --threads 1 ${fdas_search})
endforeach()
add_test(NAME fdas_tim_finds_pulsar COMMAND fdas_check ${fdas_out}/tim_np1.h5 ${fdas_truth})
set_tests_properties(fdas_tim_finds_pulsar PROPERTIES FIXTURES_REQUIRED fdas_tim_np1 LABELS fdas)
add_test(NAME fdas_product_describes_itself COMMAND describe_check ${fdas_out}/tim_np1.h5)
set_tests_properties(fdas_product_describes_itself PROPERTIES FIXTURES_REQUIRED fdas_tim_np1 LABELS fdas)
foreach(np 2 3)
  add_test(NAME fdas_tim_np${np}_equals_np1 COMMAND compare_products ${fdas_out}/tim_np1.h5 ${fdas_out}/tim_np${np}.h5)
  set_tests_properties(fdas_tim_np${np}_equals_np1 PROPERTIES FIXTURES_REQUIRED "fdas_tim_np1;fdas_tim_np${np}"
                       LABELS fdas)
endforeach()

# --numbetween 1 (half bins by interbinning, spec §5): the pulsar found where it was put, the
# product recording it and the same on 1 and 2 ranks.
foreach(np 1 2)
  astrosweep_add_mpi_run(fdas_interbin_np${np} NP ${np} LABELS fdas FIXTURES_REQUIRED fdas_beam
    FIXTURES_SETUP fdas_interbin_np${np}
    COMMAND ${exe} fdas -i ${fdas_out}/beam -o ${fdas_out}/interbin_np${np}.h5 --overwrite --threads 1
            --numbetween 1 ${fdas_search})
endforeach()
add_test(NAME fdas_interbin_finds_pulsar COMMAND fdas_check ${fdas_out}/interbin_np1.h5 ${fdas_truth} --numbetween 1)
set_tests_properties(fdas_interbin_finds_pulsar PROPERTIES FIXTURES_REQUIRED fdas_interbin_np1 LABELS fdas)
add_test(NAME fdas_interbin_np2_equals_np1
         COMMAND compare_products ${fdas_out}/interbin_np1.h5 ${fdas_out}/interbin_np2.h5)
set_tests_properties(fdas_interbin_np2_equals_np1 PROPERTIES FIXTURES_REQUIRED "fdas_interbin_np1;fdas_interbin_np2"
                     LABELS fdas)

# Several units in flight per rank (lanes: each its own thread and backend, HDF5 under one lock)
# change nothing: 3 on one rank and 2 on each of 2 ranks from the .tim files, 3 on one rank from
# the HDF5 batch (below), against the product of one unit at a time.
astrosweep_add_mpi_run(fdas_tim_np1_lanes3 NP 1 LABELS fdas FIXTURES_REQUIRED fdas_beam FIXTURES_SETUP fdas_tim_np1_lanes3
  COMMAND ${exe} fdas -i ${fdas_out}/beam -o ${fdas_out}/tim_np1_lanes3.h5 --overwrite --threads 1
          --units-in-flight 3 ${fdas_search})
astrosweep_add_mpi_run(fdas_tim_np2_lanes2 NP 2 LABELS fdas FIXTURES_REQUIRED fdas_beam FIXTURES_SETUP fdas_tim_np2_lanes2
  COMMAND ${exe} fdas -i ${fdas_out}/beam -o ${fdas_out}/tim_np2_lanes2.h5 --overwrite --threads 1
          --units-in-flight 2 ${fdas_search})
foreach(run np1_lanes3 np2_lanes2)
  add_test(NAME fdas_tim_${run}_equals_np1 COMMAND compare_products ${fdas_out}/tim_np1.h5 ${fdas_out}/tim_${run}.h5)
  set_tests_properties(fdas_tim_${run}_equals_np1 PROPERTIES FIXTURES_REQUIRED "fdas_tim_np1;fdas_tim_${run}"
                       LABELS fdas)
endforeach()

# PRESTO pairs: the same samples, so the same results.
astrosweep_add_mpi_run(fdas_presto_np2 NP 2 LABELS fdas FIXTURES_REQUIRED fdas_beam_presto FIXTURES_SETUP fdas_presto
  COMMAND ${exe} fdas -i ${fdas_out}/beam_presto -o ${fdas_out}/presto.h5 --overwrite --threads 1 ${fdas_search}
          --accel-text ${fdas_out}/accel)
# PRESTO's text file of the pulsar's DM: its fundamental table, harmonic table and .inf text.
add_test(NAME fdas_presto_accel_text COMMAND fdas_check ${fdas_out}/presto.h5 ${fdas_truth}
         --accel-file ${fdas_out}/accel/beam_DM014.000_ACCEL_50)
set_tests_properties(fdas_presto_accel_text PROPERTIES FIXTURES_REQUIRED fdas_presto LABELS fdas)
add_test(NAME fdas_presto_equals_tim COMMAND compare_products ${fdas_out}/tim_np1.h5 ${fdas_out}/presto.h5
         --datasets-only)
set_tests_properties(fdas_presto_equals_tim PROPERTIES FIXTURES_REQUIRED "fdas_tim_np1;fdas_presto" LABELS fdas)

# The HDF5 batch: convert, then search it on 3 ranks (each reads its own series).
# (Through mpiexec, as every astrosweep run: see cli_tests.cmake's convert_sdss_to_catalog.)
astrosweep_add_mpi_run(fdas_convert_batch NP 1 LABELS fdas FIXTURES_REQUIRED fdas_beam FIXTURES_SETUP fdas_batch
  COMMAND ${exe} convert -i ${fdas_out}/beam -o ${fdas_out}/beam_batch.h5 --overwrite)
astrosweep_add_mpi_run(fdas_batch_np3 NP 3 LABELS fdas FIXTURES_REQUIRED fdas_batch FIXTURES_SETUP fdas_batch_np3
  COMMAND ${exe} fdas -i ${fdas_out}/beam_batch.h5 -o ${fdas_out}/batch.h5 --overwrite --threads 1 ${fdas_search})
add_test(NAME fdas_batch_equals_tim COMMAND compare_products ${fdas_out}/tim_np1.h5 ${fdas_out}/batch.h5 --datasets-only)
set_tests_properties(fdas_batch_equals_tim PROPERTIES FIXTURES_REQUIRED "fdas_tim_np1;fdas_batch_np3" LABELS fdas)
astrosweep_add_mpi_run(fdas_batch_np1_lanes3 NP 1 LABELS fdas FIXTURES_REQUIRED fdas_batch
  FIXTURES_SETUP fdas_batch_np1_lanes3
  COMMAND ${exe} fdas -i ${fdas_out}/beam_batch.h5 -o ${fdas_out}/batch_lanes3.h5 --overwrite --threads 1
          --units-in-flight 3 ${fdas_search})
add_test(NAME fdas_batch_lanes3_equals_batch COMMAND compare_products ${fdas_out}/batch.h5 ${fdas_out}/batch_lanes3.h5)
set_tests_properties(fdas_batch_lanes3_equals_batch PROPERTIES FIXTURES_REQUIRED "fdas_batch_np3;fdas_batch_np1_lanes3"
                     LABELS fdas)

# Kill and resume (docs/reliability.md): 40 DM trials make ~8 work units. Heavy: the sanitizer
# stage skips them (the spool and journal code runs there through the tests above).
add_test(NAME fdas_make_resume_beam COMMAND make_fdas_beam -o ${fdas_out}/resume_beam --n 32768 --z 5 --n-dm 40
         --dm0 0 --ddm 1 --pulsar-dm 20)
set_tests_properties(fdas_make_resume_beam PROPERTIES FIXTURES_SETUP fdas_resume_beam LABELS fdas)
set(fdas_resume_args -i ${fdas_out}/resume_beam --zmax 100 --numharm 8 --threads 1 --progress-interval 1000 --quiet)
astrosweep_add_mpi_run(fdas_resume_reference NP 2 LABELS fdas FIXTURES_REQUIRED fdas_resume_beam
  FIXTURES_SETUP fdas_resume_reference
  COMMAND ${exe} fdas -o ${fdas_out}/resume_reference.h5 --overwrite ${fdas_resume_args})
function(fdas_add_resume_test name)
  cmake_parse_arguments(A "" "MODE;NP;RESUME_NP;SEED;ROUNDS" "OTHER;ARGS" ${ARGN})
  set(other)
  if(A_OTHER)
    set(other OTHER ${A_OTHER})
  endif()
  astrosweep_add_kill_and_resume(${name} JOB fdas EXE ${exe} REFERENCE ${fdas_out}/resume_reference.h5
    PRODUCT ${fdas_out}/${name}.h5 FIXTURE fdas_resume_reference MODE ${A_MODE} NP ${A_NP} RESUME_NP ${A_RESUME_NP}
    SEED ${A_SEED} ROUNDS ${A_ROUNDS} LABELS mpi resume fdas heavy ${other} ARGS ${fdas_resume_args} ${A_ARGS})
endfunction()
# One unit in flight where not said otherwise: a GPU rank's default of 3 can finish this beam before
# the driver's signal lands (the mismatch test failed so on an H100).
fdas_add_resume_test(fdas_resume_kill_all MODE kill-all NP 2,3,1 RESUME_NP 2 SEED 51 ROUNDS 3
  ARGS --units-in-flight 1)
fdas_add_resume_test(fdas_resume_kill_one MODE kill-one NP 3,2 RESUME_NP 1 SEED 52 ROUNDS 2
  ARGS --units-in-flight 1)
fdas_add_resume_test(fdas_resume_sigterm MODE term NP 2,3 RESUME_NP 3 SEED 53 ROUNDS 2 ARGS --units-in-flight 1)
# Three units in flight per rank: a kill finds several units in hand on each rank.
fdas_add_resume_test(fdas_resume_kill_all_lanes MODE kill-all NP 2,1 RESUME_NP 1 SEED 55 ROUNDS 2
  ARGS --units-in-flight 3)
# Deterministic: the window between completing the product and removing its spool.
string(REPLACE ";" "|" fdas_resume_args_piped "${fdas_resume_args}")
add_test(NAME fdas_resume_leftover_spool
  COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DEXE=$<TARGET_FILE:astrosweep>
          -DREFERENCE=${fdas_out}/resume_reference.h5 -DOUT=${fdas_out}/leftover_spool.h5
          "-DARGS=${fdas_resume_args_piped}" -P ${PROJECT_SOURCE_DIR}/tests/cli/fdas_leftover_spool.cmake)
set_tests_properties(fdas_resume_leftover_spool PROPERTIES ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}"
                     LABELS "mpi;resume;fdas" FIXTURES_REQUIRED fdas_resume_reference)
fdas_add_resume_test(fdas_resume_other_parameters MODE mismatch NP 2 RESUME_NP 2 SEED 54 ROUNDS 1
  ARGS --units-in-flight 1 OTHER -i ${fdas_out}/resume_beam --zmax 80 --numharm 8 --threads 1 --quiet)

# Bad inputs: each refused with its exit code and a message naming the problem.
set(fdas_bad ${fdas_out}/bad)
file(MAKE_DIRECTORY ${fdas_bad} ${fdas_bad}/empty)
add_test(NAME fdas_make_nan_beam COMMAND make_fdas_beam -o ${fdas_bad}/nan --n 4096 --n-dm 2 --nan-at 777)
set_tests_properties(fdas_make_nan_beam PROPERTIES FIXTURES_SETUP fdas_nan_beam LABELS fdas)
astrosweep_add_failure_test(fdas_bad_nan_sample NP 2 CODE 3 MATCH "beam_DM010.000.tim.*sample 777 is NaN"
  FIXTURES_REQUIRED fdas_nan_beam COMMAND fdas -i ${fdas_bad}/nan -o ${fdas_bad}/nan.h5 --overwrite --zmax 10)
astrosweep_add_failure_test(fdas_bad_more_ranks_than_series NP 3 CODE 2 MATCH "more MPI ranks \\(3\\) than series \\(2\\)"
  FIXTURES_REQUIRED fdas_nan_beam COMMAND fdas -i ${fdas_bad}/nan -o ${fdas_bad}/ranks.h5 --overwrite)
astrosweep_add_failure_test(fdas_bad_zmax CODE 2 MATCH "--zmax must be between 0 and 1200"
  COMMAND fdas -i ${fdas_bad} -o ${fdas_bad}/z.h5 --zmax 1201)
astrosweep_add_failure_test(fdas_bad_numharm CODE 2 MATCH "--numharm must be 1, 2, 4, 8, 16 or 32"
  COMMAND fdas -i ${fdas_bad} -o ${fdas_bad}/h.h5 --numharm 3)
astrosweep_add_failure_test(fdas_bad_numbetween CODE 2 MATCH "--numbetween must be 1 or 2"
  COMMAND fdas -i ${fdas_bad} -o ${fdas_bad}/b.h5 --numbetween 4)
astrosweep_add_failure_test(fdas_bad_empty_directory CODE 3 MATCH "empty' contains no time series"
  COMMAND fdas -i ${fdas_bad}/empty -o ${fdas_bad}/empty.h5)
astrosweep_add_failure_test(fdas_bad_output_exists CODE 4 MATCH "exists"
  FIXTURES_REQUIRED fdas_tim_np1 COMMAND fdas -i ${fdas_out}/beam -o ${fdas_out}/tim_np1.h5 --zmax 50)
astrosweep_add_failure_test(fdas_bad_units_in_flight CODE 2 MATCH "--units-in-flight must be between 0 [(]automatic[)] and 8"
  COMMAND fdas -i ${fdas_bad} -o ${fdas_bad}/u.h5 --units-in-flight 9)
astrosweep_add_failure_test(fdas_bad_sift_min_dms CODE 2 MATCH "--sift-min-dms must be at least 1"
  COMMAND fdas -i ${fdas_out}/beam -o ${fdas_bad}/s.h5 --sift-min-dms 0)
astrosweep_add_failure_test(fdas_bad_accel_text_exists CODE 4 MATCH "beam_DM010.000_ACCEL_50' already exists"
  FIXTURES_REQUIRED fdas_presto COMMAND fdas -i ${fdas_out}/beam -o ${fdas_bad}/a.h5 --zmax 50 --accel-text ${fdas_out}/accel)
