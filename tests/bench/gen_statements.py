#!/usr/bin/env python3
"""Writes N generated RDF statements as N-Triples to stdout, for measuring the graph store
(docs/performance.md, "Graph store"): subjects and IRI objects from a pool of pages, 20
predicates, one statement in three with a language-tagged literal object. Lines come in
random order; `sort` them to group them by subject.

Usage: gen_statements.py N [SUBJECTS] [SEED] > statements.nt
"""
import random
import sys


def main():
    n = int(sys.argv[1])
    subjects = int(sys.argv[2]) if len(sys.argv) > 2 else max(1, n // 10)
    random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    out = sys.stdout
    for i in range(n):
        s = random.randrange(subjects)
        p = random.randrange(20)
        o = random.randrange(subjects * 5)
        if i % 3 == 0:
            out.write(f'<http://example.org/page/{s}> <http://example.org/p{p}> "literal value {o} with some text"@en .\n')
        else:
            out.write(f'<http://example.org/page/{s}> <http://example.org/p{p}> <http://example.org/page/{o}> .\n')


if __name__ == "__main__":
    main()
