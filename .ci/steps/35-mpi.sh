#!/usr/bin/env bash
# MPI: installs Open MPI (Debian's libopenmpi-dev, openmpi-bin), builds
# crowdsteer-mpi in the release preset and runs its ctest tests: the demo's
# crowd on 1, 2, 3 and 4 ranks (oversubscribed) and runs where agents cross
# rank boundaries all the time, without and with avoidance (ORCA) and the
# obstacles, must print crowdsteer-demo's state hash.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/deps libopenmpi-dev openmpi-bin
cmake --preset release >/dev/null
cmake --build --preset release --target crowdsteer-demo crowdsteer-mpi
# CI runs as root; Open MPI refuses that without these two.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --preset release -L mpi --output-on-failure
[ "$(ctest --preset release -N -L mpi | grep -c 'Test *#')" -ge 18 ] ||
  { echo "35-mpi: the MPI tests are not registered (MPI not found?)"; exit 1; }
