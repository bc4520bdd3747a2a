#!/usr/bin/env bash
# Re-takes the web UI screenshots in this folder from the sample crawl (tests/data/5-pages.txt)
# and statements (tests/data/people.nt): an embedded broker, `webindex run --http` with PageRank
# every second and the web graph as statements, headless Chromium. top.png, domain.png, page.png,
# status.png, statements.png (alice's statements) and words.png (pages by title words) are views
# as they load; search.png has "stack" typed into the search box, with its
# suggestions open (typed over Chromium's DevTools protocol on a pipe, by python3).
#   docs/screenshots/take.sh [build/webindex]        needs chromium (apt-get install chromium) and python3
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
"$bin" load --brokers "$(cat "$tmp/addr")" --format ntriples tests/data/people.nt >>"$tmp/load.log" 2>&1
printf '[pagerank]\ninterval_s = 1\n[indexes]\nweb_triples = true\n' >"$tmp/config.toml"
"$bin" run --brokers "$(cat "$tmp/addr")" --data-dir "$tmp/data" --http 127.0.0.1:0 --config "$tmp/config.toml" \
  >"$tmp/run.log" 2>&1 &
pids+=($!)
port=""
for _ in $(seq 300); do
  port=$(sed -n 's/.*query API on .* (port \([0-9]*\)).*/\1/p' "$tmp/run.log" 2>/dev/null || true)
  # Ready when the four most linked-to pages have their final count and a PageRank result is stored.
  [[ -n $port ]] && (($(curl -sf "http://127.0.0.1:$port/api/top?limit=4" | grep -o '"count":4}' | wc -l) == 4)) &&
    curl -sf "http://127.0.0.1:$port/api/status" | grep -q '"pagerank":{"result"' && break
  sleep 0.2
done
[[ -n $port ]] || { echo "take.sh: webindex run did not serve; see $tmp/run.log" >&2; exit 1; }
sleep 2  # a few seconds of events per second to show

shot() {
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$tmp/profile-$1" --virtual-time-budget=10000 \
    --hide-scrollbars --window-size=1280,900 --screenshot="$out/$1" "http://127.0.0.1:$port/$2" 2>>"$tmp/chromium.log"
}
shot top.png '#/top'
shot domain.png '#/pages?domain=stackoverflow.com'
shot page.png '#/page?url=http%3A%2F%2Fblog.stackoverflow.com%2F2009%2F06%2Fattribution-required%2F'
shot status.png '#/status'
shot statements.png '#/statements?s=%3Chttp%3A%2F%2Fexample.org%2Falice%3E'
shot words.png '#/text?q=spotlight%20OR%20badge%20OR%20user*&p=%3Curn%3Awebindex%3Atitle%3E'

# search.png: types into the search box as a user does and waits for the suggestions.
python3 - "http://127.0.0.1:$port/#/top" "$out/search.png" "$tmp/profile-search" 2>>"$tmp/chromium.log" <<'EOF'
import base64, fcntl, json, os, subprocess, sys, time

url, png, profile = sys.argv[1:4]
to_chrome, from_chrome = os.pipe(), os.pipe()

def protocol_fds():  # the browser reads commands on fd 3 and writes messages on fd 4
    os.dup2(fcntl.fcntl(to_chrome[0], fcntl.F_DUPFD, 10), 3)
    os.dup2(fcntl.fcntl(from_chrome[1], fcntl.F_DUPFD, 10), 4)

chrome = subprocess.Popen(
    ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
     "--disable-background-networking", "--disable-component-update", "--hide-scrollbars",
     "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
    preexec_fn=protocol_fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(to_chrome[0])
os.close(from_chrome[1])
pending, next_id, session = b"", 0, None

def call(method, **params):
    global pending, next_id
    next_id += 1
    message = {"id": next_id, "method": method, "params": params}
    if session:
        message["sessionId"] = session
    os.write(to_chrome[1], json.dumps(message).encode() + b"\0")
    while True:
        while b"\0" not in pending:
            chunk = os.read(from_chrome[0], 65536)
            if not chunk:
                sys.exit("take.sh: chromium closed its DevTools pipe")
            pending += chunk
        raw, pending = pending.split(b"\0", 1)
        reply = json.loads(raw)
        if reply.get("id") == next_id:
            if "error" in reply:
                sys.exit(f"take.sh: {method}: {reply['error']}")
            return reply["result"]

def wait_for(condition):
    for _ in range(200):
        if call("Runtime.evaluate", expression=f"Boolean({condition})", returnByValue=True)["result"]["value"]:
            return
        time.sleep(0.05)
    sys.exit(f"take.sh: not true in time: {condition}")

try:
    target = call("Target.createTarget", url="about:blank")["targetId"]
    session = call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
    call("Page.navigate", url=url)
    wait_for("document.body && document.body.dataset.state === 'ready'")
    call("Runtime.evaluate", expression="document.getElementById('search-input').focus()")
    call("Input.insertText", text="stack")
    wait_for("!document.getElementById('suggestions').hidden")
    for kind in ("keyDown", "keyUp"):
        call("Input.dispatchKeyEvent", type=kind, key="ArrowDown", code="ArrowDown", windowsVirtualKeyCode=40)
    time.sleep(0.3)
    with open(png, "wb") as f:
        f.write(base64.b64decode(call("Page.captureScreenshot", format="png")["data"]))
finally:
    chrome.terminate()
    chrome.wait()
EOF
ls -l "$out"/*.png
