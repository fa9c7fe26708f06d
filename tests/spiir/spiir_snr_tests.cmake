# spiir --snr-templates (docs/spiir.md, "SNR series"): each work unit's rank writes its rows and
# samples of /snr/<IFO> into the product itself. Included by CMakeLists.txt after
# spiir_units_tests.cmake (its spiir_long and spiir_resume_args).
#
# One rank and one unit; 3 ranks with a template per unit and 10-s units; 2 ranks with the whole
# bank per unit and 10-s units. The last two byte for byte (the same time ranges), the first within
# the warm-up's rounding; every product's series equal to its own peaks (check-snr).
set(spiir_snr_args ${spiir_long} --snr-templates all)
astrosweep_add_mpi_run(spiir_snr_np1 NP 1 LABELS spiir FIXTURES_REQUIRED "spiir_bank;spiir_strain_long"
  FIXTURES_SETUP spiir_snr_np1 COMMAND ${spiir_exe} spiir ${spiir_snr_args} -o ${spiir_out}/snr_np1.h5 --threads 2)
astrosweep_add_mpi_run(spiir_snr_np3 NP 3 LABELS spiir FIXTURES_REQUIRED "spiir_bank;spiir_strain_long"
  FIXTURES_SETUP spiir_snr_np3
  COMMAND ${spiir_exe} spiir ${spiir_snr_args} -o ${spiir_out}/snr_np3.h5 --threads 1 --templates-per-unit 1
          --unit-seconds 10)
astrosweep_add_mpi_run(spiir_snr_np2 NP 2 LABELS spiir FIXTURES_REQUIRED "spiir_bank;spiir_strain_long"
  FIXTURES_SETUP spiir_snr_np2
  COMMAND ${spiir_exe} spiir ${spiir_snr_args} -o ${spiir_out}/snr_np2.h5 --threads 1 --unit-seconds 10)
foreach(np 1 2 3)
  add_test(NAME spiir_snr_np${np}_matches_peaks COMMAND spiir_fixtures check-snr ${spiir_out}/snr_np${np}.h5
           --first 0 --last 1)
  set_tests_properties(spiir_snr_np${np}_matches_peaks PROPERTIES FIXTURES_REQUIRED spiir_snr_np${np} LABELS spiir)
endforeach()
add_test(NAME spiir_snr_ranks_identical COMMAND compare_products ${spiir_out}/snr_np2.h5 ${spiir_out}/snr_np3.h5)
set_tests_properties(spiir_snr_ranks_identical PROPERTIES FIXTURES_REQUIRED "spiir_snr_np2;spiir_snr_np3"
                     LABELS spiir)
add_test(NAME spiir_snr_time_ranges_agree COMMAND compare_products ${spiir_out}/snr_np1.h5 ${spiir_out}/snr_np3.h5
         --close 1e-6)
set_tests_properties(spiir_snr_time_ranges_agree PROPERTIES FIXTURES_REQUIRED "spiir_snr_np1;spiir_snr_np3"
                     LABELS spiir)
add_test(NAME spiir_snr_describes_itself COMMAND describe_check ${spiir_out}/snr_np3.h5)
set_tests_properties(spiir_snr_describes_itself PROPERTIES FIXTURES_REQUIRED spiir_snr_np3 LABELS spiir)
# The multi-rate bank (latency 448 samples, chunks of 0.3 s), one template of the two, 10-s units
# on 2 ranks: the series at each peak is the peak's value, so the latency is taken off right.
astrosweep_add_mpi_run(spiir_snr_multirate NP 2 LABELS spiir FIXTURES_REQUIRED "spiir_bank_mr;spiir_strain_long"
  FIXTURES_SETUP spiir_snr_multirate
  COMMAND ${spiir_exe} spiir --bank ${spiir_out}/bank_mr.h5 --strain ${spiir_out}/strain_long.h5 --overwrite
          --n-slides 10 -o ${spiir_out}/snr_mr.h5 --threads 1 --chunk-seconds 0.3 --unit-seconds 10 --snr-templates 1)
add_test(NAME spiir_snr_multirate_matches_peaks COMMAND spiir_fixtures check-snr ${spiir_out}/snr_mr.h5 --first 1
         --last 1)
set_tests_properties(spiir_snr_multirate_matches_peaks PROPERTIES FIXTURES_REQUIRED spiir_snr_multirate LABELS spiir)
# Killed and resumed: the rows the finished units wrote stay, the rest is written on resuming.
set(spiir_snr_resume_args ${spiir_resume_args} --snr-templates all)
astrosweep_add_kill_and_resume(spiir_resume_snr JOB spiir EXE ${spiir_exe} REFERENCE ${spiir_out}/snr_np3.h5
  PRODUCT ${spiir_out}/spiir_resume_snr.h5 FIXTURE spiir_snr_np3 MODE kill-all NP 2,3 RESUME_NP 2 SEED 67 ROUNDS 2
  LABELS mpi resume spiir heavy ARGS ${spiir_snr_resume_args})
# Rows the bank lacks and words that are not rows: exit 2 naming the option.
astrosweep_add_failure_test(spiir_bad_snr_templates_range CODE 2 MATCH "names row 5, but the bank has 2 templates"
  FIXTURES_REQUIRED "spiir_bank;spiir_strain" PRODUCTS ${spiir_out}/spiir_bad_snr_templates_range.h5
  COMMAND spiir --bank ${spiir_out}/bank.h5 --strain ${spiir_out}/strain.h5
          -o ${spiir_out}/spiir_bad_snr_templates_range.h5 --snr-templates 1:5)
astrosweep_add_failure_test(spiir_bad_snr_templates_word NP 2 CODE 2 MATCH "--snr-templates must be 'all'"
  FIXTURES_REQUIRED "spiir_bank;spiir_strain" PRODUCTS ${spiir_out}/spiir_bad_snr_templates_word.h5
  COMMAND spiir --bank ${spiir_out}/bank.h5 --strain ${spiir_out}/strain.h5
          -o ${spiir_out}/spiir_bad_snr_templates_word.h5 --snr-templates 1-2)
set_property(TEST spiir_bad_snr_templates_range spiir_bad_snr_templates_word APPEND PROPERTY LABELS spiir)
# --snr-gps: GPS 1000000040 ... 1000000050 of the strain starting at 1000000000.25 s (2048 Hz):
# samples 81408 ... 101887, the injection (sample 90000) inside; 2 ranks, 10-s units, the multi-rate
# bank, so units, the window and the latency all cut the series.
astrosweep_add_mpi_run(spiir_snr_window NP 2 LABELS spiir FIXTURES_REQUIRED "spiir_bank_mr;spiir_strain_long"
  FIXTURES_SETUP spiir_snr_window
  COMMAND ${spiir_exe} spiir --bank ${spiir_out}/bank_mr.h5 --strain ${spiir_out}/strain_long.h5 --overwrite
          --n-slides 10 -o ${spiir_out}/snr_window.h5 --threads 1 --chunk-seconds 0.3 --unit-seconds 10
          --snr-templates all --snr-gps 1000000040:1000000050)
add_test(NAME spiir_snr_window_matches_peaks COMMAND spiir_fixtures check-snr ${spiir_out}/snr_window.h5 --first 0
         --last 1 --first-sample 81408)
set_tests_properties(spiir_snr_window_matches_peaks PROPERTIES FIXTURES_REQUIRED spiir_snr_window LABELS spiir)
astrosweep_add_failure_test(spiir_bad_snr_gps_outside CODE 2 MATCH "holds none of the strain's samples"
  FIXTURES_REQUIRED "spiir_bank;spiir_strain" PRODUCTS ${spiir_out}/spiir_bad_snr_gps_outside.h5
  COMMAND spiir --bank ${spiir_out}/bank.h5 --strain ${spiir_out}/strain.h5
          -o ${spiir_out}/spiir_bad_snr_gps_outside.h5 --snr-templates 0 --snr-gps 900000000:900000010)
astrosweep_add_failure_test(spiir_bad_snr_gps_alone CODE 2 MATCH "--snr-gps needs --snr-templates"
  FIXTURES_REQUIRED "spiir_bank;spiir_strain" PRODUCTS ${spiir_out}/spiir_bad_snr_gps_alone.h5
  COMMAND spiir --bank ${spiir_out}/bank.h5 --strain ${spiir_out}/strain.h5
          -o ${spiir_out}/spiir_bad_snr_gps_alone.h5 --snr-gps 1000000001:1000000002)
astrosweep_add_failure_test(spiir_bad_snr_gps_order CODE 2 MATCH "--snr-gps must be two GPS times"
  FIXTURES_REQUIRED "spiir_bank;spiir_strain" PRODUCTS ${spiir_out}/spiir_bad_snr_gps_order.h5
  COMMAND spiir --bank ${spiir_out}/bank.h5 --strain ${spiir_out}/strain.h5
          -o ${spiir_out}/spiir_bad_snr_gps_order.h5 --snr-templates 0 --snr-gps 1000000005:1000000002)
set_property(TEST spiir_bad_snr_gps_outside spiir_bad_snr_gps_alone spiir_bad_snr_gps_order APPEND PROPERTY LABELS
             spiir)
