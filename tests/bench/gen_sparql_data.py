#!/usr/bin/env python3
"""gen_sparql_data.py [--subjects N] [--statements M] [--seed S] OUT.nt

The data of the SPARQL benchmarks (sparql_peers.py, docs/performance.md "SPARQL"): N subjects
<http://example.org/s/I>, 50 predicates <http://example.org/p/J>, M distinct statements.
Predicates p0..p9 take literals of 2 to 6 words (a third of all statements), p10..p12
xsd:dateTime values (5%), the others IRIs of subjects. Uniform choices, seeded, deterministic.
"""
import argparse
import random

WORDS = ("graph stream kafka index query table page link crawl text search store event time "
         "order join scan range batch commit node edge rank domain title anchor server web "
         "data fact value term literal iri blank triple quad filter optional union minus").split()
XSD_DATETIME = "<http://www.w3.org/2001/XMLSchema#dateTime>"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--subjects", type=int, default=100_000)
    ap.add_argument("--statements", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("out")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    seen = set()
    with open(a.out, "w") as f:
        while len(seen) < a.statements:
            s = rng.randrange(a.subjects)
            kind = rng.random()
            if kind < 1 / 3:
                p = rng.randrange(10)
                o = '"' + " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))) + '"'
            elif kind < 1 / 3 + 0.05:
                p = 10 + rng.randrange(3)
                o = '"%04d-%02d-%02dT%02d:%02d:%02dZ"^^%s' % (
                    rng.randint(1995, 2025), rng.randint(1, 12), rng.randint(1, 28), rng.randrange(24),
                    rng.randrange(60), rng.randrange(60), XSD_DATETIME)
            else:
                p = 13 + rng.randrange(37)
                o = "<http://example.org/s/%d>" % rng.randrange(a.subjects)
            line = "<http://example.org/s/%d> <http://example.org/p/%d> %s .\n" % (s, p, o)
            if line in seen:
                continue
            seen.add(line)
            f.write(line)


if __name__ == "__main__":
    main()
