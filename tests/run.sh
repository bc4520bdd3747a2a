#!/usr/bin/env bash
# Sets up (packages and build, see docker/setup.sh) and runs every test:
#   1. the whole suite on the Release build (build/);
#   2. the unit tests and the integration tests outside TSAN_SUITES under ASan + UBSan (debug
#      preset, build-debug/): the CLI's end-to-end tests, whose child processes run every
#      component of the real binary, the web UI, the loaders and the docs' examples;
#   3. the unit tests and the integration tests of TSAN_SUITES under ThreadSanitizer (tsan
#      preset, build-tsan/): the in-process tests whose threads meet (stage runners, group
#      members in one process, HTTP server, the broker's callbacks), where TSan sees both sides;
#   4. the libFuzzer targets for a short budget under ASan + UBSan (clang, build-fuzz/).
# So every integration test runs on the Release build and under one sanitizer, every unit test
# under both. A new integration suite runs under ASan + UBSan unless TSAN_SUITES names it.
# WEBINDEX_QUICK=1 runs stage 1 only. Extra arguments go to ctest in stages 1 to 3, e.g.
# tests/run.sh -L unit. More random seeds: WEBINDEX_RANDOM_RUNS=50 tests/run.sh -R Randomized
set -euo pipefail
cd "$(dirname "$0")/.."
# The four builds go through ccache (installed by setup.sh --tests, used by CMakeLists.txt): a
# run compiles only what changed since the last one, in any checkout of the repository (paths
# are taken relative to it, and debug info keeps the compiling directory out of the hash).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-10G}"
export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/ccache}"
if ! mkdir -p "$CCACHE_DIR" 2>/dev/null || [[ ! -w $CCACHE_DIR ]]; then
  export CCACHE_DISABLE=1  # no cache to write: plain compiles
fi
docker/setup.sh --tests

# ctest with its output kept: a test that did not run fails the stage, because setup.sh installs
# everything the tests need, and GoogleTest reports the tests of a suite whose SetUpTestSuite
# failed as skipped (ctest would count them as passed).
checked_ctest() {
  local log status=0
  log=$(mktemp)
  "$@" 2>&1 | tee "$log" || status=$?
  if grep -q '\*\*\*Skipped' "$log"; then
    echo "tests/run.sh: tests were skipped (see above); a skipped test is a failed one here" >&2
    ((status != 0)) || status=1
  fi
  rm -f "$log"
  return "$status"
}

echo "== Release: all tests"
checked_ctest ctest --test-dir build --output-on-failure -j2 "$@"
[[ "${WEBINDEX_QUICK:-0}" == 1 ]] && exit 0

# The integration suites that run under ThreadSanitizer (stage 3); the others run under ASan.
TSAN_SUITES='^(BrokerFaultTest|ChangelogTest|Changelog/SharedPagesTest|ConsumerBatchTest|DamagedStateTest|'\
'DataDirBindingTest|DiskFullTest|FencingTest|GraphStageTest|GroupMembershipTest|GroupTasksTest|HttpApiTest|'\
'HttpPressureTest|HttpRunTest|HttpServerTest|HttpSparqlTest|InstanceClaimTest|PageRankForwardTest|PageRankLiveTest|'\
'PowerLossTest|RandomizedTest|RecordSizeTest|RemoteShardTest|SecondInstanceTest|ShardedPageRankTest|ShardedTableTest|'\
'TableShardsTest|TaskOriginTest)\.'

echo "== Debug + ASan + UBSan: unit tests, integration tests outside TSAN_SUITES"
cmake --preset debug >/dev/null
cmake --build --preset debug
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
checked_ctest ctest --preset debug -L unit "$@"
checked_ctest ctest --preset debug -L integration -E "$TSAN_SUITES" "$@"
unset ASAN_OPTIONS UBSAN_OPTIONS

echo "== ThreadSanitizer: unit tests, integration tests of TSAN_SUITES"
cmake --preset tsan >/dev/null
cmake --build --preset tsan
# Every process writes its reports to build-tsan/tsan-reports/report.<pid>, the webindex children
# of the integration tests too (their own output goes to log files): any report fails the stage.
# tests/tsan.supp: Debian's prebuilt librdkafka, RocksDB and spdlog, which TSan cannot see into.
# Its entries match a frame of the library in either stack of a report, so both must be restored:
# history_size=7 keeps each thread's last 4M accesses (the default 128K lets a stage thread's
# memtable write fall out of its history before an HTTP thread reads it back through an
# iterator, and "[failed to restore the stack]" leaves only webindex frames to match).
# suppress_equal_addresses=0: TSan otherwise looks every race it detects up in the list of the
# addresses of races it has met, suppressed ones included; RocksDB's write groups (races TSan
# cannot see the synchronization of, suppressed) add fresh addresses all the time, and the
# lookups grow to most of a test's time (BacklogTest: 82 s with it, 14 s without). It only
# dedupes reports, and the first one not suppressed stops the test anyway.
tsan_reports=$PWD/build-tsan/tsan-reports
rm -rf "$tsan_reports" && mkdir -p "$tsan_reports"
tsan_status=0
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=7 suppress_equal_addresses=0 suppressions=$PWD/tests/tsan.supp log_path=$tsan_reports/report"
checked_ctest ctest --preset tsan -L 'unit|tsan' "$@" || tsan_status=$?
checked_ctest ctest --preset tsan -L integration -R "$TSAN_SUITES" "$@" || tsan_status=$?
unset TSAN_OPTIONS
if compgen -G "$tsan_reports/report.*" >/dev/null; then
  cat "$tsan_reports"/report.*
  echo "ThreadSanitizer reported the above (all reports: $tsan_reports)" >&2
  exit 1
fi
((tsan_status == 0)) || exit "$tsan_status"

echo "== libFuzzer (clang, ASan + UBSan): event decoding and URL parsing"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
checked_ctest ctest --preset fuzz
