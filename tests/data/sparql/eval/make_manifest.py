#!/usr/bin/python3
"""Copies the files of the W3C SPARQL query evaluation tests here and writes manifest.txt.

Usage: make_manifest.py RDF_TESTS_DIR   (a checkout of github.com/w3c/rdf-tests)
Every mf:QueryEvaluationTest (and mf:CSVResultFormatTest) of sparql/sparql11/*/manifest.ttl and sparql/sparql10/*/manifest.ttl
(approval neither NotApproved nor Withdrawn) is one line of manifest.txt; the tests of an
entailment regime (sd:entailmentRegime) and of federation (qt:serviceData) get a line marked
out-of-scope and no files. RDF/XML files (data and result sets) are copied as N-Triples
(<file>.nt beside the name they keep in the manifest), so that the harness reads Turtle, TriG
and N-Triples only.
"""
import os
import re
import shutil
import sys

import rdflib
from rdflib.collection import Collection
from rdflib.compare import to_canonical_graph

MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
DAWGT = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#")
UT = rdflib.Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
SD = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
RDFS = rdflib.RDFS
BASE = "https://w3c.github.io/rdf-tests/sparql/"  # w3c_suite.h's kBase
HEADER = """\
# W3C SPARQL 1.1 / 1.0 query evaluation tests, one per line, fields separated by tabs:
#   <folder> <test> <run|out-of-scope> <query> <data,...> <graph=file,...> <result> <flags>
# Files are relative to <folder>; `-` is an empty field. A graph's name is its IRI relative to
# the folder (the harness resolves it against the folder's base IRI). RDF/XML files are read from
# <file>.nt. flags: lax (mf:LaxCardinality, REDUCED) or -. out-of-scope lines give the reason in
# place of the query. From https://github.com/w3c/rdf-tests (W3C test suite license, LICENSE).
# Regenerate with make_manifest.py; do not edit by hand.
"""


def rel(uri, folder_uri):
    s = str(uri)
    assert s.startswith(folder_uri), (s, folder_uri)
    return s[len(folder_uri):]


def stable_ntriples(g):
    """N-Triples in a canonical form (rdflib's canonical blank nodes, lines sorted, then labelled
    b0, b1, ... in order), so that a regeneration writes the same bytes."""
    lines = to_canonical_graph(g).serialize(format="nt").strip().split("\n")
    bnode = re.compile(r"_:[A-Za-z0-9]+")
    lines.sort()
    labels = {}
    def label(m):
        return labels.setdefault(m.group(0), f"_:b{len(labels)}")
    return "".join(bnode.sub(label, line) + "\n" for line in lines if line)


def copy(src_dir, out_dir, name, folder):
    os.makedirs(out_dir, exist_ok=True)
    src = os.path.join(src_dir, name)
    if name.endswith(".rdf"):
        g = rdflib.Graph()
        g.parse(src, format="xml", publicID=BASE + folder + "/" + name)  # the harness's base
        with open(os.path.join(out_dir, name + ".nt"), "w", encoding="utf-8") as out:
            out.write(stable_ntriples(g))
    else:
        shutil.copyfile(src, os.path.join(out_dir, name))


def main():
    root = os.path.join(sys.argv[1], "sparql")
    here = os.path.dirname(os.path.abspath(__file__))
    lines = []
    for top in ("sparql11", "sparql10"):
        for sub in sorted(os.listdir(os.path.join(root, top))):
            path = os.path.join(root, top, sub, "manifest.ttl")
            if not os.path.isfile(path):
                continue
            folder = f"{top}/{sub}"
            folder_uri = "file://" + os.path.abspath(os.path.join(root, top, sub)) + "/"
            g = rdflib.Graph()
            g.parse(path, format="turtle", publicID=folder_uri + "manifest.ttl")
            for man in g.subjects(rdflib.RDF.type, MF.Manifest):
                head = g.value(man, MF.entries)
                for e in (Collection(g, head) if head else []):
                    if not any((e, rdflib.RDF.type, t) in g for t in (MF.QueryEvaluationTest, MF.CSVResultFormatTest)):
                        continue
                    approval = str(g.value(e, DAWGT.approval) or "")
                    if approval.endswith(("NotApproved", "Withdrawn")):
                        continue
                    test = str(e).split("#")[-1] if "#" in str(e) else rel(e, folder_uri)
                    act = g.value(e, MF.action)
                    if g.value(act, SD.entailmentRegime) is not None:
                        lines.append(f"{folder}\t{test}\tout-of-scope\tentailment regime")
                        continue
                    if g.value(act, QT.serviceData) is not None or sub == "service":
                        lines.append(f"{folder}\t{test}\tout-of-scope\tSERVICE (federation)")
                        continue
                    src_dir = os.path.join(root, top, sub)
                    out_dir = os.path.join(here, top, sub)
                    query = rel(g.value(act, QT.query), folder_uri)
                    data = sorted(rel(d, folder_uri) for d in g.objects(act, QT.data))
                    graphs = []
                    for gd in g.objects(act, QT.graphData):
                        if isinstance(gd, rdflib.BNode):
                            graphs.append((str(g.value(gd, RDFS.label)), rel(g.value(gd, UT.graph), folder_uri)))
                        else:
                            graphs.append((rel(gd, folder_uri), rel(gd, folder_uri)))
                    graphs.sort()
                    result = rel(g.value(e, MF.result), folder_uri)
                    # The files a query's FROM / FROM NAMED name: the harness loads them by IRI.
                    text = open(os.path.join(src_dir, query), encoding="utf-8").read()
                    from_files = [f for f in re.findall(r"FROM\s+(?:NAMED\s+)?<([^>:]*)>", text, re.I)
                                  if os.path.isfile(os.path.join(src_dir, f))]
                    for name in [query, result] + data + [f for _, f in graphs] + from_files:
                        copy(src_dir, out_dir, name, folder)
                    lax = "lax" if g.value(e, MF.resultCardinality) == MF.LaxCardinality else "-"
                    gfield = ",".join(f"{n}={f}" for n, f in graphs) or "-"
                    lines.append("\t".join([folder, test, "run", query, ",".join(data) or "-", gfield, result, lax]))
    shutil.copyfile(os.path.join(root, "sparql10", "LICENSE"), os.path.join(here, "LICENSE"))
    with open(os.path.join(here, "manifest.txt"), "w", encoding="utf-8") as out:
        out.write(HEADER)
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
