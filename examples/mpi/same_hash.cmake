# One MPI bit-identity test: runs crowdsteer-demo and crowdsteer-mpi on
# RANKS ranks with the same scenario options (ARGS, a ;-list) plus the MPI
# run's own (MPI_ARGS), and fails unless both print the same state hash and
# the MPI run gathered every agent (with avoidance, both also print the same
# totals of its report bits). MIN_MIGRATED: the least agents migrating per
# rank and step the run must report (boundary crossings really happen).
# Invoked as cmake -DDEMO=... -DMPI_DEMO=... -DMPIEXEC=... -DRANKS=... -P.
foreach(var DEMO MPI_DEMO MPIEXEC RANKS ARGS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "same_hash.cmake: ${var} is not set")
  endif()
endforeach()
execute_process(COMMAND ${DEMO} ${ARGS} OUTPUT_VARIABLE demo_out RESULT_VARIABLE demo_rc)
execute_process(
  COMMAND ${MPIEXEC} ${MPIEXEC_FLAGS} -np ${RANKS} ${MPI_DEMO} ${ARGS} ${MPI_ARGS}
  OUTPUT_VARIABLE mpi_out ERROR_VARIABLE mpi_err RESULT_VARIABLE mpi_rc)
if(NOT demo_rc EQUAL 0 OR NOT mpi_rc EQUAL 0)
  message(FATAL_ERROR "runs failed (demo ${demo_rc}, mpi ${mpi_rc}):\n${mpi_out}\n${mpi_err}")
endif()
string(REGEX MATCH "state hash: ([0-9a-f]+)" unused "${demo_out}")
set(demo_hash "${CMAKE_MATCH_1}")
string(REGEX MATCH "state hash: ([0-9a-f]+)" unused "${mpi_out}")
set(mpi_hash "${CMAKE_MATCH_1}")
string(REGEX MATCH "agents gathered by id: ([0-9]+) of ([0-9]+)" unused "${mpi_out}")
if(demo_hash STREQUAL "" OR NOT demo_hash STREQUAL mpi_hash
   OR NOT CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2)
  message(FATAL_ERROR "demo ${demo_hash}, ${RANKS} ranks ${mpi_hash}:\n${mpi_out}")
endif()
# With avoidance both print the run's totals of its report bits: the step's
# other output, which must agree too.
string(REGEX MATCH "whole run: [0-9]+ crowded and [0-9]+ wall" demo_avoid "${demo_out}")
string(REGEX MATCH "whole run: [0-9]+ crowded and [0-9]+ wall" mpi_avoid "${mpi_out}")
if(NOT demo_avoid STREQUAL mpi_avoid)
  message(FATAL_ERROR "demo '${demo_avoid}', ${RANKS} ranks '${mpi_avoid}':\n${mpi_out}")
endif()
string(REGEX MATCH "([0-9.]+) agents migrated out" unused "${mpi_out}")
if(DEFINED MIN_MIGRATED AND NOT CMAKE_MATCH_1 GREATER_EQUAL MIN_MIGRATED)
  message(FATAL_ERROR "only ${CMAKE_MATCH_1} agents migrate per rank and step:\n${mpi_out}")
endif()
string(REGEX MATCH "per rank and step: [^\n]*migrated out" migrated "${mpi_out}")
message("same state hash ${mpi_hash} on ${RANKS} ranks as crowdsteer-demo (${migrated})")
