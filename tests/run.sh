#!/usr/bin/env bash
# Sets up (packages and build, see docker/setup.sh) and runs every test with ctest.
# Extra arguments go to ctest, e.g. tests/run.sh -L unit. More random seeds:
#   WEBINDEX_RANDOM_RUNS=50 tests/run.sh -R Randomized
set -euo pipefail
cd "$(dirname "$0")/.."
docker/setup.sh --tests
ctest --test-dir build --output-on-failure -j2 "$@"
