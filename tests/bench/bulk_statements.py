#!/usr/bin/env python3
"""Statements replayed in bulk, side by side (docs/performance.md, "Bulk replay"): the same
N-Triples file (tests/bench/gen_sparql_data.py) sent to `triples` of `webindex broker` once, then
replayed into fresh data dirs by `webindex replay` with the bulk build (the default) and without
it (--no-bulk: the incremental stage's rate), and loaded into Virtuoso 7.2 (Debian
virtuoso-opensource: ld_dir + rdf_loader_run + checkpoint, as tests/bench/sparql_peers.py does).
Prints each one's seconds, statements/s and peak RSS, and the ratios.

Usage: tests/bench/bulk_statements.py [--statements 1000000] [--runs 1] [--engines bulk,incremental,virtuoso]
  WEBINDEX=path/to/webindex measures another build. The embedded broker keeps ~5 MiB per
  partition: the broker gets enough partitions to hold the file.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sparql_peers import ROOT, Virtuoso  # noqa: E402


def timed(cmd, log):
    """Runs cmd; (seconds, peak RSS in MB of the child)."""
    start = time.perf_counter()
    with open(log, "a") as out:
        subprocess.run(["/usr/bin/time", "-f", "peak_rss_kb %M"] + cmd, check=True, stdout=out, stderr=out)
    seconds = time.perf_counter() - start
    with open(log) as f:
        rss = [int(line.split()[1]) for line in f if line.startswith("peak_rss_kb ")][-1]
    return seconds, rss / 1024


def start_and_load(webindex, work, data, log, load_args=()):
    """Starts `webindex broker` in `work` with enough partitions to hold `data` (the embedded broker
    keeps ~5 MiB each) and loads `data` into it; (the broker's process, its --brokers value)."""
    partitions = max(4, 2 * os.path.getsize(data) // (4 << 20) + 1)
    addr = os.path.join(work, "addr")
    broker = subprocess.Popen([webindex, "broker", "--partitions", str(partitions), "--address-file", addr],
                              stdout=open(log, "a"), stderr=subprocess.STDOUT)
    try:
        for _ in range(300):
            if os.path.exists(addr) and os.path.getsize(addr):
                break
            time.sleep(0.1)
        brokers = "@" + addr
        subprocess.run([webindex, "load", "--brokers", brokers, *load_args, data], check=True,
                       stdout=open(log, "a"), stderr=subprocess.STDOUT)
    except BaseException:
        print("logs kept in " + work, file=sys.stderr)
        broker.terminate()
        broker.wait()
        raise
    return broker, brokers


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--statements", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--engines", default="bulk,incremental,virtuoso")
    a = ap.parse_args()
    webindex = os.environ.get("WEBINDEX", os.path.join(ROOT, "build", "webindex"))
    work = tempfile.mkdtemp(prefix="webindex-bulk-statements-")
    data = os.path.join(work, "data.nt")
    log = os.path.join(work, "log.txt")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "bench", "gen_sparql_data.py"), "--statements",
                    str(a.statements), "--subjects", str(a.statements // 10), data], check=True)
    broker, brokers = start_and_load(webindex, work, data, log, ["--format", "ntriples"])
    results = {}
    try:
        for run in range(a.runs):
            for engine in a.engines.split(","):
                if engine == "virtuoso":
                    v = Virtuoso(os.path.join(work, f"v{run}"), data, a.statements)
                    os.makedirs(v.work)
                    try:
                        seconds = v.start()
                    finally:
                        v.stop()
                    rss = 0.0
                else:
                    data_dir = os.path.join(work, f"{engine}{run}")
                    cmd = [webindex, "--app-id", f"{engine}{run}", "replay", "--brokers", brokers, "--data-dir",
                           data_dir, "--switch-lag", "0"]
                    cmd += ["--bulk-min-records", "0"] if engine == "bulk" else ["--no-bulk"]
                    seconds, rss = timed(cmd, log)
                    shutil.rmtree(data_dir, ignore_errors=True)
                results.setdefault(engine, []).append((seconds, rss))
                print(f"{engine}: {seconds:.1f} s, {a.statements / seconds:,.0f} statements/s"
                      + (f", peak RSS {rss:.0f} MB" if rss else ""), flush=True)
    except Exception:
        print("logs kept in " + work, file=sys.stderr)
        raise
    finally:
        broker.terminate()
        broker.wait()
    shutil.rmtree(work, ignore_errors=True)
    best = {e: min(r) for e, r in results.items()}
    for e, (s, rss) in best.items():
        print(f"{e:12} {s:7.1f} s {a.statements / s:>12,.0f} statements/s" + (f"  peak RSS {rss:.0f} MB" if rss else ""))
    if "bulk" in best and "incremental" in best:
        print(f"bulk / incremental rate: {best['incremental'][0] / best['bulk'][0]:.2f}x")
    if "bulk" in best and "virtuoso" in best:
        print(f"bulk / Virtuoso rate: {best['virtuoso'][0] / best['bulk'][0]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
