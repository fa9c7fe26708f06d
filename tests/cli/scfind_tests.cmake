# SoFiA-2 validation of the scfind job: every case of tests/data/scfind/cases.txt runs on cubes the
# generator rebuilds bit for bit, on 1, 2, 3 and 4 ranks, and its masks (HDF5 and FITS) and noise
# levels must equal SoFiA-2's. Cases SoFiA-2 refuses or cannot define must fail with a clear error.
set(scfind_data ${ASTROSWEEP_TEST_DATA}/scfind)
set(scfind_out ${CMAKE_CURRENT_BINARY_DIR}/scfind)
file(MAKE_DIRECTORY ${scfind_out})
file(STRINGS ${scfind_data}/cases.txt case_lines)
set(kind "")
set(scfind_cases "")
foreach(line IN LISTS case_lines)
  if(line MATCHES "^\\[cube ([^]]+)\\]")
    set(kind cube)
    set(name ${CMAKE_MATCH_1})
  elseif(line MATCHES "^\\[case ([^]]+)\\]")
    set(kind case)
    set(name ${CMAKE_MATCH_1})
    list(APPEND scfind_cases ${name})
  elseif(kind STREQUAL "cube" AND line MATCHES "^generator = make_scfind_cube (.*)$")
    separate_arguments(generator_${name} UNIX_COMMAND "${CMAKE_MATCH_1}")
    string(REGEX MATCH "--nz ([0-9]+)" nz_match "${CMAKE_MATCH_1}")
    set(nz_of_${name} ${CMAKE_MATCH_1})
    add_test(NAME scfind_make_cube_${name} COMMAND make_scfind_cube ${generator_${name}} -o ${scfind_out}/${name}.fits)
    set_tests_properties(scfind_make_cube_${name} PROPERTIES FIXTURES_SETUP scfind_cube_${name} LABELS scfind)
  elseif(kind STREQUAL "case" AND line MATCHES "^cube = (.*)$")
    set(cube_of_${name} ${CMAKE_MATCH_1})
  elseif(kind STREQUAL "case" AND line MATCHES "^expect = (.*)$")
    set(expect_of_${name} ${CMAKE_MATCH_1})
  endif()
endforeach()

foreach(case IN LISTS scfind_cases)
  set(cube ${scfind_out}/${cube_of_${case}}.fits)
  set(par ${scfind_out}/${case}.par)
  add_test(NAME scfind_par_${case} COMMAND scfind_case par ${scfind_data}/cases.txt ${case} ${par})
  # Runs need only the parameter file; ctest pulls in the cube it requires as well.
  set_tests_properties(scfind_par_${case} PROPERTIES FIXTURES_SETUP scfind_par_${case}
                       FIXTURES_REQUIRED scfind_cube_${cube_of_${case}} LABELS scfind)
  set(needs scfind_par_${case})
  if(expect_of_${case} STREQUAL "mask")
    foreach(np 1 2 3 4)
      if(np GREATER nz_of_${cube_of_${case}})
        continue()  # a slab per rank: at most one rank per channel (more is a usage error, tested below)
      endif()
      # One thread per rank when ranks outnumber the CI machine's two cores (spinning OpenMP
      # threads of oversubscribed ranks would only slow each other down).
      if(np GREATER 2)
        set(threads 1)
      else()
        set(threads 0)
      endif()
      # The sanitizer stage runs 1 rank, and an odd count (3) for cube A's mad cases (SoFiA-2's
      # default statistic; the same halo and merge code as every other case's); 2 and 4 ranks, and
      # the other cases' 3 ranks, only in the Release stage.
      set(labels scfind)
      if(np EQUAL 2 OR np EQUAL 4 OR (np EQUAL 3 AND NOT case MATCHES "^a_A_mad_"))
        set(labels "scfind;heavy")
      endif()
      set(product ${scfind_out}/${case}_np${np}.h5)
      astrosweep_add_mpi_run(scfind_${case}_np${np} NP ${np} LABELS "${labels}" FIXTURES_REQUIRED ${needs}
        FIXTURES_SETUP scfind_run_${case}_np${np}
        COMMAND ${exe} scfind --par ${par} -i ${cube} -o ${product} --overwrite --quiet --threads ${threads})
      add_test(NAME scfind_${case}_np${np}_equals_sofia
               COMMAND scfind_case check ${scfind_data}/cases.txt ${case} ${product} ${scfind_out}/${case}_np${np}_mask-raw.fits)
      set_tests_properties(scfind_${case}_np${np}_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_${case}_np${np}
                           LABELS "${labels};sofia")
    endforeach()
    # Several slabs per rank streamed through the backend (round-robin over the ranks): the
    # originals kept in host memory here; the re-read path is tested below.
    foreach(run "1;3" "2;2" "3;3")
      list(GET run 0 np)
      list(GET run 1 k)
      math(EXPR slabs "${np} * ${k}")
      if(slabs GREATER nz_of_${cube_of_${case}})
        continue()
      endif()
      # The sanitizer stage streams every case on one rank, and on three ranks only the cases of
      # cube A with the mad statistic (SoFiA-2's default): the other cases' 3 x 3-slab runs are the
      # longest scfind runs (5-33 s each in a Release build on two cores).
      set(labels scfind)
      if(np EQUAL 2 OR (np EQUAL 3 AND NOT case MATCHES "^a_A_mad_"))
        set(labels "scfind;heavy")
      endif()
      set(product ${scfind_out}/${case}_np${np}_k${k}.h5)
      astrosweep_add_mpi_run(scfind_${case}_np${np}_k${k} NP ${np} LABELS "${labels}" FIXTURES_REQUIRED ${needs}
        FIXTURES_SETUP scfind_run_${case}_np${np}_k${k}
        COMMAND ${exe} scfind --par ${par} -i ${cube} -o ${product} --overwrite --quiet --threads 1 --slabs-per-rank ${k})
      add_test(NAME scfind_${case}_np${np}_k${k}_equals_sofia
               COMMAND scfind_case check ${scfind_data}/cases.txt ${case} ${product} ${scfind_out}/${case}_np${np}_k${k}_mask-raw.fits)
      set_tests_properties(scfind_${case}_np${np}_k${k}_equals_sofia PROPERTIES
                           FIXTURES_REQUIRED scfind_run_${case}_np${np}_k${k} LABELS "${labels};sofia")
    endforeach()
  elseif(expect_of_${case} STREQUAL "refused")
    astrosweep_add_failure_test(scfind_${case}_refused NP 2 CODE 2 MATCH "kernel .* cube" FIXTURES_REQUIRED ${needs}
      COMMAND scfind --par ${par} -i ${cube} -o ${scfind_out}/${case}.h5 --overwrite)
  else()
    astrosweep_add_failure_test(scfind_${case}_undefined NP 2 CODE 3 MATCH "noise .* cannot be measured"
      FIXTURES_REQUIRED ${needs} COMMAND scfind --par ${par} -i ${cube} -o ${scfind_out}/${case}.h5 --overwrite)
  endif()
endforeach()

# --- masks compressed and plain: the same content ---
# The runs above write the product's mask compressed (deflate, the default) and the FITS mask plain
# (the case's output.writeRawMask = true). These write the same case the other way round on 1, 2
# and 3 ranks, the FITS mask tile-compressed with RICE_1 or GZIP_1, and compare: the products
# dataset by dataset (compare_products reads the content, whatever the storage), the FITS masks
# read back with CFITSIO.
set(plain_case a_A_mad_full)
foreach(run "1;rice;RICE_1" "2;gzip;GZIP_1" "3;rice;RICE_1")
  list(GET run 0 np)
  list(GET run 1 fits_compression)
  list(GET run 2 zcmptype)
  set(labels scfind)
  if(np EQUAL 2)
    set(labels "scfind;heavy")
  endif()
  set(name scfind_plain_mask_np${np})
  astrosweep_add_mpi_run(${name} NP ${np} LABELS "${labels}" FIXTURES_REQUIRED scfind_par_${plain_case}
    FIXTURES_SETUP scfind_run_${name}
    COMMAND ${exe} scfind --par ${scfind_out}/${plain_case}.par -i ${scfind_out}/A.fits -o ${scfind_out}/${name}.h5
            --overwrite --quiet --threads 1 --mask-compression none --fits-mask ${scfind_out}/${name}_${fits_compression}.fits
            --fits-mask-compression ${fits_compression})
  add_test(NAME ${name}_same_as_compressed
           COMMAND compare_products ${scfind_out}/${name}.h5 ${scfind_out}/${plain_case}_np${np}.h5)
  add_test(NAME ${name}_storage COMMAND scfind_case mask-storage ${scfind_out}/${name}.h5 none)
  add_test(NAME scfind_compressed_mask_np${np}_storage
           COMMAND scfind_case mask-storage ${scfind_out}/${plain_case}_np${np}.h5 deflate)
  add_test(NAME scfind_fits_mask_${fits_compression}_np${np}_same_as_plain
           COMMAND scfind_case fits-masks ${scfind_out}/${plain_case}_np${np}_mask-raw.fits
                   ${scfind_out}/${name}_${fits_compression}.fits ${zcmptype})
  set_tests_properties(${name}_same_as_compressed ${name}_storage scfind_compressed_mask_np${np}_storage
                       scfind_fits_mask_${fits_compression}_np${np}_same_as_plain PROPERTIES
                       FIXTURES_REQUIRED "scfind_run_${name};scfind_run_${plain_case}_np${np}" LABELS "${labels}")
endforeach()
# --- the mask written from the offsets of its ones: the same product ---
# Without a FITS mask and without the linker, each rank hands the product only the offsets of its
# mask's ones and only the chunks holding one are compressed; the runs above also write a FITS mask,
# so their /mask goes the dense way. Resident and streamed (3 slabs per rank), on 1 and 3 ranks: the
# products must be the same, and the rank lines must say the offsets were used.
foreach(run "1;1" "3;1" "1;3" "3;3")
  list(GET run 0 np)
  list(GET run 1 k)
  set(name scfind_sparse_mask_np${np}_k${k})
  if(k EQUAL 1)
    set(reference ${plain_case}_np${np})
  else()
    set(reference ${plain_case}_np${np}_k${k})
  endif()
  astrosweep_add_mpi_run(${name} NP ${np} LABELS scfind FIXTURES_REQUIRED scfind_par_${plain_case}
    FIXTURES_SETUP scfind_run_${name}
    COMMAND ${exe} scfind --par ${scfind_out}/${plain_case}.par -i ${scfind_out}/A.fits -o ${scfind_out}/${name}.h5
            --overwrite --threads 1 --no-fits-mask --slabs-per-rank ${k})
  # The rank line also splits the kernel-pair loop (docs/scfind.md): every part, none negative;
  # a GPU rank (--backend auto on the GPU machine) adds "; device kernels T s" (matched with "." since
  # a semicolon would split the property into a list of expressions).
  set(split "smooth-and-clip [0-9.]+ s \\(compute [0-9.]+ s, transfers [0-9.]+ s, hand-over [0-9.]+ s, statistics [0-9.]+ s, halos [0-9.]+ s, waiting [0-9.]+ s, reading [0-9.]+ s, other [0-9.]+ s(. device kernels [0-9.]+ s)?\\)")
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${split}[^\n]*mask fetched [0-9.]+ s \\(the offsets of its ones\\)")
  add_test(NAME ${name}_same_as_dense COMMAND compare_products ${scfind_out}/${name}.h5 ${scfind_out}/${reference}.h5)
  set_tests_properties(${name}_same_as_dense PROPERTIES FIXTURES_REQUIRED "scfind_run_${name};scfind_run_${reference}"
                       LABELS scfind)
endforeach()
# SoFiA-2's default: no FITS raw mask unless asked for (--fits-mask, output.writeRawMask = true).
astrosweep_add_mpi_run(scfind_no_fits_mask_by_default NP 1 LABELS scfind FIXTURES_REQUIRED scfind_cube_A
  FIXTURES_SETUP scfind_run_no_fits_mask_by_default
  COMMAND ${exe} scfind -i ${scfind_out}/A.fits -o ${scfind_out}/no_fits_mask.h5 --overwrite --quiet --threads 1)
add_test(NAME scfind_no_fits_mask_by_default_absent
         COMMAND scfind_case absent ${scfind_out}/no_fits_mask_mask-raw.fits)
set_tests_properties(scfind_no_fits_mask_by_default_absent PROPERTIES
                     FIXTURES_REQUIRED scfind_run_no_fits_mask_by_default LABELS scfind)

# --- bad inputs and usage: each fails with its exit code and a message saying what is wrong ---
set(scfind_bad ${scfind_out}/bad)
file(MAKE_DIRECTORY ${scfind_bad})
add_test(NAME scfind_make_bad_cubes COMMAND scfind_case bad-cubes ${scfind_bad} ${scfind_out}/A.fits x)
set_tests_properties(scfind_make_bad_cubes PROPERTIES FIXTURES_SETUP scfind_bad FIXTURES_REQUIRED scfind_cube_A LABELS scfind)
set(cubeA ${scfind_out}/A.fits)
astrosweep_add_failure_test(scfind_bad_truncated NP 2 CODE 3 MATCH "truncated" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${scfind_bad}/truncated.fits -o ${scfind_bad}/scfind_bad_truncated.h5 --overwrite)
astrosweep_add_failure_test(scfind_bad_empty_file NP 1 CODE 3 MATCH "empty.fits" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${scfind_bad}/empty.fits -o ${scfind_bad}/scfind_bad_empty_file.h5 --overwrite)
astrosweep_add_failure_test(scfind_bad_naxis2 NP 1 CODE 3 MATCH "NAXIS" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${scfind_bad}/naxis2.fits -o ${scfind_bad}/scfind_bad_naxis2.h5 --overwrite)
astrosweep_add_failure_test(scfind_bad_stokes_axis NP 1 CODE 3 MATCH "NAXIS4" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${scfind_bad}/stokes2.fits -o ${scfind_bad}/scfind_bad_stokes_axis.h5 --overwrite)
astrosweep_add_failure_test(scfind_bad_bitpix64 NP 1 CODE 3 MATCH "BITPIX" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${scfind_bad}/bitpix64.fits -o ${scfind_bad}/scfind_bad_bitpix64.h5 --overwrite)
astrosweep_add_failure_test(scfind_bad_missing_input NP 1 CODE 3 MATCH "no-such-cube.fits" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${scfind_bad}/no-such-cube.fits -o ${scfind_bad}/scfind_bad_missing_input.h5 --overwrite)
astrosweep_add_failure_test(scfind_bad_directory_input NP 1 CODE 3 MATCH "bad" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${scfind_bad} -o ${scfind_bad}/scfind_bad_directory_input.h5 --overwrite)
astrosweep_add_failure_test(scfind_existing_output NP 2 CODE 4 MATCH "already exists" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/truncated.fits)
astrosweep_add_failure_test(scfind_existing_fits_mask NP 1 CODE 4 MATCH "already exists" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/fresh.h5 --fits-mask ${scfind_bad}/naxis2.fits)
astrosweep_add_failure_test(scfind_output_directory_missing NP 1 CODE 4 MATCH "does not exist" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/no/such/dir/out.h5)
astrosweep_add_failure_test(scfind_more_ranks_than_channels NP 2 CODE 2 MATCH "more ranks" FIXTURES_REQUIRED scfind_par_d_P1_mad_negative
  COMMAND scfind -i ${scfind_out}/P1.fits -o ${scfind_bad}/p1.h5 --overwrite --scfind.kernelsZ 0)
astrosweep_add_failure_test(scfind_bad_statistic NP 1 CODE 2 MATCH "statistic" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_bad_statistic.h5 --overwrite --scfind.statistic median)
astrosweep_add_failure_test(scfind_bad_kernel_list NP 1 CODE 2 MATCH "kernelsZ" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_bad_kernel_list.h5 --overwrite --scfind.kernelsZ 0,three)
astrosweep_add_failure_test(scfind_fits_compression_without_fits_mask NP 1 CODE 2
  MATCH "--fits-mask-compression rice, but no FITS mask" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_fits_compression_without_fits_mask.h5 --overwrite
  --fits-mask-compression rice)
astrosweep_add_failure_test(scfind_bad_mask_compression NP 1 CODE 2 MATCH "--mask-compression: 'zstd'"
  FIXTURES_REQUIRED scfind_bad COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_bad_mask_compression.h5 --overwrite
  --mask-compression zstd)
astrosweep_add_failure_test(scfind_negative_threshold NP 1 CODE 2 MATCH "threshold" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_negative_threshold.h5 --overwrite --scfind.threshold -1)
file(WRITE ${scfind_bad}/flagging.par "input.data = ${cubeA}\nflag.region = 1, 2, 3, 4, 5, 6\n")
astrosweep_add_failure_test(scfind_par_unsupported_step NP 1 CODE 2 MATCH "flag.region" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind --par ${scfind_bad}/flagging.par -o ${scfind_bad}/scfind_par_unsupported_step.h5 --overwrite)
file(WRITE ${scfind_bad}/malformed.par "scfind.enable = true\nscfind.threshold 5\n")
astrosweep_add_failure_test(scfind_par_malformed_line NP 1 CODE 3 MATCH "malformed.par:2" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind --par ${scfind_bad}/malformed.par -i ${cubeA} -o ${scfind_bad}/scfind_par_malformed_line.h5 --overwrite)
# A misspelt key is an error naming the file, the line and the key meant (it once ran silently at
# the default threshold); a SoFiA-2 setting scfind does not implement is a warning, not an error.
file(WRITE ${scfind_bad}/misspelt.par "input.data = ${cubeA}\nscfind.enable = true\nscfind.threshhold = 3.0\n")
astrosweep_add_failure_test(scfind_par_misspelt_key NP 2 CODE 2
  MATCH "misspelt.par:3: unknown parameter 'scfind.threshhold' \\(did you mean 'scfind.threshold'\\?\\)"
  FILE ${scfind_bad}/misspelt.par COMMAND scfind --par ${scfind_bad}/misspelt.par -o ${scfind_bad}/scfind_par_misspelt_key.h5 --overwrite)
astrosweep_add_failure_test(scfind_misspelt_option NP 1 CODE 2
  MATCH "unknown option '--scfind.threshhold' \\(did you mean '--scfind.threshold'\\?\\)"
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_misspelt_option.h5 --overwrite --scfind.threshhold 3)
file(WRITE ${scfind_bad}/later_stages.par
  "input.data = ${cubeA}\nscfind.kernelsXY = 0\nscfind.kernelsZ = 0, 3\nlinker.enable = true\nlinker.radiusXY = 2\n"
  "dilation.iterationsXY = 3\noutput.writeMask = true\noutput.writeCubelets = true\n")
astrosweep_add_mpi_run(scfind_par_unimplemented_warning NP 1 LABELS scfind FIXTURES_REQUIRED scfind_cube_A
  COMMAND ${exe} scfind --par ${scfind_bad}/later_stages.par -o ${scfind_bad}/later_stages.h5 --no-fits-mask --overwrite
          --quiet)
# The warning (the linker's keys and the cubelets are used now), and the run goes on to write its
# cubelets and its product.
set_tests_properties(scfind_par_unimplemented_warning PROPERTIES PASS_REGULAR_EXPRESSION
  "warning: SoFiA-2 settings astrosweep scfind does not implement, not used: dilation.iterationsXY = 3 \\([^)]*later_stages.par:6\\)\n.*cubelets: [0-9]+ files of [0-9]+ sources in [^\n]*later_stages_cubelets.*scfind: product [^\n]*later_stages.h5")
astrosweep_add_failure_test(scfind_backend_unavailable NP 3 CODE 5 MATCH "CUDA" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_backend_unavailable.h5 --overwrite --backend cuda)
set_property(TEST scfind_backend_unavailable APPEND PROPERTY ENVIRONMENT CUDA_VISIBLE_DEVICES=)
astrosweep_add_failure_test(scfind_slab_over_memory_budget NP 2 CODE 5 MATCH "memory budget" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_slab_over_memory_budget.h5 --overwrite --backend cpu --memory-budget-mb 0.01)

# --- more slabs than ranks, chosen from the memory budgets ---
# A host budget too small for one slab per rank (and for keeping the originals): each rank streams
# two slabs, re-reading the cube in every sweep; on a GPU rank a GPU budget does the same. The
# masks must still be SoFiA-2's, and the run must say how it split the cube.
set(streamed_case a_A_mad_full)
foreach(run "1;--memory-budget-mb;1.5;re-read" "3;--memory-budget-mb;1.05;re-read" "2;--gpu-memory-mb;1;.")
  list(GET run 0 np)
  list(GET run 1 option)
  list(GET run 2 budget)
  list(GET run 3 expect)
  string(REPLACE "--" "" option_name ${option})
  # A host budget sizes the slabs of CPU ranks (a GPU rank's slab lives in device memory).
  set(backend)
  if(option STREQUAL "--memory-budget-mb")
    set(backend --backend cpu)
  endif()
  set(name scfind_budget_${option_name}_np${np})
  set(product ${scfind_out}/${name}.h5)
  astrosweep_add_mpi_run(${name} NP ${np} LABELS scfind FIXTURES_REQUIRED scfind_par_${streamed_case}
    FIXTURES_SETUP scfind_run_${name}
    COMMAND ${exe} scfind --par ${scfind_out}/${streamed_case}.par -i ${cubeA} -o ${product} --overwrite --threads 1
            ${option} ${budget} ${backend})
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "scfind: .*slab.*${expect}")
  add_test(NAME ${name}_equals_sofia
           COMMAND scfind_case check ${scfind_data}/cases.txt ${streamed_case} ${product} ${scfind_out}/${name}_mask-raw.fits)
  set_tests_properties(${name}_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_${name} LABELS "scfind;sofia")
endforeach()
# --- streamed slabs clipped from the values they kept, and a slab smoothed again ---
# Channels 0-39 of this cube are three times as noisy as the rest. A streamed slab keeps its values
# above 0.6 x the threshold in units of its own noise (slab_sweep.hpp): for a slab in the noisy band
# that bound lies above the cube's threshold, so its clip loads and smooths it again; the others
# clip from what they kept. Either way the masks must be those of one resident slab per rank.
set(noisy_cube ${scfind_out}/noisy_band.fits)
add_test(NAME scfind_make_noisy_band_cube
         COMMAND make_scfind_cube --nx 96 --ny 80 --nz 120 --seed 5 --sources 12 --blanks --noisy-channels 0:40:3
                 -o ${noisy_cube})
set_tests_properties(scfind_make_noisy_band_cube PROPERTIES FIXTURES_SETUP scfind_noisy_cube LABELS scfind)
set(noisy_args -i ${noisy_cube} --backend cpu --overwrite)
astrosweep_add_mpi_run(scfind_noisy_band_resident NP 1 LABELS scfind FIXTURES_REQUIRED scfind_noisy_cube
  FIXTURES_SETUP scfind_noisy_resident
  COMMAND ${exe} scfind ${noisy_args} -o ${scfind_out}/noisy_band_resident.h5 --quiet --threads 2)
# Rank 0 holds the noisy band's first slab; with 2 ranks its second slab is mostly quiet, with 3
# both of its slabs are noisy and rank 2's are quiet.
# Two threads per rank where the ranks fit the CI machine's two cores.
foreach(run "1;3;0;2" "2;2;0;1" "3;2;2;1")
  list(GET run 0 np)
  list(GET run 1 k)
  list(GET run 2 quiet_rank)
  list(GET run 3 threads)
  set(name scfind_noisy_band_streamed_np${np})
  astrosweep_add_mpi_run(${name} NP ${np} LABELS scfind FIXTURES_REQUIRED scfind_noisy_cube
    FIXTURES_SETUP scfind_run_${name}
    COMMAND ${exe} scfind ${noisy_args} -o ${scfind_out}/${name}.h5 --slabs-per-rank ${k} --threads ${threads})
  # Both ways of clipping ran.
  if(quiet_rank EQUAL 0)
    set(both "rank 0: [^\n]*slab clips [1-9][0-9]* from kept values and [1-9][0-9]* smoothed again")
  else()
    set(both "rank 0: [^\n]* [1-9][0-9]* smoothed again.*rank ${quiet_rank}: [^\n]*slab clips [1-9][0-9]* from kept")
  endif()
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${both}")
  add_test(NAME ${name}_equals_resident
           COMMAND compare_products ${scfind_out}/${name}.h5 ${scfind_out}/noisy_band_resident.h5)
  set_tests_properties(${name}_equals_resident PROPERTIES LABELS scfind
                       FIXTURES_REQUIRED "scfind_run_${name};scfind_noisy_resident")
endforeach()

# --- benchmark cubes made on all threads (make_scfind_cube --channel-streams): one noise stream per
# channel, so the cube and its checksum are the same for any thread count ---
foreach(threads 1 2)
  add_test(NAME scfind_make_channel_streams_t${threads}
           COMMAND make_scfind_cube --nx 40 --ny 33 --nz 17 --seed 9 --sources 5 --blanks --channel-streams
                   -o ${scfind_out}/channel_streams_t${threads}.fits)
  set_tests_properties(scfind_make_channel_streams_t${threads} PROPERTIES ENVIRONMENT OMP_NUM_THREADS=${threads}
    FIXTURES_SETUP scfind_channel_streams LABELS scfind
    PASS_REGULAR_EXPRESSION "nan 3800 inf 0 clipped 0 channel_fnv1a64 de65d03897ce260e")
endforeach()
add_test(NAME scfind_channel_streams_thread_independent
         COMMAND ${CMAKE_COMMAND} -E compare_files ${scfind_out}/channel_streams_t1.fits
                 ${scfind_out}/channel_streams_t2.fits)
set_tests_properties(scfind_channel_streams_thread_independent PROPERTIES FIXTURES_REQUIRED scfind_channel_streams
                     LABELS scfind)

astrosweep_add_failure_test(scfind_too_many_slabs_per_rank NP 2 CODE 2 MATCH "slabs-per-rank" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_too_many_slabs_per_rank.h5 --overwrite --slabs-per-rank 21)
astrosweep_add_failure_test(scfind_negative_slabs_per_rank NP 1 CODE 2 MATCH "slabs-per-rank" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_negative_slabs_per_rank.h5 --overwrite --slabs-per-rank -1)

# --- checkpoint and resume (docs/reliability.md) ---
# Runs killed (SIGKILL to every rank or one) or stopped (SIGTERM) after a seed-chosen number of
# checkpoints (one per kernel pair here), then resumed, possibly on another rank count or slab
# split, must give the uninterrupted run's product: tests/cli/kill_and_resume.cpp, as for period.
set(resume_cube ${scfind_out}/resume_cube.fits)
add_test(NAME scfind_make_resume_cube
         COMMAND make_scfind_cube --nx 256 --ny 256 --nz 128 --sources 30 --blanks -o ${resume_cube})
set_tests_properties(scfind_make_resume_cube PROPERTIES FIXTURES_SETUP scfind_resume_cube LABELS scfind)
set(resume_args -i ${resume_cube} --threads 1 --checkpoint-minutes 0)
astrosweep_add_mpi_run(scfind_resume_reference NP 2 LABELS scfind FIXTURES_REQUIRED scfind_resume_cube
  FIXTURES_SETUP scfind_resume_reference
  COMMAND ${exe} scfind ${resume_args} -o ${scfind_out}/resume_reference.h5 --overwrite --quiet)
# HEAVY: the sanitizer stage skips it (label heavy); another test of the same mode runs there.
function(astrosweep_add_scfind_resume_test name)
  cmake_parse_arguments(A "HEAVY" "MODE;NP;RESUME_NP;SEED;ROUNDS" "OTHER;EXTRA" ${ARGN})
  set(other)
  if(A_OTHER)
    set(other OTHER ${resume_args} ${A_OTHER})
  endif()
  set(labels mpi resume scfind)
  if(A_HEAVY)
    list(APPEND labels heavy)
  endif()
  astrosweep_add_kill_and_resume(${name} JOB scfind EXE ${exe} REFERENCE ${scfind_out}/resume_reference.h5
    PRODUCT ${scfind_out}/${name}.h5 FIXTURE scfind_resume_reference MODE ${A_MODE} NP ${A_NP}
    RESUME_NP ${A_RESUME_NP} SEED ${A_SEED} ROUNDS ${A_ROUNDS} LABELS ${labels} ${other}
    ARGS ${resume_args} ${A_EXTRA})
endfunction()
astrosweep_add_scfind_resume_test(scfind_resume_kill_all MODE kill-all NP 2,1,3 RESUME_NP 2 SEED 51 ROUNDS 3)
astrosweep_add_scfind_resume_test(scfind_resume_kill_one MODE kill-one NP 3,2 RESUME_NP 1 SEED 52 ROUNDS 2 HEAVY)
astrosweep_add_scfind_resume_test(scfind_resume_sigterm MODE term NP 2,3 RESUME_NP 2 SEED 53 ROUNDS 2)
# Several slabs per rank: the checkpoint labels of streamed slabs, resumed on one slab per rank.
astrosweep_add_scfind_resume_test(scfind_resume_kill_all_streamed MODE kill-all NP 2,3 RESUME_NP 1 SEED 54 ROUNDS 2
                                  HEAVY EXTRA --slabs-per-rank 3)
astrosweep_add_scfind_resume_test(scfind_resume_other_parameters MODE mismatch NP 2 RESUME_NP 2 SEED 55 ROUNDS 1
                                  OTHER --scfind.threshold 4)
# Plain masks through the same checkpoints (the labels file), compared with the compressed reference.
astrosweep_add_scfind_resume_test(scfind_resume_plain_mask MODE kill-all NP 3 RESUME_NP 2 SEED 56 ROUNDS 1 HEAVY
                                  EXTRA --mask-compression none)
# A disk that fills while the compressed mask is written (its size is known only then, so the
# check before the run passes): exit code 4 naming the product, which is not left complete. A
# random mask (threshold 0.7, one kernel pair) compresses to ~1.4 MB, above the file-size limit.
foreach(np 2 3)
  set(name scfind_full_disk_compressed_np${np})
  astrosweep_add_failure_test(${name} NP ${np} FSIZE 1100000 CODE 4
    MATCH "writing '[^']*${name}.h5[^']*' failed" FILE ${scfind_bad}/${name}.h5 PRODUCTS ${scfind_bad}/${name}.h5
    FIXTURES_REQUIRED "scfind_resume_cube;scfind_bad"
    COMMAND scfind -i ${resume_cube} -o ${scfind_bad}/${name}.h5 --no-fits-mask --quiet --threads 1 --scfind.kernelsXY 0
            --scfind.kernelsZ 0 --scfind.threshold 0.7)
  # Shared memory between the ranks is left out (its files would be limited too).
  set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT OMPI_MCA_btl=self,tcp)
endforeach()
astrosweep_add_failure_test(scfind_resume_with_overwrite NP 1 CODE 2 MATCH "--resume and --overwrite contradict"
  FIXTURES_REQUIRED scfind_bad COMMAND scfind -i ${cubeA} -o ${scfind_bad}/scfind_resume_with_overwrite.h5 --resume --overwrite)

# --- the linker: source masks identical to SoFiA-2 2.5.1's _mask.fits, ids included, on 1, 2 and
# 3 ranks and with two slabs per rank (sources joined across slab boundaries, linker_slabs.hpp) ---
# Each case: SoFiA-2's default kernels, threshold 5, replacement 2, the statistic and flux range
# named, and the linker settings listed (the rest SoFiA-2's defaults); reliability off.
# tests/data/scfind/README.md, "Linker", gives SoFiA-2's full parameter files.
# Fields split by "|", linker settings by "%" (a ";" would split the CMake list).
set(linker_cases
  "l_A_mad_negative_defaults|A|mad|negative|"
  "l_A_std_full_keepneg_rz0|A|std|full|linker.radiusXY = 2%linker.radiusZ = 0%linker.minSizeXY = 2%linker.minSizeZ = 1%linker.keepNegative = true"
  "l_A_gauss_full_positivity_fill|A|gauss|full|linker.radiusXY = 1%linker.radiusZ = 2%linker.minSizeXY = 3%linker.minSizeZ = 2%linker.maxSizeZ = 25%linker.minPixels = 8%linker.minFill = 0.05%linker.maxFill = 0.6%linker.positivity = true"
  "l_B_mad_negative_r2_limits|B|mad|negative|linker.radiusXY = 2%linker.radiusZ = 3%linker.minSizeXY = 3%linker.minSizeZ = 3%linker.maxSizeXY = 30%linker.maxPixels = 5000")
foreach(entry IN LISTS linker_cases)
  string(REPLACE "|" ";" fields "${entry}")
  list(GET fields 0 case)
  list(GET fields 1 cube)
  list(GET fields 2 statistic)
  list(GET fields 3 range)
  list(GET fields 4 linker_settings)
  string(REPLACE "%" "\n" linker_text "${linker_settings}")
  set(par ${scfind_out}/${case}.par)
  file(WRITE ${par}
    "scfind.kernelsXY = 0, 3, 6\nscfind.kernelsZ = 0, 3, 7, 15\nscfind.threshold = 5.0\nscfind.replacement = 2.0\n"
    "scfind.statistic = ${statistic}\nscfind.fluxRange = ${range}\nlinker.enable = true\n${linker_text}\n"
    "reliability.enable = false\nparameter.enable = false\noutput.writeMask = true\n")
  # run: ranks;slabs per rank;labels (2 ranks and the streamed run in the Release stage only)
  foreach(run "1;1;scfind" "2;1;scfind\;heavy" "3;1;scfind" "3;2;scfind\;heavy")
    list(GET run 0 np)
    list(GET run 1 k)
    list(GET run 2 labels)
    set(name ${case}_np${np})
    set(slab_args --threads 0)
    if(k GREATER 1)
      set(name ${case}_np${np}_k${k})
      set(slab_args --threads 1 --slabs-per-rank ${k})
    endif()
    set(product ${scfind_out}/${name}.h5)
    astrosweep_add_mpi_run(scfind_link_${name} NP ${np} LABELS "${labels}" FIXTURES_REQUIRED scfind_cube_${cube}
      FIXTURES_SETUP scfind_run_link_${name}
      COMMAND ${exe} scfind --par ${par} -i ${scfind_out}/${cube}.fits -o ${product} --overwrite ${slab_args})
    set_tests_properties(scfind_link_${name} PROPERTIES PASS_REGULAR_EXPRESSION "linker: [0-9]+ sources")
    add_test(NAME scfind_link_${name}_equals_sofia
             COMMAND scfind_case source-mask ${scfind_data}/${case}_mask.fits.gz ${product} ${scfind_out}/${name}_mask.fits)
    set_tests_properties(scfind_link_${name}_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_link_${name}
                         LABELS "${labels};sofia")
    # With parameter.enable = false SoFiA-2 still writes the linker's catalogue (its ASCII file by
    # default under --par): ids, bounding boxes, sizes, the linker's fluxes and moments.
    add_test(NAME scfind_link_${name}_catalogue_equals_sofia
             COMMAND scfind_case catalogue ${scfind_data}/${case}_cat.txt ${scfind_out}/${name}_cat.txt ${product})
    set_tests_properties(scfind_link_${name}_catalogue_equals_sofia PROPERTIES
                         FIXTURES_REQUIRED scfind_run_link_${name} LABELS "${labels};sofia")
  endforeach()
endforeach()

# --- the catalogue (one rank): SoFiA-2 2.5.1's catalogue files, every column at printed precision ---
# As the linker cases, with parameter.enable = true and the parameter.* settings listed; Anowcs is
# cube A with its WCS cards blanked (tests/data/scfind/README.md, "Catalogue"). Fields split by
# "|": case, cube, statistic, flux range, linker settings ("%"), parameter.wcs, parameter.physical,
# parameter.prefix, whether SoFiA-2's XML and SQL files are kept too, labels.
add_test(NAME scfind_make_cube_Anowcs COMMAND scfind_case strip-wcs ${scfind_out}/A.fits ${scfind_out}/Anowcs.fits)
set_tests_properties(scfind_make_cube_Anowcs PROPERTIES FIXTURES_SETUP scfind_cube_Anowcs
                     FIXTURES_REQUIRED scfind_cube_A LABELS scfind)
set(linker_rz0 "linker.radiusXY = 2%linker.radiusZ = 0%linker.minSizeXY = 2%linker.minSizeZ = 1%linker.keepNegative = true")
set(catalogue_cases
  "p_A_mad_negative_defaults|A|mad|negative||true|false|SoFiA|files|scfind"
  "p_A_std_full_keepneg_rz0|A|std|full|${linker_rz0}|true|false|SoFiA||scfind"
  "p_A_gauss_full_positivity_fill|A|gauss|full|linker.radiusXY = 1%linker.radiusZ = 2%linker.minSizeXY = 3%linker.minSizeZ = 2%linker.maxSizeZ = 25%linker.minPixels = 8%linker.minFill = 0.05%linker.maxFill = 0.6%linker.positivity = true|true|false|SoFiA||scfind"
  "p_B_mad_negative_r2_limits|B|mad|negative|linker.radiusXY = 2%linker.radiusZ = 3%linker.minSizeXY = 3%linker.minSizeZ = 3%linker.maxSizeXY = 30%linker.maxPixels = 5000|true|false|SoFiA||scfind%heavy"
  "p_A_mad_negative_physical_wallaby|A|mad|negative||true|true|WALLABY|files|scfind"
  "p_A_std_full_keepneg_nowcs_physical|A|std|full|${linker_rz0}|false|true|Test||scfind"
  "p_Anowcs_mad_negative_defaults|Anowcs|mad|negative||true|false|SoFiA||scfind")
foreach(entry IN LISTS catalogue_cases)
  string(REPLACE "|" ";" fields "${entry}")
  list(GET fields 0 case)
  list(GET fields 1 cube)
  list(GET fields 2 statistic)
  list(GET fields 3 range)
  list(GET fields 4 linker_settings)
  list(GET fields 5 wcs)
  list(GET fields 6 physical)
  list(GET fields 7 prefix)
  list(GET fields 8 files)
  list(GET fields 9 labels)
  string(REPLACE "%" "\n" linker_text "${linker_settings}")
  string(REPLACE "%" ";" labels "${labels}")
  set(par ${scfind_out}/${case}.par)
  file(WRITE ${par}
    "scfind.kernelsXY = 0, 3, 6\nscfind.kernelsZ = 0, 3, 7, 15\nscfind.threshold = 5.0\nscfind.replacement = 2.0\n"
    "scfind.statistic = ${statistic}\nscfind.fluxRange = ${range}\nlinker.enable = true\n${linker_text}\n"
    "reliability.enable = false\nparameter.enable = true\nparameter.wcs = ${wcs}\nparameter.physical = ${physical}\n"
    "parameter.prefix = ${prefix}\nparameter.offset = false\noutput.writeCatASCII = true\n"
    "output.writeCatXML = true\noutput.writeCatSQL = true\n")
  set(product ${scfind_out}/${case}_np1.h5)
  astrosweep_add_mpi_run(scfind_cat_${case}_np1 NP 1 LABELS "${labels}" FIXTURES_REQUIRED scfind_cube_${cube}
    FIXTURES_SETUP scfind_run_cat_${case}
    COMMAND ${exe} scfind --par ${par} -i ${scfind_out}/${cube}.fits -o ${product} --overwrite --threads 0)
  set_tests_properties(scfind_cat_${case}_np1 PROPERTIES PASS_REGULAR_EXPRESSION "catalogue: [0-9]+ sources")
  add_test(NAME scfind_cat_${case}_np1_equals_sofia
           COMMAND scfind_case catalogue ${scfind_data}/${case}_cat.txt ${scfind_out}/${case}_np1_cat.txt ${product})
  set_tests_properties(scfind_cat_${case}_np1_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_cat_${case}
                       LABELS "${labels};sofia")
  if(files)
    foreach(ext xml sql)
      add_test(NAME scfind_cat_${case}_np1_${ext}_equals_sofia
               COMMAND scfind_case same-lines ${scfind_data}/${case}_cat.${ext} ${scfind_out}/${case}_np1_cat.${ext})
      set_tests_properties(scfind_cat_${case}_np1_${ext}_equals_sofia PROPERTIES
                           FIXTURES_REQUIRED scfind_run_cat_${case} LABELS "${labels};sofia")
    endforeach()
  endif()
endforeach()
# The linker across ranks, the catalogue measured on rank 0: the same files on 3 ranks (and 2 ranks
# of 2 slabs each).
foreach(run "p_A_mad_negative_defaults|A|3|1" "p_A_std_full_keepneg_rz0|A|2|2")
  string(REPLACE "|" ";" fields "${run}")
  list(GET fields 0 case)
  list(GET fields 1 cube)
  list(GET fields 2 np)
  list(GET fields 3 k)
  set(name ${case}_np${np}_k${k})
  astrosweep_add_mpi_run(scfind_cat_${name} NP ${np} LABELS scfind FIXTURES_REQUIRED scfind_cube_${cube}
    FIXTURES_SETUP scfind_run_cat_${name}
    COMMAND ${exe} scfind --par ${scfind_out}/${case}.par -i ${scfind_out}/${cube}.fits -o ${scfind_out}/${name}.h5
            --overwrite --threads 1 --slabs-per-rank ${k})
  set_tests_properties(scfind_cat_${name} PROPERTIES PASS_REGULAR_EXPRESSION "catalogue: [0-9]+ sources")
  add_test(NAME scfind_cat_${name}_equals_sofia
           COMMAND scfind_case catalogue ${scfind_data}/${case}_cat.txt ${scfind_out}/${name}_cat.txt ${scfind_out}/${name}.h5)
  set_tests_properties(scfind_cat_${name}_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_cat_${name}
                       LABELS "scfind;sofia")
endforeach()
# --- the reliability filter: SoFiA-2 2.5.1's catalogue (every column at printed precision, rel
# included) and source mask (the survivors renumbered) on cube R, on 1, 2 and 3 ranks ---
# Each case: SoFiA-2's default kernels, threshold 4, linker minSize 1 x 1 (so the noise gives ~50
# negative detections), the reliability.* settings listed; tools/sofia_reference_cases.py made the
# references with the same settings (tests/data/scfind/README.md, "Reliability").
set(reliability_cases
  "r_R_threshold05_snr0|threshold = 0.5%minSNR = 0%plot = false%debug = true"
  "r_R_5d_minpix|parameters = peak, sum, chan, pix, fill%threshold = 0.3%minSNR = 0.5%minPixels = 3%scaleKernel = 0.5%plot = false%debug = true"
  "r_R_autokernel|autoKernel = true%scaleKernel = 0%tolerance = 0.3%threshold = 0.6%minSNR = 0.5%plot = false%debug = true"
  "r_R_autokernel_unconverged|autoKernel = true%scaleKernel = 0.6%iterations = 5%threshold = 0.6%minSNR = 0.5%plot = true%debug = true"
  "r_R_defaults|plot = false%debug = true"
  "r_R_catalog|catalog = ${scfind_data}/r_R_exclude_positions.txt%threshold = 0.5%minSNR = 0%plot = false%debug = true"
  "r_R_moments_minpix2|parameters = peak, sum, std, skew, kurt%threshold = 0.5%minSNR = 0%plot = false%debug = true|linker.minPixels = 2")
foreach(entry IN LISTS reliability_cases)
  string(REPLACE "|" ";" fields "${entry}")
  list(GET fields 0 case)
  list(GET fields 1 settings)
  set(linker_text "")
  list(LENGTH fields n_fields)
  if(n_fields GREATER 2)
    list(GET fields 2 linker_text)
  endif()
  string(REPLACE "%" "\nreliability." reliability_text "reliability.${settings}")
  set(par ${scfind_out}/${case}.par)
  file(WRITE ${par}
    "scfind.kernelsXY = 0, 3, 6\nscfind.kernelsZ = 0, 3, 7, 15\nscfind.threshold = 4.0\nscfind.replacement = 2.0\n"
    "scfind.statistic = mad\nscfind.fluxRange = negative\nlinker.enable = true\nlinker.minSizeXY = 1\n"
    "linker.minSizeZ = 1\n${linker_text}\nreliability.enable = true\n${reliability_text}\nparameter.enable = true\n"
    "output.writeCatASCII = true\noutput.writeCatXML = false\noutput.writeMask = true\n")
  # run: ranks;slabs per rank;labels (2 ranks and 3 x 2 slabs in the Release stage only: CI time)
  foreach(run "1;1;scfind" "2;1;scfind\;heavy" "3;1;scfind" "3;2;scfind\;heavy")
    list(GET run 0 np)
    list(GET run 1 k)
    list(GET run 2 labels)
    set(name ${case}_np${np}_k${k})
    set(product ${scfind_out}/${name}.h5)
    astrosweep_add_mpi_run(scfind_rel_${name} NP ${np} LABELS "${labels}" FIXTURES_REQUIRED scfind_cube_R
      FIXTURES_SETUP scfind_run_rel_${name}
      COMMAND ${exe} scfind --par ${par} -i ${scfind_out}/R.fits -o ${product} --overwrite --threads 1
              --slabs-per-rank ${k})
    set_tests_properties(scfind_rel_${name} PROPERTIES PASS_REGULAR_EXPRESSION "reliability: [0-9]+ positive and [0-9]+ negative sources")
    add_test(NAME scfind_rel_${name}_catalogue_equals_sofia
             COMMAND scfind_case catalogue ${scfind_data}/${case}_cat.txt ${scfind_out}/${name}_cat.txt ${product})
    set_tests_properties(scfind_rel_${name}_catalogue_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_rel_${name}
                         LABELS "${labels};sofia")
    add_test(NAME scfind_rel_${name}_mask_equals_sofia
             COMMAND scfind_case source-mask ${scfind_data}/${case}_mask.fits.gz ${product} ${scfind_out}/${name}_mask.fits)
    set_tests_properties(scfind_rel_${name}_mask_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_rel_${name}
                         LABELS "${labels};sofia")
  endforeach()
endforeach()
# reliability.plot = true: SoFiA-2's EPS plots are not written, and the run says so.
set_property(TEST scfind_rel_r_R_autokernel_unconverged_np1_k1 PROPERTY PASS_REGULAR_EXPRESSION
             "reliability.plot = true: SoFiA-2's reliability and Skellam plots \\(EPS\\) are not written")
# Bad reliability settings in --par are refused naming their file and line (exit 2), SoFiA-2's
# own refusals among them.
foreach(bad "threshold|reliability.threshold = high|reliability.threshold: 'high' is not a finite number"
            "one_parameter|reliability.parameters = peak|reliability.parameters: 'peak' has fewer than 2 parameters"
            "unknown_parameter|reliability.parameters = peak, flux|reliability.parameters: unknown reliability parameter 'flux'"
            "min_pixels|reliability.minPixels = -3|reliability.minPixels: '-3' is not a whole number"
            "auto_kernel|reliability.plot = false%reliability.autoKernel = true|reliability.autoKernel = true needs reliability.plot = true"
            "keep_negative|linker.keepNegative = true|linker.keepNegative = true contradicts reliability.enable = true"
            "positivity|linker.positivity = true|linker.positivity = true contradicts reliability.enable = true")
  string(REPLACE "|" ";" fields "${bad}")
  list(GET fields 0 tag)
  list(GET fields 1 lines)
  list(GET fields 2 message)
  string(REPLACE "%" "\n" lines "${lines}")
  string(REGEX MATCHALL "\n" newlines "${lines}")
  list(LENGTH newlines extra)
  math(EXPR line_number "4 + ${extra}")
  file(WRITE ${scfind_bad}/bad_rel_${tag}.par
       "input.data = ${scfind_out}/R.fits\nlinker.enable = true\nreliability.enable = true\n${lines}\n")
  astrosweep_add_failure_test(scfind_rel_bad_${tag} NP 1 CODE 2 MATCH "bad_rel_${tag}.par:${line_number}: ${message}"
    FIXTURES_REQUIRED scfind_bad COMMAND scfind --par ${scfind_bad}/bad_rel_${tag}.par -o ${scfind_bad}/rel_bad_${tag}.h5 --overwrite)
endforeach()
# scaleKernel = 0 (autoKernel's fallback): 0.4, with SoFiA-2's warning.
set_property(TEST scfind_rel_r_R_autokernel_np1_k1 PROPERTY PASS_REGULAR_EXPRESSION
             "reliability.scaleKernel <= 0: 0.4 used instead.*reliability: 52 positive and 49 negative sources, kernel scale 0.460 \\(autoKernel, 10 iterations\\)")
# reliability.catalog: 7 of the 49 negative sources left out, as SoFiA-2 ("Excluding 7 out of 49").
set_property(TEST scfind_rel_r_R_catalog_np1_k1 PROPERTY PASS_REGULAR_EXPRESSION
             "reliability.catalog: 16 positions, 7 negative sources left out")
# An unreadable reliability.catalog stops the run naming it (exit 3; SoFiA-2 stops too).
astrosweep_add_failure_test(scfind_rel_catalog_missing NP 1 CODE 3 MATCH "reliability.catalog: cannot read '[^']*no_such_positions.txt'"
  FIXTURES_REQUIRED "scfind_bad;scfind_cube_R" COMMAND scfind -i ${scfind_out}/R.fits -o ${scfind_bad}/rel_catalog_missing.h5 --overwrite
  --linker.enable true --linker.minSizeXY 1 --linker.minSizeZ 1 --scfind.threshold 4 --reliability.enable true
  --reliability.catalog ${scfind_bad}/no_such_positions.txt)
# Without the linker the filter does not run (as in SoFiA-2), and the run says so.
astrosweep_add_mpi_run(scfind_rel_without_linker NP 1 LABELS scfind FIXTURES_REQUIRED scfind_cube_R
  COMMAND ${exe} scfind -i ${scfind_out}/R.fits -o ${scfind_out}/rel_without_linker.h5 --overwrite --quiet
          --reliability.enable true)
set_tests_properties(scfind_rel_without_linker PROPERTIES PASS_REGULAR_EXPRESSION
  "reliability.enable = true without the linker: the filter does not run.*scfind: product [^\n]*rel_without_linker.h5")
# An HDF5 cube has no header: as the FITS cube without WCS keywords, wcslib's linear system; without
# BUNIT its flux units are ??? (so only the values are compared with SoFiA-2's Anowcs catalogue).
add_test(NAME scfind_make_cube_A_h5 COMMAND scfind_case to-h5 ${scfind_out}/A.fits ${scfind_out}/A_cube.h5)
set_tests_properties(scfind_make_cube_A_h5 PROPERTIES FIXTURES_SETUP scfind_cube_A_h5
                     FIXTURES_REQUIRED scfind_cube_A LABELS scfind)
astrosweep_add_mpi_run(scfind_cat_hdf5_cube_np1 NP 1 LABELS scfind FIXTURES_REQUIRED scfind_cube_A_h5
  FIXTURES_SETUP scfind_run_cat_hdf5_cube
  COMMAND ${exe} scfind --par ${scfind_out}/p_Anowcs_mad_negative_defaults.par -i ${scfind_out}/A_cube.h5
          -o ${scfind_out}/cat_hdf5_cube_np1.h5 --overwrite --threads 0)
set_tests_properties(scfind_cat_hdf5_cube_np1 PROPERTIES PASS_REGULAR_EXPRESSION "catalogue: 5 sources, 46 columns")
add_test(NAME scfind_cat_hdf5_cube_np1_equals_sofia
         COMMAND scfind_case catalogue ${scfind_data}/p_Anowcs_mad_negative_defaults_cat.txt
                 ${scfind_out}/cat_hdf5_cube_np1_cat.txt ${scfind_out}/cat_hdf5_cube_np1.h5 values-only)
set_tests_properties(scfind_cat_hdf5_cube_np1_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_cat_hdf5_cube
                     LABELS "scfind;sofia" PASS_REGULAR_EXPRESSION "225 values equal")
# Bad parameter.* and output.writeCat* values in --par are refused naming their file and line.
foreach(bad "parameter.wcs = maybe|parameter.wcs: 'maybe' is not true or false"
            "parameter.prefix = My Galaxy|parameter.prefix: 'My Galaxy' cannot start a source name"
            "output.writeCatSQL = yes|output.writeCatSQL: 'yes' is not true or false"
            "output.writeMoments = maybe|output.writeMoments: 'maybe' is not true or false"
            "output.writeMask2d = 2|output.writeMask2d: '2' is not true or false")
  string(REPLACE "|" ";" fields "${bad}")
  list(GET fields 0 line)
  list(GET fields 1 message)
  string(REGEX MATCH "^[a-zA-Z.]+" key "${line}")
  file(WRITE ${scfind_bad}/bad_${key}.par "input.data = ${scfind_out}/A.fits\nlinker.enable = true\n${line}\n")
  astrosweep_add_failure_test(scfind_cat_bad_${key} NP 1 CODE 2 MATCH "bad_${key}.par:3: ${message}"
    FIXTURES_REQUIRED scfind_bad COMMAND scfind --par ${scfind_bad}/bad_${key}.par -o ${scfind_bad}/cat_bad_${key}.h5 --overwrite)
endforeach()
# A bad linker value in --par is refused naming its file and line.
file(WRITE ${scfind_bad}/bad_linker.par "input.data = ${scfind_out}/A.fits\nlinker.enable = true\nlinker.radiusXY = -1\n")
astrosweep_add_failure_test(scfind_link_bad_radius NP 1 CODE 2 MATCH "bad_linker.par:3: linker.radiusXY: '-1' is not a whole number"
  FIXTURES_REQUIRED scfind_bad COMMAND scfind --par ${scfind_bad}/bad_linker.par -o ${scfind_bad}/scfind_link_bad_radius.h5 --overwrite)
astrosweep_add_failure_test(scfind_link_source_mask_without_linker NP 1 CODE 2 MATCH "the linker is off" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind -i ${scfind_out}/A.fits -o ${scfind_bad}/scfind_link_off.h5 --overwrite --fits-source-mask ${scfind_bad}/off_mask.fits)
# --- the images: SoFiA-2 2.5.1's moment maps, channel map and 2-D mask (output.writeMoments,
# output.writeMask2d), pixel for pixel and their header keywords, on cube A (with WCS), Anowcs
# (without) and R (the reliability filter on), on 1, 2 and 3 ranks; tools/sofia_reference_cases.py
# (moments) made the references with the same settings (tests/data/scfind/README.md, "Images").
set(image_cases_text
  "scfind.kernelsXY = 0, 3, 6\nscfind.kernelsZ = 0, 3, 7, 15\nscfind.threshold = 5.0\nscfind.replacement = 2.0\n"
  "scfind.statistic = mad\nscfind.fluxRange = negative\nlinker.enable = true\nreliability.enable = false\n"
  "parameter.enable = true\nparameter.wcs = true\noutput.writeCatASCII = true\noutput.writeCatXML = false\n"
  "output.writeMask2d = true\noutput.writeMoments = true\n")
file(WRITE ${scfind_out}/m_A_mad_negative_defaults.par ${image_cases_text})
file(WRITE ${scfind_out}/m_Anowcs_mad_negative_defaults.par ${image_cases_text})
file(WRITE ${scfind_out}/m_R_threshold05_snr0.par
  "scfind.kernelsXY = 0, 3, 6\nscfind.kernelsZ = 0, 3, 7, 15\nscfind.threshold = 4.0\nscfind.replacement = 2.0\n"
  "scfind.statistic = mad\nscfind.fluxRange = negative\nlinker.enable = true\nlinker.minSizeXY = 1\n"
  "linker.minSizeZ = 1\nreliability.enable = true\nreliability.threshold = 0.5\nreliability.minSNR = 0\n"
  "reliability.plot = false\nparameter.enable = true\noutput.writeCatASCII = true\noutput.writeCatXML = false\n"
  "output.writeMask2d = true\noutput.writeMoments = true\n")
# case|cube|ranks|slabs per rank|labels
foreach(run "m_A_mad_negative_defaults|A|1|1|scfind" "m_A_mad_negative_defaults|A|3|1|scfind"
            "m_A_mad_negative_defaults|A|2|2|scfind%heavy" "m_Anowcs_mad_negative_defaults|Anowcs|1|1|scfind"
            "m_R_threshold05_snr0|R|1|1|scfind" "m_R_threshold05_snr0|R|2|1|scfind%heavy"
            "m_R_threshold05_snr0|R|3|1|scfind")
  string(REPLACE "|" ";" fields "${run}")
  list(GET fields 0 case)
  list(GET fields 1 cube)
  list(GET fields 2 np)
  list(GET fields 3 k)
  list(GET fields 4 labels)
  string(REPLACE "%" ";" labels "${labels}")
  set(name ${case}_np${np}_k${k})
  astrosweep_add_mpi_run(scfind_img_${name} NP ${np} LABELS "${labels}" FIXTURES_REQUIRED scfind_cube_${cube}
    FIXTURES_SETUP scfind_run_img_${name}
    COMMAND ${exe} scfind --par ${scfind_out}/${case}.par -i ${scfind_out}/${cube}.fits -o ${scfind_out}/${name}.h5
            --overwrite --threads 1 --slabs-per-rank ${k})
  set_tests_properties(scfind_img_${name} PROPERTIES PASS_REGULAR_EXPRESSION "image [^\n]*${name}_mask-2d.fits")
  # Every dataset described, and each map's y (dimension 0) and x (1) axes dimension scales.
  set(scale_args)
  foreach(image mom0 mom1 mom2 chan mask_2d)
    list(APPEND scale_args --scale images/${image} 0 --scale images/${image} 1)
  endforeach()
  add_test(NAME scfind_img_${name}_describes_itself COMMAND describe_check ${scfind_out}/${name}.h5 ${scale_args})
  set_tests_properties(scfind_img_${name}_describes_itself PROPERTIES FIXTURES_REQUIRED scfind_run_img_${name}
                       LABELS "${labels}")
  foreach(image mom0 mom1 mom2 chan mask-2d)
    add_test(NAME scfind_img_${name}_${image}_equals_sofia
             COMMAND scfind_case image ${scfind_data}/${case}_${image}.fits.gz ${scfind_out}/${name}_${image}.fits)
    set_tests_properties(scfind_img_${name}_${image}_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_img_${name}
                         LABELS "${labels};sofia")
    # The product's /images dataset (mask-2d is mask_2d there).
    string(REPLACE "-" "_" dataset ${image})
    add_test(NAME scfind_img_${name}_${image}_product_equals_sofia
             COMMAND scfind_case image ${scfind_data}/${case}_${image}.fits.gz ${scfind_out}/${name}_${image}.fits
                     ${scfind_out}/${name}.h5 ${dataset})
    set_tests_properties(scfind_img_${name}_${image}_product_equals_sofia PROPERTIES
                         FIXTURES_REQUIRED scfind_run_img_${name} LABELS "${labels};sofia")
  endforeach()
endforeach()
# Asked for without the linker: not written, and the run says so.
astrosweep_add_mpi_run(scfind_img_without_linker NP 1 LABELS scfind FIXTURES_REQUIRED scfind_cube_A
  COMMAND ${exe} scfind -i ${scfind_out}/A.fits -o ${scfind_out}/img_without_linker.h5 --overwrite --quiet
          --output.writeMoments true)
set_tests_properties(scfind_img_without_linker PROPERTIES PASS_REGULAR_EXPRESSION
  "output.writeMoments / output.writeMask2d without the linker: not written")
# --- the cubelets: SoFiA-2 2.5.1's per-source files (output.writeCubelets, marginCubelets,
# thresholdMom12) on cube A (WCS, default margin 10, sources at the cube's edges), Anowcs (no WCS,
# margin 0) and R (the reliability filter on, margin 3, moments 1 and 2 over 2.5 × rms), on 1, 2
# and 3 ranks; tools/sofia_reference_cases.py (cubelets) made the references with the same settings
# (tests/data/scfind/README.md, "Cubelets"): the list of SoFiA-2's files, every spectrum, and every
# file of a few sources (c_<case>_<id>_*.fits.gz: cube, mask, moment, channel, SNR maps, PV
# diagram), each compared pixel for pixel (to the bit) with its header keywords, the spectra line
# for line.
file(WRITE ${scfind_out}/c_A_mad_negative_defaults.par ${image_cases_text} "output.writeCubelets = true\n")
file(WRITE ${scfind_out}/c_Anowcs_mad_negative_defaults.par ${image_cases_text}
  "output.writeCubelets = true\noutput.marginCubelets = 0\n")
file(WRITE ${scfind_out}/c_R_threshold05_snr0.par
  "scfind.kernelsXY = 0, 3, 6\nscfind.kernelsZ = 0, 3, 7, 15\nscfind.threshold = 4.0\nscfind.replacement = 2.0\n"
  "scfind.statistic = mad\nscfind.fluxRange = negative\nlinker.enable = true\nlinker.minSizeXY = 1\n"
  "linker.minSizeZ = 1\nreliability.enable = true\nreliability.threshold = 0.5\nreliability.minSNR = 0\n"
  "reliability.plot = false\nparameter.enable = true\noutput.writeCatASCII = true\noutput.writeCatXML = false\n"
  "output.writeCubelets = true\noutput.marginCubelets = 3\noutput.thresholdMom12 = 2.5\n")
# SoFiA-2's SNR maps of R's sources 7 and 9, whose local rms is its uninitialised read (a subnormal
# that changes from run to run; astrosweep's rms is 0 there, so no SNR map: docs/scfind.md).
set(cubelets_excused_c_R_threshold05_snr0 c_R_threshold05_snr0_7_snr.fits c_R_threshold05_snr0_9_snr.fits)
# parameter.physical: the spectra in Jy (Σ flux over the beam area in pixels); margin 1, moments 1
# and 2 over 1.5 × rms.
file(WRITE ${scfind_out}/c_A_physical.par ${image_cases_text}
  "parameter.physical = true\noutput.writeCubelets = true\noutput.marginCubelets = 1\noutput.thresholdMom12 = 1.5\n")
# 3 ranks of 2 slabs (6 slabs of 6-7 of A's 40 channels): source 4 (channels 3-23) is cut out of
# four slabs on all three ranks, source 1 (25-39) of three, and the margin of 10 clips the boxes at
# the cube's edges (rank 0 assembles each cubelet from the ranks' pieces, source_cutouts.hpp). With
# the reliability filter on R, the kept sources' boxes are gathered after it, renumbered.
# case|cube|ranks|slabs per rank|labels
foreach(run "c_A_mad_negative_defaults|A|1|1|scfind" "c_A_mad_negative_defaults|A|3|1|scfind"
            "c_A_mad_negative_defaults|A|2|2|scfind%heavy" "c_A_mad_negative_defaults|A|3|2|scfind"
            "c_Anowcs_mad_negative_defaults|Anowcs|1|1|scfind" "c_R_threshold05_snr0|R|1|1|scfind"
            "c_R_threshold05_snr0|R|2|1|scfind%heavy" "c_R_threshold05_snr0|R|3|1|scfind"
            "c_R_threshold05_snr0|R|3|2|scfind%heavy" "c_A_physical|A|1|1|scfind")
  string(REPLACE "|" ";" fields "${run}")
  list(GET fields 0 case)
  list(GET fields 1 cube)
  list(GET fields 2 np)
  list(GET fields 3 k)
  list(GET fields 4 labels)
  string(REPLACE "%" ";" labels "${labels}")
  set(name ${case}_np${np}_k${k})
  set(dir ${scfind_out}/${name}_cubelets)
  astrosweep_add_mpi_run(scfind_cub_${name} NP ${np} LABELS "${labels}" FIXTURES_REQUIRED scfind_cube_${cube}
    FIXTURES_SETUP scfind_run_cub_${name}
    COMMAND ${exe} scfind --par ${scfind_out}/${case}.par -i ${scfind_out}/${cube}.fits -o ${scfind_out}/${name}.h5
            --overwrite --threads 1 --slabs-per-rank ${k})
  set_tests_properties(scfind_cub_${name} PROPERTIES PASS_REGULAR_EXPRESSION
    "cubelets: [0-9]+ files of [0-9]+ sources in [^\n]*${name}_cubelets")
  add_test(NAME scfind_cub_${name}_files COMMAND scfind_case cubelet-files ${scfind_data}/${case}_files.txt ${dir}
           ${case} ${name} ${cubelets_excused_${case}})
  set_tests_properties(scfind_cub_${name}_files PROPERTIES FIXTURES_REQUIRED scfind_run_cub_${name}
                       LABELS "${labels};sofia")
  # SoFiA-2 names its files after output.filename, ours after the product: the case's name.
  file(GLOB references RELATIVE ${scfind_data} ${scfind_data}/${case}_[0-9]*)
  foreach(reference ${references})
    string(REPLACE "${case}_" "${name}_" ours "${reference}")
    string(REGEX REPLACE "\\.gz$" "" ours "${ours}")
    string(REGEX REPLACE "^${case}_|\\.fits\\.gz$|\\.txt$" "" what "${reference}")
    if(reference MATCHES "_spec\\.txt$")
      add_test(NAME scfind_cub_${name}_${what}_equals_sofia
               COMMAND scfind_case same-lines ${scfind_data}/${reference} ${dir}/${ours})
    else()
      add_test(NAME scfind_cub_${name}_${what}_equals_sofia
               COMMAND scfind_case image ${scfind_data}/${reference} ${dir}/${ours})
    endif()
    set_tests_properties(scfind_cub_${name}_${what}_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_cub_${name}
                         LABELS "${labels};sofia")
  endforeach()
endforeach()
# Bad values of the cubelet keys are refused naming their file and line.
foreach(bad "output.writeCubelets = yes|output.writeCubelets: 'yes' is not true or false"
            "output.marginCubelets = -1|output.marginCubelets: '-1' is not a whole number >= 0"
            "output.marginCubelets = 2.5|output.marginCubelets: '2.5' is not a whole number >= 0"
            "output.thresholdMom12 = high|output.thresholdMom12: 'high' is not a finite number")
  string(REPLACE "|" ";" fields "${bad}")
  list(GET fields 0 line)
  list(GET fields 1 message)
  string(REGEX MATCH "^[a-zA-Z0-9.]+" key "${line}")
  string(REGEX REPLACE "[^a-zA-Z0-9]" "_" tag "${line}")
  file(WRITE ${scfind_bad}/bad_${tag}.par "input.data = ${scfind_out}/A.fits\nlinker.enable = true\n${line}\n")
  astrosweep_add_failure_test(scfind_cub_bad_${tag} NP 1 CODE 2 MATCH "bad_${tag}.par:3: ${message}"
    FIXTURES_REQUIRED scfind_bad COMMAND scfind --par ${scfind_bad}/bad_${tag}.par -o ${scfind_bad}/cub_bad_${tag}.h5 --overwrite)
endforeach()
# The cubelet directory cannot be made (a file of its name is in the way), or exists without
# --overwrite (SoFiA-2's rule): exit 4 naming it, before the cube is read.
file(WRITE ${scfind_bad}/cub_blocked_cubelets "not a directory\n")
file(MAKE_DIRECTORY ${scfind_bad}/cub_exists_cubelets)
astrosweep_add_failure_test(scfind_cub_directory_blocked NP 1 CODE 4 FILE ${scfind_bad}/cub_blocked_cubelets
  MATCH "the cubelet directory '[^']*cub_blocked_cubelets' exists and is not a directory" FIXTURES_REQUIRED scfind_bad
  COMMAND scfind --par ${scfind_out}/c_A_mad_negative_defaults.par -i ${scfind_out}/A.fits
          -o ${scfind_bad}/cub_blocked.h5 --overwrite)
astrosweep_add_failure_test(scfind_cub_directory_exists NP 2 CODE 4 FILE ${scfind_bad}/cub_exists_cubelets
  MATCH "the cubelet directory '[^']*cub_exists_cubelets' already exists" FIXTURES_REQUIRED scfind_bad
  PRODUCTS ${scfind_bad}/cub_exists.h5
  COMMAND scfind --par ${scfind_out}/c_A_mad_negative_defaults.par -i ${scfind_out}/A.fits
          -o ${scfind_bad}/cub_exists.h5)
# Without the linker there is no catalogue to cut around: not written, and the run says so.
astrosweep_add_mpi_run(scfind_cub_without_linker NP 1 LABELS scfind FIXTURES_REQUIRED scfind_cube_A
  COMMAND ${exe} scfind -i ${scfind_out}/A.fits -o ${scfind_out}/cub_without_linker.h5 --overwrite --quiet
          --output.writeCubelets true)
set_tests_properties(scfind_cub_without_linker PROPERTIES PASS_REGULAR_EXPRESSION
  "output.writeCubelets without the linker and parameter.enable: not written")
