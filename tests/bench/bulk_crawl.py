#!/usr/bin/env python3
"""Crawl events replayed in bulk, side by side (docs/performance.md, "Bulk replay of crawl
events"): the same events (tests/bench/gen_crawl.py: 10 links a page on average) sent to `pages`
of `webindex broker` once, then processed into fresh data dirs by `webindex replay` with the bulk
build (the default), by `webindex run --exit-when-idle --no-bulk` (the incremental stages, as a
first run read a backlog before it built in bulk), by `webindex run --exit-when-idle` (a first
run builds in bulk too: engine first-run) and by `webindex replay --no-bulk`. Prints each one's seconds, events/s and
peak RSS, and the ratios; the data dirs' tables are compared (`webindex dump`) before they go.

Usage: tests/bench/bulk_crawl.py [--events 1000000] [--runs 1] [--engines bulk,run,first-run,no-bulk]
  [--memory-mb 64]
  WEBINDEX=path/to/webindex measures another build. The embedded broker keeps ~5 MiB per
  partition: the broker gets enough partitions to hold the events.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bulk_statements import start_and_load, timed  # noqa: E402
from sparql_peers import ROOT  # noqa: E402


def dump_digest(webindex, data_dir):
    """A digest of the data dir's table as `webindex dump` prints it."""
    out = subprocess.run([webindex, "dump", "--data-dir", data_dir], check=True, capture_output=True).stdout
    return hashlib.sha256(out).hexdigest(), out.count(b"\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--engines", default="bulk,run,no-bulk")
    ap.add_argument("--memory-mb", type=int, default=64)
    a = ap.parse_args()
    webindex = os.environ.get("WEBINDEX", os.path.join(ROOT, "build", "webindex"))
    work = tempfile.mkdtemp(prefix="webindex-bulk-crawl-")
    data = os.path.join(work, "crawl.jsonl")
    log = os.path.join(work, "log.txt")
    with open(data, "w") as out:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "bench", "gen_crawl.py"), str(a.events)],
                       check=True, stdout=out)
    broker, brokers = start_and_load(webindex, work, data, log)
    results, digests = {}, {}
    try:
        for run in range(a.runs):
            for engine in a.engines.split(","):
                app = f"{engine.replace('-', '')}{run}"
                data_dir = os.path.join(work, app)
                if engine in ("run", "first-run"):
                    cmd = [webindex, "--app-id", app, "run", "--brokers", brokers, "--data-dir", data_dir,
                           "--exit-when-idle"] + (["--no-bulk"] if engine == "run" else [])
                else:
                    cmd = [webindex, "--app-id", app, "replay", "--brokers", brokers, "--data-dir", data_dir,
                           "--switch-lag", "0"]
                    cmd += (["--bulk-min-records", "0", "--bulk-memory-mb", str(a.memory_mb)] if engine == "bulk"
                            else ["--no-bulk"])
                seconds, rss = timed(cmd, log)
                digests[app] = dump_digest(webindex, data_dir)
                shutil.rmtree(data_dir, ignore_errors=True)
                results.setdefault(engine, []).append((seconds, rss))
                print(f"{engine}: {seconds:.1f} s, {a.events / seconds:,.0f} events/s, peak RSS {rss:.0f} MB, "
                      f"table {digests[app][1]:,} lines", flush=True)
    except Exception:
        print("logs kept in " + work, file=sys.stderr)
        raise
    finally:
        broker.terminate()
        broker.wait()
    same = len(set(digests.values())) == 1
    if same:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("the tables differ: " + ", ".join(f"{k} {v[0][:12]}" for k, v in digests.items()) + "; logs in " + work)
    best = {e: min(r) for e, r in results.items()}
    for e, (s, rss) in best.items():
        print(f"{e:8} {s:7.1f} s {a.events / s:>10,.0f} events/s  peak RSS {rss:.0f} MB")
    for other in ("run", "no-bulk"):
        if "bulk" in best and other in best:
            print(f"bulk / {other} rate: {best[other][0] / best['bulk'][0]:.2f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
