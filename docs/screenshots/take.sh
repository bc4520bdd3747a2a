#!/usr/bin/env bash
# Re-takes the web UI screenshots in this folder (top.png, domain.png, page.png) from the sample
# crawl: an embedded broker, tests/data/5-pages.txt, `webindex run --http`, headless Chromium.
#   docs/screenshots/take.sh [build/webindex]        needs chromium (apt-get install chromium)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/webindex}
out=docs/screenshots
tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

"$bin" broker --partitions 2 --address-file "$tmp/addr" >"$tmp/broker.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -s $tmp/addr ]] && break; sleep 0.1; done
"$bin" load --brokers "$(cat "$tmp/addr")" tests/data/5-pages.txt >"$tmp/load.log" 2>&1
"$bin" run --brokers "$(cat "$tmp/addr")" --data-dir "$tmp/data" --http 127.0.0.1:0 >"$tmp/run.log" 2>&1 &
pids+=($!)
port=""
for _ in $(seq 300); do
  port=$(sed -n 's/.*query API on .* (port \([0-9]*\)).*/\1/p' "$tmp/run.log" 2>/dev/null || true)
  # Ready when the four most linked-to pages have their final count.
  [[ -n $port ]] && (($(curl -sf "http://127.0.0.1:$port/api/top?limit=4" | grep -o '"count":4}' | wc -l) == 4)) && break
  sleep 0.2
done
[[ -n $port ]] || { echo "take.sh: webindex run did not serve; see $tmp/run.log" >&2; exit 1; }

shot() {
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$tmp/profile-$1" --virtual-time-budget=10000 \
    --hide-scrollbars --window-size=1280,900 --screenshot="$out/$1" "http://127.0.0.1:$port/$2" 2>>"$tmp/chromium.log"
}
shot top.png '#/top'
shot domain.png '#/pages?domain=stackoverflow.com'
shot page.png '#/page?url=http%3A%2F%2Fblog.stackoverflow.com%2F2009%2F06%2Fattribution-required%2F'
ls -l "$out"/*.png
