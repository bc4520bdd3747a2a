#!/usr/bin/env python3
"""SPARQL query latency side by side (docs/performance.md, "SPARQL"): the queries of
tests/bench/sparql/*.rq over the same statements, each engine answering over HTTP as its users
reach it (webindex's /sparql, Virtuoso's /sparql) or in process (oxigraph, npm), each query run
--runs times after one warm-up run; prints p50 / p99 in ms and the rows per engine (the rows
must agree), and the load time of each engine. The HTTP engines run at the same time and take
turns request by request, so a noisy minute weighs on both alike. NAME.webindex.rq, when
present, is what webindex runs for NAME.rq (the same question in Rya's tempo: / fts: form).

Usage: tests/bench/sparql_peers.py [--statements 1000000] [--runs 50]
           [--engines webindex,virtuoso,oxigraph] [--oxigraph-modules DIR] [--queries GLOB]
  webindex: build/webindex (WEBINDEX=path for another build): `webindex broker`, `run --http`,
            `load --format ntriples`; timed until /metrics counts every statement added.
  virtuoso: Debian's virtuoso-opensource 7.2 (virtuoso-t, isql-vt), a fresh database in a
            temporary directory, loaded with ld_dir + rdf_loader_run + checkpoint.
  oxigraph: node with the npm package oxigraph in DIR/node_modules (`npm install oxigraph`).
"""
import argparse
import glob
import re
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import http.client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def percentile(values, p):
    values = sorted(values)
    return values[max(0, min(len(values) - 1, int(round(p / 100 * len(values) + 0.5)) - 1))]


def rows_of(body):
    doc = json.loads(body)
    return len(doc["results"]["bindings"]) if "results" in doc else int(doc.get("boolean", False))


class HttpClient:
    """One keep-alive connection to an engine's SPARQL endpoint."""

    def __init__(self, port, path, form_get=False):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.path, self.form_get = path, form_get

    def once(self, query):
        """Runs `query` once; (latency in ms, rows)."""
        start = time.perf_counter()
        if self.form_get:
            self.conn.request("GET", self.path + "?" + urllib.parse.urlencode({"query": query}),
                              headers={"Accept": "application/sparql-results+json"})
        else:
            self.conn.request("POST", self.path, body=query.encode(),
                              headers={"Content-Type": "application/sparql-query",
                                       "Accept": "application/sparql-results+json"})
        resp = self.conn.getresponse()
        body = resp.read()
        elapsed = (time.perf_counter() - start) * 1000
        if resp.status != 200:
            raise RuntimeError(f"HTTP {resp.status}: {body[:300]!r}")
        return elapsed, rows_of(body)

    def close(self):
        self.conn.close()


class Webindex:
    name = "webindex"

    def __init__(self, work, data, count):
        self.binary = os.environ.get("WEBINDEX", os.path.join(ROOT, "build", "webindex"))
        self.work, self.data, self.count = work, data, count
        self.procs = []

    def metric_added(self):
        try:
            text = urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5).read().decode()
        except OSError:
            return None
        for line in text.splitlines():
            if line.startswith('webindex_statements_total{graph="statements",change="added"}'):
                return int(float(line.split()[1]))
        return None

    def start(self):
        addr = os.path.join(self.work, "addr")
        log = open(os.path.join(self.work, "webindex.log"), "w")
        self.procs.append(subprocess.Popen([self.binary, "broker", "--partitions", "4", "--address-file", addr],
                                           stdout=log, stderr=log))
        for _ in range(300):
            if os.path.exists(addr) and os.path.getsize(addr):
                break
            time.sleep(0.1)
        brokers = "@" + addr
        self.port = free_port()
        self.procs.append(subprocess.Popen([self.binary, "run", "--brokers", brokers, "--data-dir",
                                            os.path.join(self.work, "data"), "--http", f"127.0.0.1:{self.port}"],
                                           stdout=log, stderr=log))
        while self.metric_added() is None:
            time.sleep(0.1)
        start = time.time()
        subprocess.run([self.binary, "load", "--brokers", brokers, "--format", "ntriples", self.data], check=True,
                       stdout=log, stderr=log)
        while (self.metric_added() or 0) < self.count:
            if self.procs[-1].poll() is not None:
                raise RuntimeError("webindex run exited; see " + log.name)
            time.sleep(0.2)
        loaded = time.time() - start
        time.sleep(2)  # the graph stage counts a batch before its commit lands (written beside the next)
        return loaded

    def client(self):
        return HttpClient(self.port, "/sparql")

    def stop(self):
        for p in reversed(self.procs):
            p.terminate()
            p.wait()


class Virtuoso:
    name = "virtuoso"

    def __init__(self, work, data, count):
        self.work, self.data, self.count = work, data, count
        self.proc = None

    def isql(self, sql):
        return subprocess.run(["isql-vt", str(self.sql_port), "dba", "dba", "exec=" + sql], check=True,
                              capture_output=True, text=True).stdout

    def start(self):
        db = os.path.join(self.work, "virtuoso")
        os.makedirs(db)
        shutil.copy(self.data, os.path.join(db, "data.nt"))
        self.sql_port, self.port = free_port(), free_port()
        with open("/etc/virtuoso-opensource-7/virtuoso.ini") as f:
            ini = f.read()
        ini = ini.replace("/var/lib/virtuoso-opensource-7/db", db)
        def setting(text, key, value, old=None):
            pattern = r"(?m)^\s*" + key + r"\s*=\s*" + (re.escape(old) if old else r"[^\n]*") + r"\s*$"
            text, n = re.subn(pattern, f"{key} = {value}", text, count=1)
            if n != 1:
                raise RuntimeError(f"virtuoso.ini: no {key} = {old or '...'} to set")
            return text
        ini = setting(ini, "ServerPort", self.sql_port, "1111")
        ini = setting(ini, "ServerPort", self.port, "8890")
        ini = setting(ini, "DirsAllowed", f"., /usr/share/virtuoso-opensource-7/vad, {db}")
        # The memory of a machine with ~4 GiB to spare (virtuoso.ini's own table of settings).
        ini = setting(ini, "NumberOfBuffers", 340000)
        ini = setting(ini, "MaxDirtyBuffers", 250000)
        ini = setting(ini, "ResultSetMaxRows", 1000000)
        ini_path = os.path.join(db, "virtuoso.ini")
        with open(ini_path, "w") as f:
            f.write(ini)
        log = open(os.path.join(self.work, "virtuoso.log"), "w")
        self.proc = subprocess.Popen(["virtuoso-t", "+foreground", "+configfile", ini_path], cwd=db, stdout=log,
                                     stderr=log)
        for _ in range(600):
            if subprocess.run(["isql-vt", str(self.sql_port), "dba", "dba", "exec=select 1;"],
                              capture_output=True).returncode == 0:
                break
            time.sleep(0.2)
        start = time.time()
        self.isql(f"ld_dir('{db}', 'data.nt', 'http://example.org/bench');")
        self.isql("rdf_loader_run();")
        self.isql("checkpoint;")
        return time.time() - start

    def client(self):
        return HttpClient(self.port, "/sparql", form_get=True)

    def stop(self):
        if self.proc:
            if self.proc.poll() is None:
                subprocess.run(["isql-vt", str(self.sql_port), "dba", "dba", "exec=shutdown;"], capture_output=True)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Oxigraph:
    name = "oxigraph"

    def __init__(self, work, data, count, modules):
        self.work, self.data, self.modules = work, data, modules

    def start(self):
        return None  # the node process loads and queries in one go (run_all)

    def run_all(self, queries, runs):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sparql_oxigraph.mjs")
        env = dict(os.environ, NODE_PATH=os.path.join(self.modules, "node_modules"))
        spec = os.path.join(self.work, "queries.json")
        with open(spec, "w") as f:
            json.dump({"data": self.data, "runs": runs, "queries": queries}, f)
        out = subprocess.run(["node", script, spec], check=True, capture_output=True, text=True, env=env,
                             cwd=self.modules).stdout
        return json.loads(out)

    def stop(self):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--statements", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--engines", default="webindex,virtuoso,oxigraph")
    ap.add_argument("--oxigraph-modules", default="")
    ap.add_argument("--queries", default=os.path.join(ROOT, "tests", "bench", "sparql", "*.rq"))
    a = ap.parse_args()
    queries, variants = {}, {}  # name -> text; name -> webindex's text
    for f in sorted(glob.glob(a.queries)):
        name = os.path.basename(f)[:-3]
        if name.endswith(".webindex"):
            variants[name[:-len(".webindex")]] = open(f).read()
        else:
            queries[name] = open(f).read()
    work = tempfile.mkdtemp(prefix="webindex-sparql-peers-")
    data = os.path.join(work, "data.nt")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "bench", "gen_sparql_data.py"), "--statements",
                    str(a.statements), "--subjects", str(a.statements // 10), data], check=True)
    results = {}
    names = a.engines.split(",")
    engines = []
    try:
        if "oxigraph" in names:
            out = Oxigraph(work, data, a.statements, a.oxigraph_modules).run_all(queries, a.runs)
            results["oxigraph"] = {"load_s": out["load_s"], "queries": out["queries"]}
            print(f"oxigraph: loaded in {out['load_s']:.1f} s", flush=True)
        for name in names:
            if name == "oxigraph":
                continue
            engine = Webindex(work, data, a.statements) if name == "webindex" else Virtuoso(work, data, a.statements)
            engines.append(engine)
            load_s = engine.start()
            print(f"{name}: loaded in {load_s:.1f} s", flush=True)
            results[name] = {"load_s": load_s, "queries": {}}
        clients = [(e.name, e.client()) for e in engines]
        for q, text in queries.items():
            times = {n: [] for n, _ in clients}
            rows = {}
            for i in range(a.runs + 1):  # the engines take turns, request by request
                for n, c in clients:
                    elapsed, rows[n] = c.once(variants.get(q, text) if n == "webindex" else text)
                    if i > 0:
                        times[n].append(elapsed)
            for n, _ in clients:
                results[n]["queries"][q] = {"p50": percentile(times[n], 50), "p99": percentile(times[n], 99),
                                            "rows": rows[n]}
        for _, c in clients:
            c.close()
    except Exception:
        print("logs kept in " + work, file=sys.stderr)
        raise
    finally:
        for e in engines:
            e.stop()
    names = [n for n in names if n in results]
    shutil.rmtree(work, ignore_errors=True)
    print("query       " + "".join(f"{n:>28}" for n in names))
    for q in queries:
        cells = []
        for n in names:
            r = results[n]["queries"].get(q)
            cells.append(f"{r['p50']:9.2f} / {r['p99']:8.2f} ms ({r['rows']:>5})" if r else " " * 28)
        print(f"{q:12}" + "".join(f"{c:>28}" for c in cells))
    rows = {q: {results[n]["queries"][q]["rows"] for n in names if q in results[n]["queries"]} for q in queries}
    disagree = [q for q, r in rows.items() if len(r) > 1]
    if disagree:
        print("rows differ between engines for: " + ", ".join(disagree), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
