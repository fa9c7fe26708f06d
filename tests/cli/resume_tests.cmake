# Checkpoint/resume of the period job (docs/reliability.md): runs killed (SIGKILL to every rank or
# to one) or stopped (SIGTERM) at moments a seed chooses, then resumed, possibly on another rank
# count, must give the uninterrupted run's product (compare_products: every dataset and attribute).
# The driver, tests/cli/kill_and_resume.cpp, also resumes each completed product once more (exit 0,
# untouched). N_f = 600000 makes ~20 units and a few seconds of work on 2 cores.
set(resume_out ${out}/resume)
file(MAKE_DIRECTORY ${resume_out})
set(resume_grid --fmin 0.5 --fmax 24 --n-freq 600000 --top-k 4 --progress-interval 1000 --quiet)
# Periodograms kept (fp32, 136 x 150000 values): the rows the backend streams while it computes.
set(resume_grid_periodograms --fmin 0.5 --fmax 24 --n-freq 150000 --precision fp32 --periodograms --progress-interval
    1000 --quiet)
# Three units in flight per rank (lanes): a stop finds several units in hand on each rank.
set(resume_grid_lanes ${resume_grid} --units-in-flight 3)
# On the CPU whatever the machine: on a GPU the whole run can end between the first journal entry
# and the moment a test stops it (the second-writer test needs it running).
set(resume_grid_cpu ${resume_grid} --backend cpu)
# The fast method, on the heterogeneous input of the fast products (cli_tests.cmake writes it).
set(resume_grid_fast ${resume_grid} --method fast)

# The uninterrupted products: one per case (name, input, grid).
set(resume_cases "csv|${lc}/sdss_stripe82_z.csv|resume_grid" "catalog|${out}/sdss_catalog.h5|resume_grid"
    "periodograms|${lc}/sdss_stripe82_z.csv|resume_grid_periodograms" "lanes|${lc}/sdss_stripe82_z.csv|resume_grid_lanes"
    "cpu|${lc}/sdss_stripe82_z.csv|resume_grid_cpu" "fast|${out}/mixed_lengths.csv|resume_grid_fast")
foreach(case ${resume_cases})
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 name)
  list(GET case 1 input)
  list(GET case 2 grid_var)
  set(resume_input_${name} ${input})
  set(resume_grid_${name} ${${grid_var}})
  astrosweep_add_mpi_run(period_resume_reference_${name} NP 2 FIXTURES_SETUP resume_reference_${name}
    COMMAND ${exe} period -i ${input} -o ${resume_out}/reference_${name}.h5 --overwrite ${${grid_var}})
  if(name STREQUAL "catalog")
    set_tests_properties(period_resume_reference_${name} PROPERTIES FIXTURES_REQUIRED catalog)
  endif()
endforeach()

# astrosweep_add_resume_test(name MODE m CASE csv|catalog|periodograms NP list RESUME_NP n SEED s [ROUNDS k]
#                            [HEAVY] [OTHER period args])
# HEAVY: the sanitizer stage skips it (label heavy); another test of the same mode runs there.
function(astrosweep_add_resume_test name)
  cmake_parse_arguments(A "HEAVY" "MODE;CASE;NP;RESUME_NP;SEED;ROUNDS" "OTHER" ${ARGN})
  if(NOT A_ROUNDS)
    set(A_ROUNDS 3)
  endif()
  set(input ${resume_input_${A_CASE}})
  set(other)
  if(A_OTHER)
    set(other OTHER -i ${input} ${A_OTHER})
  endif()
  set(labels mpi resume)
  if(A_HEAVY)
    list(APPEND labels heavy)
  endif()
  astrosweep_add_kill_and_resume(${name} EXE ${exe} REFERENCE ${resume_out}/reference_${A_CASE}.h5
    PRODUCT ${resume_out}/${name}.h5 FIXTURE resume_reference_${A_CASE} MODE ${A_MODE} NP ${A_NP}
    RESUME_NP ${A_RESUME_NP} SEED ${A_SEED} ROUNDS ${A_ROUNDS} LABELS ${labels} ${other}
    ARGS -i ${input} ${resume_grid_${A_CASE}})
endfunction()

# (a) SIGKILL to every rank, three times, at different moments; resumed on other rank counts.
astrosweep_add_resume_test(period_resume_kill_all_csv MODE kill-all CASE csv NP 2,1,3 RESUME_NP 2 SEED 11 HEAVY)
astrosweep_add_resume_test(period_resume_kill_all_catalog MODE kill-all CASE catalog NP 3,2,1 RESUME_NP 3 SEED 12
                           HEAVY)
astrosweep_add_resume_test(period_resume_kill_all_periodograms MODE kill-all CASE periodograms NP 2,3 RESUME_NP 1
                           SEED 13 ROUNDS 2 HEAVY)
# Its reference serves no other test: the sanitizer stage skips it too.
set_property(TEST period_resume_reference_periodograms APPEND PROPERTY LABELS heavy)
# (b) SIGKILL to one rank: mpiexec ends the job (the driver fails on a hang), then resume.
astrosweep_add_resume_test(period_resume_kill_one_csv MODE kill-one CASE csv NP 3,2 RESUME_NP 1 SEED 21 ROUNDS 2 HEAVY)
astrosweep_add_resume_test(period_resume_kill_one_catalog MODE kill-one CASE catalog NP 2,3 RESUME_NP 2 SEED 22
                           ROUNDS 2)
# (c) SIGTERM to every rank or to one: exit code 6, product incomplete with its journal; resume.
astrosweep_add_resume_test(period_resume_sigterm_csv MODE term CASE csv NP 1,3 RESUME_NP 2 SEED 31 ROUNDS 2 HEAVY)
astrosweep_add_resume_test(period_resume_sigterm_catalog MODE term CASE catalog NP 2,3 RESUME_NP 1 SEED 32 ROUNDS 2
                           HEAVY)
# (a) and (c) with three units in flight per rank.
astrosweep_add_resume_test(period_resume_sigterm_lanes MODE term CASE lanes NP 2,1 RESUME_NP 3 SEED 33 ROUNDS 2)
astrosweep_add_resume_test(period_resume_kill_all_lanes MODE kill-all CASE lanes NP 3,1 RESUME_NP 2 SEED 14 ROUNDS 2
                           HEAVY)
# (a) and (c) with the fast method.
astrosweep_add_resume_test(period_resume_kill_all_fast MODE kill-all CASE fast NP 2,3 RESUME_NP 1 SEED 15 ROUNDS 2)
astrosweep_add_resume_test(period_resume_sigterm_fast MODE term CASE fast NP 3 RESUME_NP 2 SEED 34 ROUNDS 1 HEAVY)
# (e) --resume with other parameters: exit code 2 naming what differs, for an incomplete and a
# complete product, neither touched. (d), a complete product resumed, ends every test above.
astrosweep_add_resume_test(period_resume_other_parameters MODE mismatch CASE csv NP 2 RESUME_NP 2 SEED 41
                           OTHER --fmin 0.5 --fmax 24 --n-freq 600000 --top-k 3 --quiet)
# (f) Two runs on one output (issue 17): while a run holds it, a second run with --resume or with
# --overwrite is refused (exit code 4, naming the first); the first, stopped meanwhile, completes.
astrosweep_add_resume_test(period_second_writer MODE second-writer CASE cpu NP 2 RESUME_NP 1 SEED 51)
astrosweep_add_failure_test(bad_resume_with_overwrite CODE 2 MATCH "--resume and --overwrite contradict"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/o.h5 ${grid} --resume --overwrite)
