# demo.avoid: runs crowdsteer-demo with --avoid off and with --avoid MODE on
# the same small crowd and fails unless both run clean (exit 0, no NaN/inf)
# and ORCA leaves fewer overlapping pairs (closer than r_i + r_j) at the end;
# with --obstacles in ARGS, also that the agents inside a polygon at the
# start are still there at the end (held at rest), and that there are some.
# Usage: cmake -DDEMO=<crowdsteer-demo> -DMODE=on|only "-DARGS=..." -P this
separate_arguments(args UNIX_COMMAND "${ARGS}")
foreach(avoid off ${MODE})
  execute_process(COMMAND "${DEMO}" ${args} --avoid ${avoid}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "NaN/inf values in the state: 0\n")
    message(FATAL_ERROR "crowdsteer-demo --avoid ${avoid} failed (${rc}):\n${out}${err}")
  endif()
  if(NOT out MATCHES "overlap pairs closer than r_i \\+ r_j = [0-9.]+: ([0-9]+) -> ([0-9]+)")
    message(FATAL_ERROR "crowdsteer-demo --avoid ${avoid}: no overlap line:\n${out}")
  endif()
  set(after_${avoid} ${CMAKE_MATCH_2})
  message("--avoid ${avoid}: overlapping pairs ${CMAKE_MATCH_1} -> ${CMAKE_MATCH_2}")
  if(ARGS MATCHES "--obstacles")
    if(NOT out MATCHES "obstacles inside a polygon \\(held at rest\\): ([0-9]+) -> ([0-9]+)"
       OR NOT CMAKE_MATCH_1 EQUAL CMAKE_MATCH_2 OR CMAKE_MATCH_1 EQUAL 0)
      message(FATAL_ERROR "--avoid ${avoid} --obstacles: the agents inside polygons "
                          "were not held:\n${out}")
    endif()
    message("--avoid ${avoid}: inside polygons ${CMAKE_MATCH_1} -> ${CMAKE_MATCH_2}")
  endif()
endforeach()
if(NOT after_${MODE} LESS after_off)
  message(FATAL_ERROR "--avoid ${MODE} leaves ${after_${MODE}} overlapping pairs, "
                      "not fewer than --avoid off (${after_off})")
endif()
