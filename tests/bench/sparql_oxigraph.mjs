// The oxigraph side of sparql_peers.py: node sparql_oxigraph.mjs SPEC.json, SPEC = {data, runs,
// queries: {name: text}}. Loads the N-Triples into an in-memory Store, runs each query runs + 1
// times (the first a warm-up), prints {load_s, queries: {name: {p50, p99, rows}}} as JSON.
import fs from "fs";
import { createRequire } from "module";
const require = createRequire(process.cwd() + "/");
const oxigraph = require("oxigraph");
const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
let t0 = process.hrtime.bigint();
const store = new oxigraph.Store();
store.load(fs.readFileSync(spec.data, "utf8"), { format: "application/n-triples" });
const out = { load_s: Number(process.hrtime.bigint() - t0) / 1e9, queries: {} };
const pct = (ts, p) => ts[Math.max(0, Math.min(ts.length - 1, Math.ceil((p / 100) * ts.length) - 1))];
for (const [name, text] of Object.entries(spec.queries)) {
  const ts = [];
  let rows = 0;
  for (let i = 0; i <= spec.runs; i++) {
    t0 = process.hrtime.bigint();
    rows = 0;
    const result = store.query(text);
    if (typeof result === "boolean") rows = result ? 1 : 0;
    else for (const _ of result) rows++;
    if (i > 0) ts.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ts.sort((a, b) => a - b);
  out.queries[name] = { p50: pct(ts, 50), p99: pct(ts, 99), rows };
}
console.log(JSON.stringify(out));
