#!/usr/bin/python3
"""Copies the W3C SPARQL syntax tests into syntax/ and writes manifest.txt from their manifests.

Usage: make_manifest.py RDF_TESTS_DIR   (a checkout of github.com/w3c/rdf-tests)
Every mf:entries item of each folder's manifest.ttl is one line: <folder>/<file> positive|negative.
Lines of expected.txt (<folder>/<file> <reason>) mark cases the parser is known to get wrong;
they are written with the word "known-failure" and the reason, and the unit test fails when such
a case starts to pass, so the list stays true.
"""
import os
import shutil
import sys

import rdflib

MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
FOLDERS = ["sparql11/syntax-query"] + [f"sparql10/syntax-sparql{i}" for i in range(1, 6)]
KINDS = {
    MF.PositiveSyntaxTest11: "positive", MF.PositiveSyntaxTest: "positive",
    MF.NegativeSyntaxTest11: "negative", MF.NegativeSyntaxTest: "negative",
}
HEADER = """\
# SPARQL 1.1 / 1.0 query syntax cases: <folder>/<file> <positive|negative> [known-failure <reason>]
# From the W3C SPARQL test suites (https://github.com/w3c/rdf-tests, sparql/sparql11/syntax-query
# and sparql/sparql10/syntax-sparql1..5; W3C test suite license, syntax/LICENSE), each file with
# the outcome its folder's manifest.ttl gives (mf:PositiveSyntaxTest[11] / NegativeSyntaxTest[11]),
# in the order of mf:entries. Regenerate with make_manifest.py.
"""


def entries(graph, manifest):
    head = graph.value(manifest, MF.entries)
    return list(rdflib.collection.Collection(graph, head)) if head else []


def main():
    src = os.path.join(sys.argv[1], "sparql")
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = os.path.join(here, "syntax")
    known = {}
    expected = os.path.join(here, "expected.txt")
    if os.path.exists(expected):
        for line in open(expected, encoding="utf-8"):
            if line.strip() and not line.startswith("#"):
                name, reason = line.rstrip("\n").split(" ", 1)
                known[name] = reason
    lines = []
    for folder in FOLDERS:
        path = os.path.join(src, folder, "manifest.ttl")
        graph = rdflib.Graph()
        base = "file://" + os.path.abspath(path)
        graph.parse(path, format="turtle", publicID=base)
        manifest = rdflib.URIRef(base)
        os.makedirs(os.path.join(out_dir, folder), exist_ok=True)
        for test in entries(graph, manifest):
            kind = KINDS.get(graph.value(test, rdflib.RDF.type))
            if kind is None:
                continue
            action = str(graph.value(test, MF.action))
            name = os.path.basename(action)
            shutil.copyfile(os.path.join(src, folder, name), os.path.join(out_dir, folder, name))
            rel = f"{folder}/{name}"
            line = f"{rel} {kind}"
            if rel in known:
                line += f" known-failure {known[rel]}"
            lines.append(line)
    shutil.copyfile(os.path.join(src, "sparql10", "LICENSE"), os.path.join(out_dir, "LICENSE"))
    with open(os.path.join(here, "manifest.txt"), "w", encoding="utf-8") as f:
        f.write(HEADER + "\n".join(lines) + "\n")
    print(f"{len(lines)} cases")


main()
