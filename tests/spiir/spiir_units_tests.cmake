# spiir on MPI ranks (docs/spiir.md, "Work units and resume"): products that do not depend on the
# rank count or the work units, kill-and-resume, bad unit options. Included by CMakeLists.txt
# (its spiir_out, spiir_exe and bank fixtures).
#
# 60 s of H1 and L1 (an injection at SNR 12): long enough that units past the 21.6 s warm-up start
# from zero states rather than from the strain's first sample. Coloured as strain (whitened = 0), so
# every rank whitens it and the products compared below hold the PSDs written (/detectors/*/psd).
add_test(NAME spiir_make_strain_long COMMAND spiir_fixtures strain ${spiir_out}/strain_long.h5 --rate 2048
         --seconds 60 --ifos H1,L1 --inject 1.4,1.4 --f-low 60 --end 90000 --snr 12 --seed 9 --colour)
set_tests_properties(spiir_make_strain_long PROPERTIES FIXTURES_SETUP spiir_strain_long LABELS spiir)
# 10 time slides: the background is compared too, at a tenth of the coherent stage's default cost.
set(spiir_long --bank ${spiir_out}/bank.h5 --strain ${spiir_out}/strain_long.h5 --overwrite --n-slides 10)
# One rank, one unit (the defaults: the whole bank, 256 s); 3 ranks with a template per unit and
# units of 10 s; 2 ranks with the whole bank per unit and units of 10 s. (Each unit also filters
# the 21.6-s warm-up: small units cost their warm-up many times over.)
astrosweep_add_mpi_run(spiir_units_np1 NP 1 LABELS spiir FIXTURES_REQUIRED "spiir_bank;spiir_strain_long"
  FIXTURES_SETUP spiir_units_np1 COMMAND ${spiir_exe} spiir ${spiir_long} -o ${spiir_out}/units_np1.h5 --threads 2)
astrosweep_add_mpi_run(spiir_units_np3 NP 3 LABELS spiir FIXTURES_REQUIRED "spiir_bank;spiir_strain_long"
  FIXTURES_SETUP spiir_units_np3
  COMMAND ${spiir_exe} spiir ${spiir_long} -o ${spiir_out}/units_np3.h5 --threads 1 --templates-per-unit 1
          --unit-seconds 10)
astrosweep_add_mpi_run(spiir_units_np2 NP 2 LABELS spiir FIXTURES_REQUIRED "spiir_bank;spiir_strain_long"
  FIXTURES_SETUP spiir_units_np2
  COMMAND ${spiir_exe} spiir ${spiir_long} -o ${spiir_out}/units_np2.h5 --threads 1 --unit-seconds 10)
# Same time ranges: byte for byte, whatever the ranks and template blocks. Other time ranges: the
# same peaks (samples, templates, counts) and triggers, SNRs within FP32 rounding (the warm-up
# leaves 1e-9 of the earlier strain in the states).
add_test(NAME spiir_units_blocks_and_ranks_identical COMMAND compare_products ${spiir_out}/units_np2.h5
         ${spiir_out}/units_np3.h5)
set_tests_properties(spiir_units_blocks_and_ranks_identical PROPERTIES
                     FIXTURES_REQUIRED "spiir_units_np2;spiir_units_np3" LABELS spiir)
add_test(NAME spiir_units_time_ranges_agree COMMAND compare_products ${spiir_out}/units_np1.h5
         ${spiir_out}/units_np3.h5 --close 1e-7)
set_tests_properties(spiir_units_time_ranges_agree PROPERTIES FIXTURES_REQUIRED "spiir_units_np1;spiir_units_np3"
                     LABELS spiir)
# The multi-rate bank (4 rates, latency 448 samples, chunks of 0.3 s): one unit on one rank against
# a template per unit and units of 10.2 s on 2 ranks.
astrosweep_add_mpi_run(spiir_units_mr_np1 NP 1 LABELS spiir FIXTURES_REQUIRED "spiir_bank_mr;spiir_strain_long"
  FIXTURES_SETUP spiir_units_mr_np1
  COMMAND ${spiir_exe} spiir --bank ${spiir_out}/bank_mr.h5 --strain ${spiir_out}/strain_long.h5 --overwrite
          --n-slides 10 -o ${spiir_out}/units_mr_np1.h5 --threads 2 --chunk-seconds 0.3)
astrosweep_add_mpi_run(spiir_units_mr_np2 NP 2 LABELS spiir FIXTURES_REQUIRED "spiir_bank_mr;spiir_strain_long"
  FIXTURES_SETUP spiir_units_mr_np2
  COMMAND ${spiir_exe} spiir --bank ${spiir_out}/bank_mr.h5 --strain ${spiir_out}/strain_long.h5 --overwrite
          --n-slides 10 -o ${spiir_out}/units_mr_np2.h5 --threads 1 --chunk-seconds 0.3 --templates-per-unit 1 --unit-seconds 10)
add_test(NAME spiir_units_multirate_agree COMMAND compare_products ${spiir_out}/units_mr_np1.h5
         ${spiir_out}/units_mr_np2.h5 --close 1e-7)
set_tests_properties(spiir_units_multirate_agree PROPERTIES FIXTURES_REQUIRED "spiir_units_mr_np1;spiir_units_mr_np2"
                     LABELS spiir)
# Three detectors, the coherent stage on the merged peaks: 3 ranks, a template per unit, 2 s units,
# against the one-process run of spiir_coherent_hlv: the same peaks, triggers and sky maps, SNRs within FP32
# rounding (the units past 21.6 s start from zero states).
astrosweep_add_mpi_run(spiir_units_hlv_np3 NP 3 LABELS spiir FIXTURES_REQUIRED "spiir_bank_hlv;spiir_strain_hlv"
  FIXTURES_SETUP spiir_units_hlv_np3
  COMMAND ${spiir_exe} spiir --bank ${spiir_out}/bank_hlv.h5 --strain ${spiir_out}/strain_hlv.h5
          -o ${spiir_out}/units_hlv_np3.h5 --overwrite --threads 1 --n-slides 20 --templates-per-unit 1
          --unit-seconds 2 --skymaps)
add_test(NAME spiir_units_hlv_agree COMMAND compare_products ${spiir_out}/triggers_hlv.h5
         ${spiir_out}/units_hlv_np3.h5 --close 1e-7)
set_tests_properties(spiir_units_hlv_agree PROPERTIES FIXTURES_REQUIRED "spiir_triggers_hlv;spiir_units_hlv_np3"
                     LABELS spiir)

# The coherent stage spread over 2 ranks (the whole bank in one unit, as spiir_coherent_hlv): its
# second-pass tasks and searches split between the ranks, the product byte for byte the one-process one.
astrosweep_add_mpi_run(spiir_units_hlv_np2 NP 2 LABELS spiir FIXTURES_REQUIRED "spiir_bank_hlv;spiir_strain_hlv"
  FIXTURES_SETUP spiir_units_hlv_np2
  COMMAND ${spiir_exe} spiir --bank ${spiir_out}/bank_hlv.h5 --strain ${spiir_out}/strain_hlv.h5
          -o ${spiir_out}/units_hlv_np2.h5 --overwrite --threads 1 --n-slides 20 --skymaps)
add_test(NAME spiir_units_hlv_ranks_identical COMMAND compare_products ${spiir_out}/triggers_hlv.h5
         ${spiir_out}/units_hlv_np2.h5)
set_tests_properties(spiir_units_hlv_ranks_identical PROPERTIES
                     FIXTURES_REQUIRED "spiir_triggers_hlv;spiir_units_hlv_np2" LABELS spiir)
# The multi-rate bank's coherent stage (latency 448 samples, tasks on the stream's multiple) on 3
# ranks with spiir_units_mr_np1's units: byte for byte its product.
astrosweep_add_mpi_run(spiir_units_mr_np3_same_units NP 3 LABELS spiir FIXTURES_REQUIRED "spiir_bank_mr;spiir_strain_long"
  FIXTURES_SETUP spiir_units_mr_np3_same_units
  COMMAND ${spiir_exe} spiir --bank ${spiir_out}/bank_mr.h5 --strain ${spiir_out}/strain_long.h5 --overwrite
          --n-slides 10 -o ${spiir_out}/units_mr_np3_same_units.h5 --threads 1 --chunk-seconds 0.3)
add_test(NAME spiir_units_multirate_ranks_identical COMMAND compare_products ${spiir_out}/units_mr_np1.h5
         ${spiir_out}/units_mr_np3_same_units.h5)
set_tests_properties(spiir_units_multirate_ranks_identical PROPERTIES
                     FIXTURES_REQUIRED "spiir_units_mr_np1;spiir_units_mr_np3_same_units" LABELS spiir)

# Kill and resume (docs/reliability.md) through tests/cli/kill_and_resume.cpp: 12 units of a template
# x 10 s; the reference is spiir_units_np3's product (the same units). Heavy: 10-20 s each.
set(spiir_resume_args ${spiir_long} --threads 1 --templates-per-unit 1 --unit-seconds 10)
list(REMOVE_ITEM spiir_resume_args --overwrite)
function(spiir_add_resume_test name)
  cmake_parse_arguments(A "" "MODE;NP;RESUME_NP;SEED;ROUNDS" "OTHER" ${ARGN})
  set(other)
  if(A_OTHER)
    set(other OTHER ${A_OTHER})
  endif()
  astrosweep_add_kill_and_resume(${name} JOB spiir EXE ${spiir_exe} REFERENCE ${spiir_out}/units_np3.h5
    PRODUCT ${spiir_out}/${name}.h5 FIXTURE spiir_units_np3 MODE ${A_MODE} NP ${A_NP} RESUME_NP ${A_RESUME_NP}
    SEED ${A_SEED} ROUNDS ${A_ROUNDS} LABELS mpi resume spiir heavy ${other} ARGS ${spiir_resume_args})
endfunction()
spiir_add_resume_test(spiir_resume_kill_all MODE kill-all NP 2,3,1 RESUME_NP 2 SEED 65 ROUNDS 3)
spiir_add_resume_test(spiir_resume_kill_one MODE kill-one NP 2,3 RESUME_NP 3 SEED 63 ROUNDS 2)
spiir_add_resume_test(spiir_resume_sigterm MODE term NP 2,3 RESUME_NP 3 SEED 63 ROUNDS 2)
# Another threshold and other units: --resume refused (exit 2), the product untouched.
spiir_add_resume_test(spiir_resume_other_parameters MODE mismatch NP 2 RESUME_NP 2 SEED 64 ROUNDS 1
  OTHER --bank ${spiir_out}/bank.h5 --strain ${spiir_out}/strain_long.h5 --n-slides 10 --threads 1
        --templates-per-unit 1 --unit-seconds 4 --threshold 5)

# Stopped in the coherent stage (every unit journalled; its second pass and search on every rank):
# SIGTERM (exit 6, the product incomplete) and SIGKILL, when the log announces the stage; the
# resume redoes the stage from the spool and equals the uninterrupted product byte for byte.
astrosweep_add_kill_and_resume(spiir_resume_coherent_sigterm JOB spiir EXE ${spiir_exe}
  REFERENCE ${spiir_out}/units_np3.h5 PRODUCT ${spiir_out}/spiir_resume_coherent_sigterm.h5 FIXTURE spiir_units_np3
  MODE term NP 3,2 RESUME_NP 2 SEED 67 ROUNDS 2 AT_LOG "coherent stage:" LABELS mpi resume spiir heavy
  ARGS ${spiir_resume_args})
astrosweep_add_kill_and_resume(spiir_resume_coherent_kill JOB spiir EXE ${spiir_exe}
  REFERENCE ${spiir_out}/units_np3.h5 PRODUCT ${spiir_out}/spiir_resume_coherent_kill.h5 FIXTURE spiir_units_np3
  MODE kill-all NP 2 RESUME_NP 3 SEED 68 ROUNDS 1 AT_LOG "coherent stage:" LABELS mpi resume spiir heavy
  ARGS ${spiir_resume_args})

# One PSD per stretch (--psd-stretch-seconds 20: three stretches of the 60 s): 2 ranks against 3
# (the 2-D PSDs, their scales and attributes compared too), and a kill-and-resume against the 3-rank
# product: the written PSDs come back byte for byte.
set(spiir_stretch_args ${spiir_long} --threads 1 --templates-per-unit 1 --unit-seconds 10 --psd-stretch-seconds 20)
astrosweep_add_mpi_run(spiir_units_stretch_np3 NP 3 LABELS spiir FIXTURES_REQUIRED "spiir_bank;spiir_strain_long"
  FIXTURES_SETUP spiir_units_stretch_np3 COMMAND ${spiir_exe} spiir ${spiir_stretch_args} -o ${spiir_out}/units_stretch_np3.h5)
astrosweep_add_mpi_run(spiir_units_stretch_np2 NP 2 LABELS spiir FIXTURES_REQUIRED "spiir_bank;spiir_strain_long"
  FIXTURES_SETUP spiir_units_stretch_np2 COMMAND ${spiir_exe} spiir ${spiir_stretch_args} -o ${spiir_out}/units_stretch_np2.h5)
add_test(NAME spiir_units_stretch_ranks_identical COMMAND compare_products ${spiir_out}/units_stretch_np2.h5
         ${spiir_out}/units_stretch_np3.h5)
set_tests_properties(spiir_units_stretch_ranks_identical PROPERTIES
                     FIXTURES_REQUIRED "spiir_units_stretch_np2;spiir_units_stretch_np3" LABELS spiir)
list(REMOVE_ITEM spiir_stretch_args --overwrite)
astrosweep_add_kill_and_resume(spiir_resume_psd_stretch JOB spiir EXE ${spiir_exe}
  REFERENCE ${spiir_out}/units_stretch_np3.h5 PRODUCT ${spiir_out}/spiir_resume_psd_stretch.h5
  FIXTURE spiir_units_stretch_np3 MODE kill-all NP 2,3 RESUME_NP 2 SEED 66 ROUNDS 2
  LABELS mpi resume spiir heavy ARGS ${spiir_stretch_args})

# Deterministic: the window between completing the product and removing its spool.
string(REPLACE ";" "|" spiir_resume_args_piped "${spiir_resume_args}")
add_test(NAME spiir_resume_leftover_spool
  COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DEXE=${spiir_exe} -DJOB=spiir
          -DREFERENCE=${spiir_out}/units_np3.h5 -DOUT=${spiir_out}/leftover_spool.h5
          "-DARGS=${spiir_resume_args_piped}" -P ${PROJECT_SOURCE_DIR}/tests/cli/fdas_leftover_spool.cmake)
set_tests_properties(spiir_resume_leftover_spool PROPERTIES ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}"
                     LABELS "mpi;resume;spiir" FIXTURES_REQUIRED spiir_units_np3)

# Bad unit options: exit 2 naming the option, nothing written (the first on 2 ranks: every rank
# stops with the message, none waits for another).
astrosweep_add_failure_test(spiir_bad_unit_seconds NP 2 CODE 2 MATCH "--unit-seconds must be positive"
  FIXTURES_REQUIRED "spiir_bank;spiir_strain" PRODUCTS ${spiir_out}/spiir_bad_unit_seconds.h5
  COMMAND spiir --bank ${spiir_out}/bank.h5 --strain ${spiir_out}/strain.h5 -o ${spiir_out}/spiir_bad_unit_seconds.h5
          --unit-seconds 0)
astrosweep_add_failure_test(spiir_bad_templates_per_unit CODE 2 MATCH "--templates-per-unit must be >= 0"
  FIXTURES_REQUIRED "spiir_bank;spiir_strain" PRODUCTS ${spiir_out}/spiir_bad_templates_per_unit.h5
  COMMAND spiir --bank ${spiir_out}/bank.h5 --strain ${spiir_out}/strain.h5
          -o ${spiir_out}/spiir_bad_templates_per_unit.h5 --templates-per-unit=-2)

# The merge of units' samples into peaks against chunk_peaks (the oracle), the unit grid, the spool.
astrosweep_add_gtest(test_spiir_units test_units.cpp)
target_link_libraries(test_spiir_units PRIVATE astrosweep_spiir_job)
set_property(TEST test_spiir_units APPEND PROPERTY LABELS spiir)
# The spool over the shared one: spools written before it was shared are read and written alike.
astrosweep_add_gtest(test_spiir_spool test_spiir_spool.cpp)
target_link_libraries(test_spiir_spool PRIVATE astrosweep_spiir_job)
set_property(TEST test_spiir_spool APPEND PROPERTY LABELS spiir)
# The coherent stage's second pass (tasks, their ranges on the granule's grid, their batches and
# windows against a whole run, a template's SNRs in a batch bit for bit alone on the OpenMP
# backend); its spread over ranks (the assignment, the gather of results, a failure on one rank) on
# 1 and 3 ranks.
astrosweep_add_gtest(test_spiir_coherent_second_pass test_coherent_second_pass.cpp)
target_link_libraries(test_spiir_coherent_second_pass PRIVATE astrosweep_spiir_job)
set_property(TEST test_spiir_coherent_second_pass APPEND PROPERTY LABELS spiir)
if(ASTROSWEEP_HAVE_CUDA)
  # The same batches through the CUDA backend, bit for bit alone: green on a GPU, skipped without one.
  astrosweep_add_gtest(test_spiir_coherent_second_pass_cuda test_coherent_second_pass_cuda.cpp)
  target_link_libraries(test_spiir_coherent_second_pass_cuda PRIVATE astrosweep_spiir_job)
  set_tests_properties(test_spiir_coherent_second_pass_cuda PROPERTIES LABELS "unit;gpu;spiir"
                       SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
endif()
astrosweep_add_gtest(test_spiir_coherent_distribution test_coherent_distribution.cpp)
target_link_libraries(test_spiir_coherent_distribution PRIVATE astrosweep_spiir_job)
set_property(TEST test_spiir_coherent_distribution APPEND PROPERTY LABELS spiir)
astrosweep_add_mpi_run(test_spiir_coherent_distribution_np3 NP 3 LABELS spiir
  COMMAND $<TARGET_FILE:test_spiir_coherent_distribution>)
