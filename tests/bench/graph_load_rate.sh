#!/bin/bash
# The graph store's end-to-end rate (docs/performance.md, "Graph store"): `webindex run` waits
# on `webindex broker` (a process of its own), then `webindex load` sends the statements; the
# time runs from the load's start until the run's /metrics count them all as added. Prints that
# time and rate, the CPU seconds of the run, the load and the broker, and the data dir's size
# once the run has stopped.
#
# Usage: tests/bench/graph_load_rate.sh [STATEMENTS] [RUNS] [CONFIG]
#   STATEMENTS (default 1000000) from tests/bench/gen_statements.py over STATEMENTS/10 subjects,
#   one in three a literal of five words, sorted (grouped by subject) and without repeats;
#   RUNS (default 3); CONFIG: a --config file (default: none, the default configuration).
#   WEBINDEX=path/to/webindex measures another build.
set -euo pipefail
statements=${1:-1000000}
runs=${2:-3}
config=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
webindex=${WEBINDEX:-$root/build/webindex}
dir=$(mktemp -d /tmp/webindex-graph-rate-XXXXXX)
broker="" run=""
cleanup() {
  [ -n "$run" ] && kill -INT "$run" 2>/dev/null
  [ -n "$broker" ] && kill "$broker" 2>/dev/null
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
python3 "$root/tests/bench/gen_statements.py" "$statements" $((statements / 10)) 7 | sort -u > "$dir/statements.nt"
statements=$(wc -l < "$dir/statements.nt")  # a statement generated twice is one statement
port=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
cpu() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$1/stat"; }  # user + system seconds
added() {
  curl -s "http://127.0.0.1:$port/metrics" |
    awk '/^webindex_statements_total\{graph="statements",change="added"\}/ {print int($2)}'
}
for r in $(seq "$runs"); do
  rm -rf "$dir/addr" "$dir/data"
  "$webindex" broker --partitions 4 --address-file "$dir/addr" > "$dir/broker.log" 2>&1 &
  broker=$!
  for _ in $(seq 100); do [ -s "$dir/addr" ] && break; sleep 0.1; done
  brokers=$(cat "$dir/addr")
  "$webindex" run ${config:+--config "$config"} --brokers "$brokers" --data-dir "$dir/data" \
    --http "127.0.0.1:$port" > "$dir/run.log" 2>&1 &
  run=$!
  for _ in $(seq 100); do [ -n "$(added)" ] && break; sleep 0.1; done
  sleep 1  # the stages have joined their topics
  start=$(date +%s.%N)
  /usr/bin/time -o "$dir/load.time" -f "%U %S" "$webindex" load --brokers "$brokers" --format ntriples \
    "$dir/statements.nt" > "$dir/load.log" 2>&1 &
  load=$!
  until [ "$(added)" -ge "$statements" ] 2>/dev/null; do
    kill -0 "$run" 2>/dev/null || { echo "webindex run exited; its log: $dir/run.log" >&2; cat "$dir/run.log" >&2; exit 1; }
    sleep 0.05
  done
  end=$(date +%s.%N)
  wait "$load"
  run_cpu=$(cpu "$run") broker_cpu=$(cpu "$broker")
  kill -INT "$run" && wait "$run" 2>/dev/null || true
  kill "$broker" && wait "$broker" 2>/dev/null || true
  run="" broker=""
  bytes=$(du -sb "$dir/data" | cut -f1)
  python3 - "$start" "$end" "$statements" "$run_cpu" "$broker_cpu" "$bytes" "$dir/load.time" <<'PY'
import sys
start, end, n, run_cpu, broker_cpu, size = map(float, sys.argv[1:7])
load_cpu = sum(map(float, open(sys.argv[7]).read().split()))
t = end - start
print(f"{int(n)} statements in {t:.2f} s: {n / t:,.0f} statements/s; CPU s: run {run_cpu:.2f}, "
      f"load {load_cpu:.2f}, broker {broker_cpu:.2f}; data dir {size / 1e6:.1f} MB")
PY
done
