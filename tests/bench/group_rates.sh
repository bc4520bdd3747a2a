#!/bin/bash
# The rates of a consumer group's two kinds of members (docs/scale-out.md, "Sizing"), each
# alone on this machine with `webindex broker` in a process of its own:
#   1. a member that runs only the stages (page, uri, domain; changelogs on) over every task,
#      until the events loaded before are through;
#   2. then a table replica (--no-stages) that applies every export they wrote.
# Prints each one's processing time (its first to its last commit with records, from its debug
# log) and rate. PageRank off.
#
# Usage: tests/bench/group_rates.sh [PAGES] [PARTITIONS]   (defaults 50000, 32: ~500,000
# links; 32 partitions keep each under the embedded broker's ~5 MiB per partition)
set -euo pipefail
pages=${1:-50000}
partitions=${2:-32}
root=$(cd "$(dirname "$0")/../.." && pwd)
webindex=${WEBINDEX:-$root/build/webindex}
dir=$(mktemp -d /tmp/webindex-group-rates-XXXXXX)
trap 'kill $broker 2>/dev/null || true; rm -rf "$dir"' EXIT
python3 "$root/tests/bench/gen_crawl.py" "$pages" > "$dir/crawl.jsonl"
"$webindex" broker --partitions "$partitions" --address-file "$dir/addr" > "$dir/broker.log" 2>&1 &
broker=$!
for _ in $(seq 100); do [ -s "$dir/addr" ] && break; sleep 0.1; done
brokers=$(cat "$dir/addr")
printf '[group]\nsession_timeout_ms = 6000\n[pagerank]\ninterval_s = 0\n' > "$dir/member.toml"
"$webindex" load --brokers "$brokers" "$dir/crawl.jsonl" 2>&1 | tail -1
run() {  # name, extra args...
  local name=$1
  shift
  "$webindex" run --brokers "$brokers" --data-dir "$dir/$name" --group rates --partitions "$partitions" \
    --config "$dir/member.toml" --exit-when-idle --log-level debug "$@" > "$dir/$name.log" 2>&1
}
span() {  # seconds from the first to the last commit with records in log $1
  python3 - "$1" <<'PY'
import re, sys, datetime
times = [datetime.datetime.fromisoformat(l[:23]) for l in open(sys.argv[1])
         if re.search(r"stage \w+: committed [1-9]", l)]
print(f"{(times[-1] - times[0]).total_seconds():.2f}")
PY
}
links=$(python3 -c "import json, sys; print(sum(len(json.loads(l)['outboundLinks']) for l in open(sys.argv[1])))" \
  "$dir/crawl.jsonl")
run stages
s=$(span "$dir/stages.log")
echo "stage member: $links links in $s s: $(python3 -c "print(round($links / $s))") links/s"
run replica --no-stages --table
exports=$(grep -o 'exports_applied=[0-9]*' "$dir/replica.log" | tail -1 | cut -d= -f2)
r=$(span "$dir/replica.log")
echo "table replica: $exports exports ($links links) in $r s: $(python3 -c "print(round($links / $r))") links/s"
