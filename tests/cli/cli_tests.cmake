# End-to-end runs of `astrosweep` under mpirun: products from 1, 2 and 3 ranks must be identical,
# every input format must work, and every bad input must fail with its documented exit code.
set(exe $<TARGET_FILE:astrosweep>)
set(out ${CMAKE_CURRENT_BINARY_DIR}/products)
set(lc ${ASTROSWEEP_TEST_DATA}/lightcurves)
file(MAKE_DIRECTORY ${out})
set(sdss_grid --fmin 0.5 --fmax 24 --n-freq 30000 --periodograms --top-k 4 --progress-interval 1000 --quiet)

# --- identical products for 1, 2 and 3 ranks, FP64 and FP32 ---
foreach(np 1 2 3)
  foreach(prec fp64 fp32)
    astrosweep_add_mpi_run(period_sdss_${prec}_np${np} NP ${np} FIXTURES_SETUP products_${prec}
      COMMAND ${exe} period -i ${lc}/sdss_stripe82_z.csv -o ${out}/sdss_${prec}_np${np}.h5 --overwrite
              --precision ${prec} ${sdss_grid})
  endforeach()
endforeach()
foreach(prec fp64 fp32)
  foreach(np 2 3)
    add_test(NAME products_identical_${prec}_np1_np${np}
             COMMAND compare_products ${out}/sdss_${prec}_np1.h5 ${out}/sdss_${prec}_np${np}.h5)
    set_tests_properties(products_identical_${prec}_np1_np${np} PROPERTIES FIXTURES_REQUIRED products_${prec}
                         ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS "mpi")
  endforeach()
endforeach()

# --- several units in flight per rank (lanes, each its own thread and backend) change nothing: the
# same product from 1 rank with 3 lanes and from 2 ranks with 2, in both precisions ---
foreach(prec fp64 fp32)
  foreach(case "1;3" "2;2")
    list(GET case 0 np)
    list(GET case 1 lanes)
    astrosweep_add_mpi_run(period_sdss_${prec}_np${np}_lanes${lanes} NP ${np}
      FIXTURES_SETUP products_${prec}_lanes
      COMMAND ${exe} period -i ${lc}/sdss_stripe82_z.csv -o ${out}/sdss_${prec}_np${np}_lanes${lanes}.h5 --overwrite
              --precision ${prec} --units-in-flight ${lanes} ${sdss_grid})
    add_test(NAME products_identical_${prec}_np1_np${np}_lanes${lanes}
             COMMAND compare_products ${out}/sdss_${prec}_np1.h5 ${out}/sdss_${prec}_np${np}_lanes${lanes}.h5)
    set_tests_properties(products_identical_${prec}_np1_np${np}_lanes${lanes} PROPERTIES
                         FIXTURES_REQUIRED "products_${prec};products_${prec}_lanes"
                         ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS "mpi")
  endforeach()
endforeach()

# --- the fast method (--method fast): identical products for 1, 2 and 3 ranks, FP64 and FP32, on a
# heterogeneous input: SDSS's 14-81-point curves and the 3,555-point object in one CSV file ---
file(READ ${lc}/sdss_stripe82_z.csv sdss_rows)
file(READ ${lc}/synthetic_8205.csv long_rows)
file(WRITE ${out}/mixed_lengths.csv "${sdss_rows}${long_rows}")
set(fast_grid --fmin 0.5 --fmax 24 --n-freq 70000 --periodograms --top-k 4 --progress-interval 1000 --quiet
    --method fast)
foreach(np 1 2 3)
  foreach(prec fp64 fp32)
    astrosweep_add_mpi_run(period_fast_${prec}_np${np} NP ${np} FIXTURES_SETUP products_fast_${prec}
      COMMAND ${exe} period -i ${out}/mixed_lengths.csv -o ${out}/fast_${prec}_np${np}.h5
              --overwrite --precision ${prec} ${fast_grid})
  endforeach()
endforeach()
foreach(prec fp64 fp32)
  foreach(np 2 3)
    add_test(NAME products_identical_fast_${prec}_np1_np${np}
             COMMAND compare_products ${out}/fast_${prec}_np1.h5 ${out}/fast_${prec}_np${np}.h5)
    set_tests_properties(products_identical_fast_${prec}_np1_np${np} PROPERTIES FIXTURES_REQUIRED products_fast_${prec}
                         ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS "mpi")
  endforeach()
  # The sanitizer stage compares 1 and 3 ranks only.
  set_property(TEST period_fast_${prec}_np2 products_identical_fast_${prec}_np1_np2 APPEND PROPERTY LABELS heavy)
endforeach()
# The method is in the product: its attribute, and the log line.
astrosweep_add_mpi_run(period_fast_method_recorded NP 1 FIXTURES_REQUIRED products_fast_fp64
  COMMAND ${exe} period -i ${lc}/ztf_243ida_r.csv -o ${out}/fast_ida.h5 --overwrite --method fast --model standard)
set_tests_properties(period_fast_method_recorded PROPERTIES PASS_REGULAR_EXPRESSION "method fast")

# --- the product describes itself: units and a description on every dataset, the periodogram's
# frequency axis a dimension scale (h5py: power.dims[1][0]) ---
add_test(NAME period_product_describes_itself
         COMMAND describe_check ${out}/sdss_fp64_np2.h5 --scale periodogram/power 1)
set_tests_properties(period_product_describes_itself PROPERTIES FIXTURES_REQUIRED products_fp64
                     ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS "mpi")

# --- the HDF5 catalog path gives the same datasets as the CSV path ---
# Every astrosweep run goes through mpiexec: a singleton start under LeakSanitizer crashes its
# tracer on a bogus dynamic-TLS range (compiler-rt, not ours; see bad_input_suite.cmake).
astrosweep_add_mpi_run(convert_sdss_to_catalog NP 1 FIXTURES_SETUP catalog
  COMMAND ${exe} convert -i ${lc}/sdss_stripe82_z.csv -o ${out}/sdss_catalog.h5 --overwrite --time-reference MJD)
astrosweep_add_mpi_run(period_sdss_catalog_np3 NP 3 FIXTURES_REQUIRED catalog FIXTURES_SETUP products_catalog
  COMMAND ${exe} period -i ${out}/sdss_catalog.h5 -o ${out}/sdss_catalog_np3.h5 --overwrite ${sdss_grid})
add_test(NAME products_identical_csv_vs_catalog
         COMMAND compare_products ${out}/sdss_fp64_np1.h5 ${out}/sdss_catalog_np3.h5 --datasets-only)
set_tests_properties(products_identical_csv_vs_catalog PROPERTIES FIXTURES_REQUIRED "products_fp64;products_catalog"
                     ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS "mpi")

# --- FITS light curves (written by make_fits_fixtures), a parameter file, the automatic grid ---
set(fits ${CMAKE_CURRENT_BINARY_DIR}/fits)
add_test(NAME make_fits_fixtures COMMAND make_fits_fixtures ${fits})
set_tests_properties(make_fits_fixtures PROPERTIES FIXTURES_SETUP fits)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/fits.conf "# a parameter file\nmodel = generalized\nprecision = fp32\npmin = 0.2\npmax = 5\n")
astrosweep_add_mpi_run(period_fits_directory NP 2 FIXTURES_REQUIRED fits
  COMMAND ${exe} period -i ${fits}/good -o ${out}/fits.h5 --overwrite --config ${CMAKE_CURRENT_BINARY_DIR}/fits.conf)
set_tests_properties(period_fits_directory PROPERTIES PASS_REGULAR_EXPRESSION "101 +1[0-9]+ +0.588")
# Kepler and TESS files in one input (times 2,167 days apart in BJD): each object's own reference
# reaches the catalog and the product, read directly or through the catalog, with the same results.
astrosweep_add_mpi_run(convert_fits_mixed_missions NP 1 FIXTURES_REQUIRED fits FIXTURES_SETUP fits_mixed_catalog
  COMMAND ${exe} convert -i ${fits}/mixed -o ${out}/fits_mixed.h5 --overwrite)
add_test(NAME period_fits_mixed_missions COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=2
  -DEXE=$<TARGET_FILE:astrosweep> -DTOOL=$<TARGET_FILE:bad_inputs>
  "-DARGS=period|-i|${fits}/mixed|-o|${out}/fits_mixed_direct.h5|--overwrite|--pmin|0.2|--pmax|5" -DOUT=${out}/fits_mixed_direct.h5
  "-DEXPECT=time_reference BJD - [(]bjdrefi [+] bjdreff[)] of each object [(]TDB[)]@@object 757076 status 0 cleaned 4 points [0-9]+ frequency 0[.]43[0-9]+ [^\n]* bjdref 2454833[+]0@@object 404 status 0 cleaned 4 points [0-9]+ frequency 1[.]6[0-9]+ [^\n]* bjdref 2457000[+]0"
  "-DARGS2=period|-i|${out}/fits_mixed.h5|-o|${out}/fits_mixed_catalog.h5|--overwrite|--pmin|0.2|--pmax|5"
  -DOUT2=${out}/fits_mixed_catalog.h5 -P ${PROJECT_SOURCE_DIR}/tests/cli/expect_product.cmake)
set_tests_properties(period_fits_mixed_missions PROPERTIES FIXTURES_REQUIRED "fits;fits_mixed_catalog"
                     ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS "mpi" TIMEOUT 300)
astrosweep_add_mpi_run(period_ida_auto_grid NP 1
  COMMAND ${exe} period -i ${lc}/ztf_243ida_r.csv -o ${out}/ida_auto.h5 --overwrite --model standard)

# --- bad inputs: exit code and a message that says what is wrong ---
set(bad ${CMAKE_CURRENT_BINARY_DIR}/bad)
file(MAKE_DIRECTORY ${bad})
file(WRITE ${bad}/malformed.csv "1, 1.0, 2.0\n1, 2.0, 3.0\n1, 3.0, x4\n")
file(WRITE ${bad}/duplicates.csv "1, 1.0, 2.0\n1, 2.0, 3.0\n2, 1.0, 2.0\n1, 3.0, 4.0\n")
file(WRITE ${bad}/unreadable.csv "1, 1.0, 2.0\n")
file(CHMOD ${bad}/unreadable.csv PERMISSIONS OWNER_WRITE)  # unreadable (except to root)
file(WRITE ${bad}/empty.csv "")
file(WRITE ${bad}/list.txt "good/tess_a_lc.fits\nnoerr.fits\n")
set(grid --fmin 0.5 --fmax 24 --n-freq 1000)
astrosweep_add_failure_test(bad_csv_line CODE 3 MATCH "malformed.csv:3" COMMAND period -i ${bad}/malformed.csv -o ${bad}/bad_csv_line.h5 ${grid})
astrosweep_add_failure_test(bad_duplicate_ids NP 2 CODE 3 MATCH "duplicates.csv:4.*contiguous"
  COMMAND period -i ${bad}/duplicates.csv -o ${bad}/bad_duplicate_ids.h5 ${grid})
astrosweep_add_failure_test(bad_missing_file NP 2 CODE 3 MATCH "does not exist" COMMAND period -i ${bad}/nope.csv -o ${bad}/bad_missing_file.h5 ${grid})
astrosweep_add_failure_test(bad_empty_file CODE 3 MATCH "no data lines" COMMAND period -i ${bad}/empty.csv -o ${bad}/bad_empty_file.h5 ${grid})
astrosweep_add_failure_test(bad_directory_as_csv CODE 3 MATCH "is a directory" COMMAND period -i ${bad} --format csv -o ${bad}/bad_directory_as_csv.h5 ${grid})
astrosweep_add_failure_test(bad_unreadable_file CODE 3 MATCH "cannot read"
  COMMAND period -i ${bad}/unreadable.csv -o ${bad}/bad_unreadable_file.h5 ${grid} @NONROOT@)
astrosweep_add_failure_test(bad_fits_missing_columns NP 2 CODE 3 MATCH "noerr.fits.*PDCSAP_FLUX_ERR" FIXTURES_REQUIRED fits
  COMMAND period -i @${bad}/list_abs.txt -o ${bad}/bad_fits_missing_columns.h5 ${grid})
file(WRITE ${bad}/list_abs.txt "${fits}/good/tess_a_lc.fits\n${fits}/noerr.fits\n")
astrosweep_add_failure_test(bad_fits_truncated CODE 3 MATCH "truncated.fits" FIXTURES_REQUIRED fits
  COMMAND period -i ${fits}/truncated.fits -o ${bad}/bad_fits_truncated.h5 ${grid})
astrosweep_add_failure_test(bad_not_a_catalog CODE 3 MATCH "not an astrosweep light-curve catalog" FIXTURES_REQUIRED products_fp64
  COMMAND period -i ${out}/sdss_fp64_np1.h5 -o ${bad}/bad_not_a_catalog.h5 ${grid})
astrosweep_add_failure_test(bad_fmin_ge_fmax NP 2 CODE 2 MATCH "fmin must be smaller than fmax"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_fmin_ge_fmax.h5 --fmin 5 --fmax 1 --n-freq 10)
astrosweep_add_failure_test(bad_n_freq_zero CODE 2 MATCH "number of frequencies must be > 0"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_n_freq_zero.h5 --fmin 1 --fmax 5 --n-freq 0)
astrosweep_add_failure_test(bad_n_freq_negative CODE 2 MATCH "number of frequencies must be > 0"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_n_freq_negative.h5 --fmin 1 --fmax 5 --n-freq -3)
# Grid sizes are written in scientific notation as often as not: 1e3 is 1000; a fraction or a word
# is refused.
astrosweep_add_failure_test(bad_n_freq_fraction CODE 2 MATCH "--n-freq needs a whole number, got '1.5'"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_n_freq_fraction.h5 --fmin 1 --fmax 5 --n-freq 1.5)
astrosweep_add_failure_test(bad_n_freq_word CODE 2 MATCH "--n-freq needs a whole number, got 'many'"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_n_freq_word.h5 --fmin 1 --fmax 5 --n-freq many)
astrosweep_add_mpi_run(period_n_freq_scientific NP 1
  COMMAND ${exe} period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/n_freq_1e3.h5 --overwrite --fmin 1 --fmax 5 --n-freq 1e3
          --quiet)
set_tests_properties(period_n_freq_scientific PROPERTIES PASS_REGULAR_EXPRESSION "\\(N_f = 1000\\)")
astrosweep_add_failure_test(bad_existing_output NP 2 CODE 4 MATCH "already exists.*--overwrite" FIXTURES_REQUIRED products_fp64
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${out}/sdss_fp64_np1.h5 ${grid})
astrosweep_add_failure_test(bad_output_directory CODE 4 MATCH "does not exist"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/no/such/dir/o.h5 ${grid})
astrosweep_add_failure_test(bad_more_ranks_than_work NP 2 CODE 2 MATCH "more MPI ranks \\(2\\) than objects \\(1\\)"
  COMMAND period -i ${lc}/ztf_243ida_r.csv -o ${bad}/bad_more_ranks_than_work.h5 ${grid})
astrosweep_add_failure_test(bad_unknown_option NP 2 CODE 2 MATCH "unknown option '--frequency-max'"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_unknown_option.h5 --frequency-max 3)
# A misspelt option, parameter-file name or command: the one meant is named.
astrosweep_add_failure_test(bad_misspelt_option NP 2 CODE 2
  MATCH "period: unknown option '--n-freqs' \\(did you mean '--n-freq'\\?\\)" COMMAND period --n-freqs 10)
astrosweep_add_failure_test(bad_misspelt_command NP 2 CODE 2
  MATCH "unknown command 'perod' \\(did you mean 'period'\\?\\)" COMMAND perod -i ${lc}/sdss_stripe82_z.csv)
file(WRITE ${bad}/typo.conf "# a parameter file\nmodel = standard\nfmni = 0.5\n")
astrosweep_add_failure_test(bad_config_misspelt_name NP 2 CODE 2
  MATCH "typo.conf:3: unknown option 'fmni' \\(did you mean 'fmin'\\?\\)"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_config_misspelt_name.h5 --config ${bad}/typo.conf)
astrosweep_add_failure_test(bad_units_in_flight CODE 2 MATCH "--units-in-flight must be between 0 [(]automatic[)] and 8"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_units_in_flight.h5 ${grid} --units-in-flight 9)
file(WRITE ${bad}/bad_value.conf "model = standard\n\ntop-k = 0\n")
astrosweep_add_failure_test(bad_config_value CODE 2 MATCH "bad_value.conf:3: --top-k must be between 1 and 1000"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_config_value.h5 ${grid} --config ${bad}/bad_value.conf)
file(WRITE ${bad}/not_a_number.conf "fmin = low\n")
astrosweep_add_failure_test(bad_config_not_a_number CODE 2 MATCH "not_a_number.conf:1: the argument \\('low'\\)"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_config_not_a_number.h5 --config ${bad}/not_a_number.conf)
file(WRITE ${bad}/malformed.conf "model = standard\nfmin 0.5\n")
astrosweep_add_failure_test(bad_config_malformed_line CODE 3 MATCH "malformed.conf:2: expected 'name = value'"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_config_malformed_line.h5 --config ${bad}/malformed.conf)
# A failure on ranks after the catalog (MPI-IO) is open must stop the job, not hang in a collective
# close: --backend cuda where no GPU can be used (a build without CUDA, or no visible device; the
# devices are hidden here so the test means the same on a GPU machine). All three ranks exit 5.
astrosweep_add_failure_test(bad_backend_unavailable NP 3 CODE 5 MATCH "no CUDA (backend|device)"
  FIXTURES_REQUIRED catalog COMMAND period -i ${out}/sdss_catalog.h5 -o ${bad}/bad_backend_unavailable.h5 ${grid} --backend cuda)
set_property(TEST bad_backend_unavailable APPEND PROPERTY ENVIRONMENT CUDA_VISIBLE_DEVICES=)
astrosweep_add_failure_test(bad_model_name CODE 2 MATCH "unknown --model"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_model_name.h5 --model fancy ${grid})
astrosweep_add_failure_test(bad_method_name CODE 2 MATCH "unknown --method 'quick'.*use auto, direct or fast"
  COMMAND period -i ${lc}/sdss_stripe82_z.csv -o ${bad}/bad_method_name.h5 --method quick ${grid})

# --- GPU: 2 ranks sharing the GPU give the CPU's product (FP64 within REL of each dataset's
# largest value, best frequencies and peaks identical): the direct method on SDSS (1e-9), the fast
# method on the heterogeneous input (1e-8: the two NUFFTs' own errors); skipped without a GPU ---
foreach(case "sdss|${lc}/sdss_stripe82_z.csv|direct|1e-9" "catalog|${out}/sdss_catalog.h5|direct|1e-9"
        "fast|${out}/mixed_lengths.csv|fast|1e-8")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 name)
  list(GET case 1 input)
  list(GET case 2 method)
  list(GET case 3 rel)
  string(REPLACE ";" "|" args "-i;${input};--model;generalized;--method;${method};${sdss_grid}")
  add_test(NAME gpu_product_matches_cpu_${name}
    COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=2 -DEXE=$<TARGET_FILE:astrosweep>
      -DCOMPARE=$<TARGET_FILE:compare_products> "-DARGS=${args}" -DOUT=${out}/gpu_${name} -DREL=${rel}
      -P ${PROJECT_SOURCE_DIR}/tests/cli/gpu_matches_cpu.cmake)
  set_tests_properties(gpu_product_matches_cpu_${name} PROPERTIES ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}"
    LABELS "mpi;gpu" TIMEOUT 900 SKIP_REGULAR_EXPRESSION "astrosweep-test-skipped" FIXTURES_REQUIRED catalog)
endforeach()

# --- the plotting tool on a real product (only where python3 has numpy, h5py and matplotlib) ---
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy, h5py, matplotlib"
                  RESULT_VARIABLE plot_modules_missing OUTPUT_QUIET ERROR_QUIET)
  if(NOT plot_modules_missing)
    add_test(NAME plot_period_product
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/plot_period_product.py
                     ${out}/sdss_fp64_np1.h5 --ids 844778 2794912 --out-dir ${out}/plots)
    set_tests_properties(plot_period_product PROPERTIES FIXTURES_REQUIRED products_fp64 LABELS "tools"
                         PASS_REGULAR_EXPRESSION "period_844778.png")
  else()
    message(STATUS "astrosweep: python3 lacks numpy/h5py/matplotlib: the plotting tool is not tested")
  endif()
endif()
