# The bad-input suite (docs/bad-input.md): per input format, damaged, malformed, absurd and
# unreachable inputs and outputs. A failure must give its documented exit code and a message that
# names the file (FILE) with a hint, and must not leave a product that looks complete (PRODUCTS,
# ABSENT); data a search can survive must run and mark each object with its status bits. The
# fixtures are written by tests/cli/bad_inputs.cpp; every test is labelled bad-input.
set(bi ${CMAKE_CURRENT_BINARY_DIR}/bad-input-suite)
set(bo ${bi}/out)  # writable by everyone: the outputs of the tests run as user nobody
add_test(NAME bad_input_fixtures COMMAND bad_inputs fixtures ${bi})
set_tests_properties(bad_input_fixtures PROPERTIES FIXTURES_SETUP bad_inputs LABELS bad-input)
set(grid --fmin 0.5 --fmax 24 --n-freq 1000 --quiet)

# bad_input(name CODE c MATCH regex FILE path [NP n] [PRODUCTS ...] [ABSENT ...] [FSIZE b] [AS_NOBODY]
#           COMMAND args...): a failure test on the suite's fixtures. @OUT@ in the command is the
# test's own product (tests run in parallel), which must not be left looking complete; for scfind
# its default FITS mask must not be left at all.
function(bad_input name)
  cmake_parse_arguments(B "AS_NOBODY" "" "PRODUCTS;ABSENT" ${ARGN})
  string(REPLACE "@OUT@" "${bo}/${name}.h5" args "${B_UNPARSED_ARGUMENTS}")
  list(APPEND B_PRODUCTS ${bo}/${name}.h5)
  if(args MATCHES ";scfind;")
    list(APPEND B_ABSENT ${bo}/${name}_mask-raw.fits)
  endif()
  set(nobody "")
  if(B_AS_NOBODY)
    set(nobody AS_NOBODY)
  endif()
  astrosweep_add_failure_test(${name} ${args} PRODUCTS ${B_PRODUCTS} ABSENT ${B_ABSENT} ${nobody}
                              FIXTURES_REQUIRED bad_inputs)
endfunction()

# bad_input_product(name [NP n] EXPECT regex... COMMAND args... [SAME_AS args...]): a run that must
# succeed; its product's per-object listing must match every EXPECT regex, or equal the listing
# of the SAME_AS run.
function(bad_input_product name)
  cmake_parse_arguments(B "" "NP" "EXPECT;COMMAND;SAME_AS" ${ARGN})
  if(NOT B_NP)
    set(B_NP 1)
  endif()
  string(REPLACE ";" "|" args "${B_COMMAND};-o;${bo}/${name}.h5;--overwrite")
  string(REPLACE ";" "@@" expect "${B_EXPECT}")
  set(second "")
  if(B_SAME_AS)
    string(REPLACE ";" "|" args2 "${B_SAME_AS};-o;${bo}/${name}_same.h5;--overwrite")
    set(second "-DARGS2=${args2}" -DOUT2=${bo}/${name}_same.h5)
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=${B_NP}
    -DEXE=$<TARGET_FILE:astrosweep> -DTOOL=$<TARGET_FILE:bad_inputs> "-DARGS=${args}" -DOUT=${bo}/${name}.h5
    "-DEXPECT=${expect}" ${second} -P ${PROJECT_SOURCE_DIR}/tests/cli/expect_product.cmake)
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ASTROSWEEP_MPI_TEST_ENV}" LABELS bad-input TIMEOUT 300
                       FIXTURES_REQUIRED bad_inputs)
endfunction()

# --- CSV light curves ---
set(c ${bi}/csv)
bad_input(bad_csv_truncated CODE 3 MATCH "truncated.csv:[0-9]+: expected 4 columns" FILE ${c}/truncated.csv
  COMMAND period -i ${c}/truncated.csv -o @OUT@ ${grid})
bad_input(bad_csv_garbage CODE 3 MATCH "garbage.csv:1: expected 3 or 4 columns" FILE ${c}/garbage.csv
  COMMAND period -i ${c}/garbage.csv -o @OUT@ ${grid})
bad_input(bad_csv_missing_column NP 2 CODE 3 MATCH "missing_column.csv:2: expected 3 columns" FILE ${c}/missing_column.csv
  COMMAND period -i ${c}/missing_column.csv -o @OUT@ ${grid})
bad_input(bad_csv_header_line CODE 3 MATCH "header.csv:1: object id 'id' is not an integer.*'#'" FILE ${c}/header.csv
  COMMAND period -i ${c}/header.csv -o @OUT@ ${grid})
bad_input(bad_csv_out_of_range CODE 3 MATCH "out_of_range.csv:2: column 3 value '1e999' is outside the range"
  FILE ${c}/out_of_range.csv COMMAND period -i ${c}/out_of_range.csv -o @OUT@ ${grid})
bad_input(bad_csv_comments_only CODE 3 MATCH "contains no data lines" FILE ${c}/comments_only.csv
  COMMAND period -i ${c}/comments_only.csv -o @OUT@ ${grid})
bad_input(bad_csv_directory CODE 3 MATCH "contains no FITS files" FILE ${c}/not-fits
  COMMAND period -i ${c}/not-fits -o @OUT@ ${grid})
bad_input(bad_csv_unreadable AS_NOBODY CODE 3 MATCH "cannot read input file .*Permission denied" FILE ${c}/unreadable.csv
  COMMAND period -i ${c}/unreadable.csv -o @OUT@ ${grid})
# convert writes the catalog as it reads (NAME.part, renamed when whole): a bad line leaves neither.
bad_input(bad_csv_convert_truncated CODE 3 MATCH "truncated.csv:[0-9]+: expected 4 columns" FILE ${c}/truncated.csv
  COMMAND convert -i ${c}/truncated.csv -o @OUT@
  ABSENT ${bo}/bad_csv_convert_truncated.h5 ${bo}/bad_csv_convert_truncated.h5.part)
# Objects a search cannot use are kept with their status bits and NaN results: only NaNs (1),
# N_t = 1, 2, 3 (2, 3, 4: a sinusoid and a mean fit 3 points exactly), negative and zero errors
# (5, 6: dropped by the generalized model, used by the standard one), constant data (8).
bad_input_product(period_unusable_objects NP 2 COMMAND period -i ${c}/unusable.csv ${grid}
  EXPECT "object 1 status 8 cleaned 1 points 0 frequency nan" "object 2 status 8 cleaned 0 points 1 frequency nan"
         "object 3 status 8 cleaned 0 points 2 frequency nan" "object 4 status 8 cleaned 0 points 3 frequency nan"
         "object 5 status 8 cleaned 2 points 0 frequency nan" "object 6 status 8 cleaned 2 points 0 frequency nan"
         "object 8 status 16 cleaned 0 points 6 frequency nan")
bad_input_product(period_unusable_objects_standard COMMAND period -i ${c}/unusable.csv ${grid} --model standard
  EXPECT "object 5 status 0 cleaned 0 points 6 frequency [0-9.]+ power [0-9.e-]+ finite" "object 4 status 8 cleaned 0 points 3")
# 1e300 fluxes and 1e+-300 errors give the ordinary object's period (7); times of 1e300 days (14,
# 15) get status 32; with the psd normalisation, powers beyond a double get status 64.
set(same "status 0 cleaned 0 points 40 frequency 1.9335 power 0.999999 finite")
bad_input_product(period_absurd_values COMMAND period -i ${c}/absurd.csv ${grid}
  EXPECT "object 7 ${same}" "object 11 ${same}" "object 12 ${same}" "object 13 ${same}" "object 16 ${same}"
         "object 14 status 32 cleaned 0 points 40 frequency nan" "object 15 status 32 cleaned 0 points 40 frequency nan")
# FP32 powers differ in the last digit between compilers (GCC 0.999999, clang 1).
set(same_fp32 "status 0 cleaned 0 points 40 frequency 1.9335 power (1|0[.]99999[0-9]*) finite")
bad_input_product(period_absurd_values_fp32 COMMAND period -i ${c}/absurd.csv ${grid} --precision fp32
  EXPECT "object 7 ${same_fp32}" "object 11 ${same_fp32}" "object 12 ${same_fp32}" "object 13 ${same_fp32}"
         "object 16 ${same_fp32}"
         "object 14 status 32 cleaned 0 points 40 frequency nan" "object 15 status 32 cleaned 0 points 40 frequency nan")
bad_input_product(period_absurd_values_psd COMMAND period -i ${c}/absurd.csv ${grid} --normalization psd
  EXPECT "object 7 status 0 cleaned 0 points 40 frequency 1.9335 power [0-9.]+ finite" "object 11 status 64 cleaned 0 points 40 frequency nan"
         "object 12 status 64 cleaned 0 points 40 frequency nan" "object 16 status 0 cleaned 0 points 40 frequency 1.9335"
         "object 15 status 32")
# The automatic grid follows the longest baseline: 1e300 days would never end.
bad_input(bad_csv_absurd_times_auto_grid CODE 3 MATCH "automatic grid would have .* object 15 spans" FILE ""
  COMMAND period -i ${c}/absurd.csv -o @OUT@ --quiet)
# Unsorted times (reversed, shuffled) give the results of sorted ones.
bad_input_product(period_reversed_times COMMAND period -i ${c}/reversed.csv ${grid} SAME_AS period -i ${c}/good.csv ${grid})
bad_input_product(period_shuffled_times COMMAND period -i ${c}/shuffled.csv ${grid} SAME_AS period -i ${c}/good.csv ${grid})

# --- TESS/Kepler FITS light curves ---
set(f ${bi}/fitslc)
foreach(case "empty|empty.fits|is empty \\(0 bytes\\)"
             "truncated_header|truncated_header_lc.fits|cannot open FITS file .*error reading"
             "truncated_rows|truncated_rows_lc.fits|reading column TIME"
             "no_end|no_end_lc.fits|no light-curve table can be read.*damaged"
             "bad_card|bad_card_lc.fits|HDU 1, header card 7 .*not printable ASCII"
             "bad_keyword_value|bad_ticid_lc.fits|HDU 1: keyword TICID = 'not-a-number' is not a number"
             "bad_bitpix|bad_bitpix_lc.fits|illegal BITPIX"
             "bad_naxis|bad_naxis_lc.fits|an extension header is damaged"
             "garbage|garbage_lc.fits|cannot open FITS file"
             "text_column|text_time_lc.fits|HDU 2: column TIME holds text"
             "missing_column|no_time_lc.fits|has no TIME column"
             "image|image.fits|no binary table")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 name)
  list(GET case 1 file)
  list(GET case 2 match)
  bad_input(bad_fitslc_${name} CODE 3 MATCH "${match}" FILE ${f}/${file} COMMAND period -i ${f}/${file} -o @OUT@ ${grid})
endforeach()
bad_input(bad_fitslc_in_a_directory NP 2 CODE 3 MATCH "truncated_rows_lc.fits" FILE ${f}/truncated_rows_lc.fits
  COMMAND period -i ${f}/sectors ${f}/truncated_rows_lc.fits -o @OUT@ ${grid})
bad_input(bad_fitslc_unreadable AS_NOBODY CODE 3 MATCH "Permission denied" FILE ${f}/unreadable_lc.fits
  COMMAND period -i ${f}/unreadable_lc.fits -o @OUT@ ${grid})
bad_input(bad_fitslc_unlistable_directory AS_NOBODY CODE 3 MATCH "cannot list directory.*Permission denied" FILE ${f}/locked
  COMMAND period -i ${f}/locked -o @OUT@ ${grid})
# N_t = 0 (a table without rows), 1, 2, only NaN fluxes: kept with status bits; an ordinary one.
bad_input_product(period_fitslc_short_objects COMMAND period -i ${f}/zero_rows_lc.fits ${f}/one_row_lc.fits
  ${f}/two_rows_lc.fits ${f}/nan_flux_lc.fits ${f}/good_lc.fits ${grid}
  EXPECT "object 200 status 8 cleaned 0 points 0" "object 201 status 8 cleaned 0 points 1" "object 202 status 8 cleaned 0 points 2"
         "object 203 status 8 cleaned 1 points 0" "object 101 status 0 cleaned 0 points 500 frequency [0-9.]+ power [0-9.]+ finite")
# One target in two files (sectors) listed out of time order, cadences descending: the same
# object as one file in time order.
bad_input_product(period_fitslc_sectors_merged COMMAND period -i ${f}/sectors ${grid} SAME_AS period -i ${f}/good_lc.fits ${grid})

# --- HDF5 light-curve catalogs ---
set(h ${bi}/h5cat)
foreach(case "empty|empty.h5|is empty \\(0 bytes\\)"
             "truncated|truncated.h5|cannot open HDF5 file"
             "damaged|damaged.h5|cannot open HDF5 file"
             "missing_dataset|missing_y.h5|/points/y is missing"
             "short_dataset|short_y.h5|/points/y and /points/t have different lengths"
             "wrong_rank|rank2_t.h5|/points/t has 2 dimensions"
             "wrong_type|text_t.h5|/points/t does not hold numbers"
             "short_index|short_count.h5|/objects/count and /objects/id have different lengths"
             "no_objects|no_objects.h5|catalog without objects"
             "duplicate_ids|duplicate_ids.h5|object id 1 occurs as object 0 and again as object 5"
             "non_contiguous|gap_offsets.h5|does not start where the previous one ends")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 name)
  list(GET case 1 file)
  list(GET case 2 match)
  bad_input(bad_h5cat_${name} NP 2 CODE 3 MATCH "${match}" FILE ${h}/${file} COMMAND period -i ${h}/${file} -o @OUT@ ${grid})
endforeach()
bad_input(bad_h5cat_unreadable AS_NOBODY CODE 3 MATCH "Permission denied" FILE ${h}/unreadable.h5
  COMMAND period -i ${h}/unreadable.h5 --format hdf5 -o @OUT@ ${grid})
# N_t = 0, 1, 2 and only NaNs, read in parallel.
bad_input_product(period_h5cat_short_objects NP 2 COMMAND period -i ${h}/good.h5 ${grid}
  EXPECT "object 1 status 0 cleaned 0 points 40 frequency [0-9.]+ power [0-9.]+ finite" "object 2 status 8 cleaned 0 points 0"
         "object 3 status 8 cleaned 0 points 1" "object 4 status 8 cleaned 0 points 2" "object 5 status 8 cleaned 1 points 0"
         "object 6 status 0 cleaned 0 points 40")

# --- FITS cubes (scfind) ---
set(k ${bi}/cube)
foreach(case "truncated_header|truncated_header.fits|cannot open FITS file .*error reading"
             "truncated_mid_channel|truncated_mid_channel.fits|truncated: .* need 37440 bytes, the file has 6464"
             "truncated_padding|truncated_padding.fits|truncated: .* the file has 37439"
             "no_end|no_end.fits|illegal character in keyword"
             "bad_card|bad_card.fits|HDU 1, header card 10 .*not printable ASCII"
             "bad_keyword_value|bad_bscale.fits|keyword BSCALE = 'abc' is not a number"
             "bad_bitpix|bitpix12.fits|illegal BITPIX"
             "empty_axis|naxis3_zero.fits|NAXIS3 = 0: the cube is empty"
             "garbage|garbage_header.fits|cannot open FITS file")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 name)
  list(GET case 1 file)
  list(GET case 2 match)
  bad_input(bad_cube_${name} NP 2 CODE 3 MATCH "${match}" FILE ${k}/${file}
    COMMAND scfind -i ${k}/${file} -o @OUT@ --quiet)
endforeach()
# Only NaNs: the noise cannot be measured (the message does not name the cube yet: scfind_job.cpp).
bad_input(bad_cube_only_nans NP 2 CODE 3 MATCH "noise of the cube .*all_nan.* cannot be measured"
  COMMAND scfind -i ${k}/all_nan.fits -o @OUT@ --quiet)
bad_input(bad_cube_unreadable AS_NOBODY CODE 3 MATCH "Permission denied" FILE ${k}/unreadable.fits
  COMMAND scfind -i ${k}/unreadable.fits -o @OUT@ --quiet)
# Values of 1e300 in a BITPIX -64 cube are beyond float32: blanks, counted; the run completes.
astrosweep_add_mpi_run(scfind_huge_values NP 2 FIXTURES_REQUIRED bad_inputs
  COMMAND $<TARGET_FILE:astrosweep> scfind -i ${k}/huge_values.fits -o ${bo}/huge.h5 --overwrite)
set_tests_properties(scfind_huge_values PROPERTIES LABELS "mpi;bad-input" PASS_REGULAR_EXPRESSION "0 blank and 1171 infinite voxels")

# --- HDF5 cubes (scfind) ---
foreach(case "truncated|truncated.h5|cannot open HDF5 file"
             "wrong_rank|rank2.h5|a dataset of rank 2, not a cube"
             "wrong_type|int64.h5|element type not supported"
             "no_channels|no_channels.h5|the cube is empty"
             "group|group.h5|'/cube' is not a dataset"
             "no_dataset|good.h5:/nope|no dataset '/nope'")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 name)
  list(GET case 1 file)
  list(GET case 2 match)
  string(REGEX REPLACE ":/.*" "" path ${file})
  bad_input(bad_h5cube_${name} NP 2 CODE 3 MATCH "${match}" FILE ${k}/${path}
    COMMAND scfind -i ${k}/${file} -o @OUT@ --quiet)
endforeach()
bad_input(bad_h5cube_only_nans NP 2 CODE 3 MATCH "noise of the cube .*all_nan.* cannot be measured"
  COMMAND scfind -i ${k}/all_nan.h5 -o @OUT@ --quiet)
bad_input(bad_h5cube_unreadable AS_NOBODY CODE 3 MATCH "Permission denied" FILE ${k}/unreadable.h5
  COMMAND scfind -i ${k}/unreadable.h5 -o @OUT@ --quiet)

# --- SoFiA-2 parameter files ---
set(pf ${bi}/par)
bad_input(bad_par_value CODE 2 MATCH "bad_value.par:3: scfind.threshold: 'five' is not a number" FILE ${pf}/bad_value.par
  COMMAND scfind --par ${pf}/bad_value.par -o @OUT@ --quiet)
bad_input(bad_par_list CODE 2 MATCH "bad_list.par:2: scfind.kernelsZ: ' x' is not a number" FILE ${pf}/bad_list.par
  COMMAND scfind --par ${pf}/bad_list.par -o @OUT@ --quiet)
bad_input(bad_par_garbage CODE 3 MATCH "garbage.par:1: expected 'key = value', found '\\?ELF" FILE ${pf}/garbage.par
  COMMAND scfind --par ${pf}/garbage.par -o @OUT@ --quiet)
bad_input(bad_par_missing_cube CODE 3 MATCH "input cube .* does not exist" FILE ${pf}/no-such-cube.fits
  COMMAND scfind --par ${pf}/missing_cube.par -o @OUT@ --quiet)
bad_input(bad_par_empty CODE 2 MATCH "no input cube given" FILE ""
  COMMAND scfind --par ${pf}/empty.par -o @OUT@ --quiet)
bad_input(bad_par_unreadable AS_NOBODY CODE 3 MATCH "cannot read parameter file .*Permission denied" FILE ${pf}/unreadable.par
  COMMAND scfind --par ${pf}/unreadable.par -o @OUT@ --quiet)

# --- time series (SIGPROC .tim, PRESTO .dat/.inf), through `astrosweep convert` (fdas reads them
# with the same code: src/io/time_series_inputs.cpp). A failed conversion leaves no batch. ---
set(ts ${bi}/timeseries)
foreach(case "damaged_header|damaged_header.tim|damaged_header.tim': header byte 45: a keyword has a length of 2147483647 bytes"
             "truncated_header|truncated_header.tim|truncated_header.tim': the SIGPROC header is cut short at byte [0-9]+"
             "unknown_keyword|unknown_keyword.tim|unknown_keyword.tim': unknown SIGPROC header keyword 'signed'"
             "truncated_data|truncated_data.tim|truncated_data.tim': truncated: nsamples = 1000 samples of 4 bytes need 4000 bytes after the header, found 2400"
             "filterbank|filterbank.tim|filterbank.tim': nchans = 64: a filterbank, not a time series"
             "nan|nan.tim|nan.tim': sample 37 is NaN"
             "dat_without_inf|alone.dat|alone.dat' has no header '.*alone.inf' beside it"
             "dat_size|short.dat|short.dat' holds 4000 bytes \\(1000 float32 samples\\), but '.*short.inf' says 1024 samples")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 name)
  list(GET case 1 file)
  list(GET case 2 match)
  bad_input(bad_ts_${name} CODE 3 MATCH "${match}" FILE ${ts}/${file} COMMAND convert -i ${ts}/${file} -o @OUT@)
endforeach()
bad_input(bad_ts_inf_bad_line CODE 3 MATCH "bad_line.inf:4: expected 'label = value', found 'Telescope GBT'"
  FILE ${ts}/bad_line.inf COMMAND convert -i ${ts}/bad_line.dat -o @OUT@)
bad_input(bad_ts_mismatched_tsamp CODE 3
  MATCH "mixed_tsamp/b.tim' has tsamp = 0.000128 s, but '.*mixed_tsamp/a.tim' has tsamp = 6.4e-05 s"
  FILE ${ts}/mixed_tsamp/b.tim COMMAND convert -i ${ts}/mixed_tsamp -o @OUT@)
# The NaN is in the second series: the first was already in the batch, which is removed.
bad_input(bad_ts_nan_in_a_batch CODE 3 MATCH "nan_batch/b.tim': sample 37 is NaN" FILE ${ts}/nan_batch/b.tim
  COMMAND convert -i ${ts}/nan_batch -o @OUT@)
# An empty directory: --format says what was expected (auto would look for FITS light curves).
bad_input(bad_ts_empty_directory CODE 3 MATCH "directory '.*empty_dir' contains no time series \\(\\*.tim\\)"
  FILE ${ts}/empty_dir COMMAND convert --format tim -i ${ts}/empty_dir -o @OUT@)
# The good inputs convert: a directory of .tim files, and a PRESTO pair given by its .inf.
foreach(case "tim_directory|${ts}/good|2 series, 2048 samples" "presto_pair|${ts}/good_presto.inf|1 series, 1024 samples")
  string(REPLACE "|" ";" case "${case}")
  list(GET case 0 name)
  list(GET case 1 input)
  list(GET case 2 expect)
  # Through mpiexec like every other run: a singleton start (no mpiexec) under LeakSanitizer hits
  # its tracer's crash on a bogus dynamic-TLS range (compiler-rt, not ours), and the process dies
  # before stdout is flushed.
  astrosweep_add_mpi_run(convert_ts_${name} NP 1 FIXTURES_REQUIRED bad_inputs LABELS bad-input
    COMMAND $<TARGET_FILE:astrosweep> convert -i ${input} -o ${bo}/convert_ts_${name}.h5 --overwrite)
  set_tests_properties(convert_ts_${name} PROPERTIES
                       PASS_REGULAR_EXPRESSION "timeseries: .*\\(${expect}, tsamp 6.4e-05 s\\)")
endforeach()

# --- outputs: the HDF5 products and the FITS mask ---
set(lc ${ASTROSWEEP_TEST_DATA}/lightcurves/sdss_stripe82_z.csv)
set(cube ${k}/good.fits)
foreach(job period scfind)
  if(job STREQUAL "period")
    set(run period -i ${lc} ${grid})
  else()
    set(run scfind -i ${cube} --quiet)
  endif()
  bad_input(bad_output_${job}_is_directory CODE 4 MATCH "is a directory" FILE ${bo}
    COMMAND ${run} -o ${bo} --overwrite)
  bad_input(bad_output_${job}_under_a_file CODE 4 MATCH "is not a directory but a file" FILE ${lc}/o.h5
    COMMAND ${run} -o ${lc}/o.h5)
  bad_input(bad_output_${job}_read_only_directory CODE 4 MATCH "is not writable" FILE /proc/self/o.h5
    COMMAND ${run} -o /proc/self/o.h5)
  bad_input(bad_output_${job}_unwritable_directory AS_NOBODY CODE 4 MATCH "is not writable" FILE ${bi}/read-only/o.h5
    COMMAND ${run} -o ${bi}/read-only/o.h5)
  bad_input(bad_output_${job}_device CODE 4 MATCH "is not a regular file" FILE /dev/full
    COMMAND ${run} -o /dev/full --overwrite)
endforeach()
# (the journal beside the product is the first file a job creates there)
bad_input(bad_output_period_refused_by_kernel CODE 4 MATCH "(cannot create output file|opening) '/proc/o.h5" FILE /proc/o.h5
  COMMAND period -i ${lc} ${grid} -o /proc/o.h5)
bad_input(bad_output_scfind_refused_by_kernel CODE 4 MATCH "(cannot create output file|opening) '/proc/o.h5" FILE /proc/o.h5
  COMMAND scfind -i ${cube} --quiet -o /proc/o.h5)
bad_input(bad_output_fits_mask_under_a_file CODE 4 MATCH "is not a directory but a file" FILE ${lc}/m.fits
  COMMAND scfind -i ${cube} --quiet -o @OUT@ --fits-mask ${lc}/m.fits)
bad_input(bad_output_fits_mask_device CODE 4 MATCH "is not a regular file" FILE /dev/full
  COMMAND scfind -i ${cube} --quiet -o @OUT@ --fits-mask /dev/full --overwrite)
bad_input(bad_output_fits_mask_refused_by_kernel CODE 4 MATCH "cannot create '/proc/m.fits.part'" FILE /proc/m.fits
  COMMAND scfind -i ${cube} --quiet -o @OUT@ --fits-mask /proc/m.fits --overwrite)
bad_input(bad_output_convert_device CODE 4 MATCH "is not a regular file" FILE /dev/full
  COMMAND convert -i ${lc} -o /dev/full --overwrite)
bad_input(bad_output_convert_under_a_file CODE 4 MATCH "is not a directory but a file" FILE ${lc}/c.h5
  COMMAND convert -i ${lc} -o ${lc}/c.h5)
# A full disk, the same everywhere: each rank's file-size limit (ulimit -f) below the product.
# Shared memory between the ranks is left out (its files would be limited too).
bad_input(bad_output_period_full_disk NP 2 FSIZE 2000000 CODE 4 MATCH "more than the file-size limit"
  FILE ${bo}/bad_output_period_full_disk.h5 COMMAND period -i ${lc} -o @OUT@ --fmin 0.5 --fmax 24 --n-freq 3000 --periodograms --quiet)
bad_input(bad_output_scfind_full_disk NP 2 FSIZE 1000000 CODE 4 MATCH "more than the file-size limit"
  FILE ${bo}/bad_output_scfind_full_disk.h5 COMMAND scfind -i ${k}/large.fits -o @OUT@ --quiet)
set_property(TEST bad_output_period_full_disk bad_output_scfind_full_disk APPEND PROPERTY ENVIRONMENT OMPI_MCA_btl=self,tcp)
