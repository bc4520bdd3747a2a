#!/usr/bin/env bash
# Sets up (packages and build, see docker/setup.sh) and runs every test:
#   1. the whole suite on the Release build (build/);
#   2. the whole suite again under ASan + UBSan (debug preset, build-debug/);
#   3. the libFuzzer targets for a short budget under ASan + UBSan (clang, build-fuzz/).
# WEBINDEX_QUICK=1 runs stage 1 only. Extra arguments go to ctest in stages 1 and 2, e.g.
# tests/run.sh -L unit. More random seeds: WEBINDEX_RANDOM_RUNS=50 tests/run.sh -R Randomized
set -euo pipefail
cd "$(dirname "$0")/.."
docker/setup.sh --tests

echo "== Release: all tests"
ctest --test-dir build --output-on-failure -j2 "$@"
[[ "${WEBINDEX_QUICK:-0}" == 1 ]] && exit 0

echo "== Debug + ASan + UBSan: all tests"
cmake --preset debug >/dev/null
cmake --build --preset debug
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --preset debug "$@"

echo "== libFuzzer (clang, ASan + UBSan): event decoding and URL parsing"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
ctest --preset fuzz
