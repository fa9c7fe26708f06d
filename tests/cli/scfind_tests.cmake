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
  if(line MATCHES "^\\[cube ([A-Za-z0-9_]+)\\]")
    set(kind cube)
    set(name ${CMAKE_MATCH_1})
  elseif(line MATCHES "^\\[case ([A-Za-z0-9_]+)\\]")
    set(kind case)
    set(name ${CMAKE_MATCH_1})
    list(APPEND scfind_cases ${name})
  elseif(kind STREQUAL "cube" AND line MATCHES "^generator = make_scfind_cube (.*)$")
    separate_arguments(generator_${name} UNIX_COMMAND "${CMAKE_MATCH_1}")
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
      set(product ${scfind_out}/${case}_np${np}.h5)
      astrosweep_add_mpi_run(scfind_${case}_np${np} NP ${np} LABELS scfind FIXTURES_REQUIRED ${needs}
        FIXTURES_SETUP scfind_run_${case}_np${np}
        COMMAND ${exe} scfind --par ${par} -i ${cube} -o ${product} --overwrite --quiet)
      add_test(NAME scfind_${case}_np${np}_equals_sofia
               COMMAND scfind_case check ${scfind_data}/cases.txt ${case} ${product} ${scfind_out}/${case}_np${np}_mask-raw.fits)
      set_tests_properties(scfind_${case}_np${np}_equals_sofia PROPERTIES FIXTURES_REQUIRED scfind_run_${case}_np${np}
                           LABELS "scfind;sofia")
    endforeach()
  elseif(expect_of_${case} STREQUAL "refused")
    astrosweep_add_failure_test(scfind_${case}_refused NP 2 CODE 2 MATCH "kernel .* cube" FIXTURES_REQUIRED ${needs}
      COMMAND scfind --par ${par} -i ${cube} -o ${scfind_out}/${case}.h5 --overwrite)
  else()
    astrosweep_add_failure_test(scfind_${case}_undefined NP 2 CODE 3 MATCH "noise .* cannot be measured"
      FIXTURES_REQUIRED ${needs} COMMAND scfind --par ${par} -i ${cube} -o ${scfind_out}/${case}.h5 --overwrite)
  endif()
endforeach()
