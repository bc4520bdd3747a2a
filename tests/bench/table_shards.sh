#!/bin/bash
# A partitioned query table (docs/scale-out.md §6.1) against a whole-table replica, each alone on
# this machine with `webindex broker` in a process of its own:
#   1. a member that runs only the stages writes the exports of the events loaded before;
#   2. then, for each layout, members that run no stage apply those exports: a whole-table
#      replica (--table), one --table-shard member (every shard), three --table-shard members
#      (the group splits the shards). Each is timed from its start until every member's
#      /api/totals names every link (joins and shard assignment included), and per member from
#      its first to its last sink commit with records (its debug log);
#   3. then the latency of /api/top?limit=50 and a large domain's /api/pages?limit=50 asked of
#      the first member, one request at a time (p50, p99).
# Every member is of the stages' group (records of another group stop a member); one layout runs
# at a time. PageRank off.
#
# Usage: tests/bench/table_shards.sh [PAGES] [PARTITIONS] [REQUESTS]   (defaults 50000, 32, 300)
set -euo pipefail
pages=${1:-50000}
partitions=${2:-32}
requests=${3:-300}
root=$(cd "$(dirname "$0")/../.." && pwd)
webindex=${WEBINDEX:-$root/build/webindex}
dir=$(mktemp -d /tmp/webindex-table-shards-XXXXXX)
pids=()
trap 'kill "${pids[@]}" $broker 2>/dev/null || true; rm -rf "$dir"' EXIT
python3 "$root/tests/bench/gen_crawl.py" "$pages" > "$dir/crawl.jsonl"
"$webindex" broker --partitions "$partitions" --address-file "$dir/addr" > "$dir/broker.log" 2>&1 &
broker=$!
for _ in $(seq 100); do [ -s "$dir/addr" ] && break; sleep 0.1; done
brokers=$(cat "$dir/addr")
printf '[group]\nsession_timeout_ms = 6000\n[pagerank]\ninterval_s = 0\n' > "$dir/member.toml"
"$webindex" load --brokers "$brokers" "$dir/crawl.jsonl" 2>&1 | tail -1
"$webindex" run --brokers "$brokers" --data-dir "$dir/stages" --group rates --partitions "$partitions" \
  --config "$dir/member.toml" --exit-when-idle > "$dir/stages.log" 2>&1
links=$(python3 -c "import json, sys; print(sum(len(json.loads(l)['outboundLinks']) for l in open(sys.argv[1])))" \
  "$dir/crawl.jsonl")
echo "stages done: $links links in the crawl"

free_port() { python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }
layout() {  # name, members, what
  local name=$1 n=$2 what=$3 ports=()
  local start
  start=$(date +%s.%N)
  for i in $(seq "$n"); do
    local port
    port=$(free_port)
    ports+=("$port")
    "$webindex" run --brokers "$brokers" --data-dir "$dir/$name-$i" --group rates --config "$dir/member.toml" \
      --no-stages "$what" --http "127.0.0.1:$port" --log-level debug > "$dir/$name-$i.log" 2>&1 &
    pids+=($!)
  done
  python3 - "$start" "$dir/totals" "${ports[@]}" <<'PY'
import json, os, sys, time, urllib.request
start, want_file, ports = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
def totals(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/totals", timeout=5) as r:
            return r.read()
    except Exception:
        return None
want, stable, seen = None, 0, None
if os.path.exists(want_file):
    want = open(want_file, "rb").read()
deadline = time.time() + 900
while time.time() < deadline:
    got = [totals(p) for p in ports]
    if want is not None and all(g == want for g in got):
        break
    if want is None and got[0] is not None:  # the first layout: its totals, once still for 3 s
        stable = stable + 1 if got[0] == seen else 0
        seen = got[0]
        if stable == 30:
            open(want_file, "wb").write(seen)
            print(f"  totals {seen.decode()}")
            break
    time.sleep(0.1)
else:
    sys.exit("  the members did not answer the whole table within 15 minutes")
settle = 3.0 if want is None else 0.0
print(f"  whole table answered by every member after {time.time() - start - settle:.1f} s (start, joins, apply)")
PY
  for i in $(seq "$n"); do
    python3 - "$dir/$name-$i.log" "$i" <<'PY'
import re, sys, datetime
times, records = [], 0
for l in open(sys.argv[1]):
    m = re.search(r"stage sink: committed ([0-9]+) records in", l)
    if m and int(m.group(1)) > 0:
        times.append(datetime.datetime.fromisoformat(l[:23]))
        records += int(m.group(1))
span = (times[-1] - times[0]).total_seconds() if len(times) > 1 else float("nan")
print(f"  member {sys.argv[2]}: {records} exports applied in {span:.2f} s (first to last sink commit): "
      f"{records / span:,.0f} exports/s")
PY
  done
  python3 - "$requests" "${ports[0]}" <<'PY'
import json, sys, time, urllib.request, statistics
n, port = int(sys.argv[1]), sys.argv[2]
base = f"http://127.0.0.1:{port}"
with urllib.request.urlopen(base + "/api/top?limit=1") as r:
    top = json.load(r)["results"][0]["url"]
domain = top.split("/")[2]
def timed(path):
    ms = []
    for _ in range(n):
        t = time.perf_counter()
        with urllib.request.urlopen(base + path) as r:
            r.read()
        ms.append((time.perf_counter() - t) * 1000)
    ms.sort()
    return f"p50 {ms[len(ms) // 2]:.2f} ms, p99 {ms[int(len(ms) * 0.99) - 1]:.2f} ms"
print(f"  /api/top?limit=50: {timed('/api/top?limit=50')}")
print(f"  /api/pages?domain={domain}&limit=50: {timed(f'/api/pages?domain={domain}&limit=50')}")
PY
  kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  pids=()
  sleep 7  # the members' sessions end before the next layout's members join the same groups
}
echo "whole-table replica (--table):"
layout whole 1 --table
echo "one --table-shard member ($partitions shards):"
layout one 1 --table-shard
echo "three --table-shard members:"
layout three 3 --table-shard
