#!/usr/bin/env bash
# HTTP load on loopback with wrk: builds a table from a synthetic crawl (webindex bench), serves
# it with `webindex run --http`, and measures each API route. Not part of ctest.
#   tests/bench/http_load.sh [PAGES] [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/../.."
pages=${1:-100000}; seconds=${2:-15}; conns=${3:-16}
bin=build/webindex
dir=$(mktemp -d /tmp/webindex-httpload-XXXXXX)
trap 'kill $run_pid 2>/dev/null || true; rm -rf "$dir"' EXIT
command -v wrk >/dev/null || { echo "needs wrk: apt-get install wrk" >&2; exit 1; }

echo "== building a table from $pages synthetic pages"
$bin bench --pages "$pages" --data-dir "$dir/data" --no-count-uris >"$dir/bench.log" 2>&1
$bin run --brokers embedded --data-dir "$dir/data" --http 127.0.0.1:18089 >"$dir/run.log" 2>&1 &
run_pid=$!
for _ in $(seq 100); do curl -sf http://127.0.0.1:18089/healthz >/dev/null && break; sleep 0.2; done

top=$(curl -sf 'http://127.0.0.1:18089/api/top?limit=1' | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["url"])')
domain=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).hostname)' "$top")
enc=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$top")
echo "== table of $pages pages; top page $top"
for route in "/api/top?limit=25" "/api/pages?domain=$domain&limit=25" "/api/page?url=$enc" \
             "/api/links?url=$enc&linkType=in&limit=25"; do
  echo "-- GET $route"
  wrk -t2 -c"$conns" -d"${seconds}s" --latency "http://127.0.0.1:18089$route" |
    grep -E "Requests/sec|Latency |  50%|  99%|Non-2xx"
done
