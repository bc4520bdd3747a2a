#!/usr/bin/env python3
"""Writes N generated crawl events as JSON lines to stdout, for `webindex load` into a broker
that processes outside one `webindex bench` run (docs/scale-out.md, "Sizing"): pages spread
over 5,000 domains, 5-15 links each (10 on average) with anchor text, link targets skewed
towards a few popular URIs of a space four times the pages.

Usage: gen_crawl.py N [SEED] > crawl.jsonl
"""
import json
import random
import sys


def main():
    n = int(sys.argv[1])
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    domains, space = 5000, 4 * n

    def url(j):
        return f"http://www.site{j % domains}.com/a/{j // domains}.html"

    def target():
        return min(int(space * rng.random() ** 2.5), space - 1)

    out = sys.stdout
    for i in range(n):
        links = [{"url": url(target()), "anchorText": f"link {k}"} for k in range(rng.randint(5, 15))]
        event = {"url": url(i), "crawlDate": "2026-11-27T08:00:00Z", "title": f"page {i}", "outboundLinks": links}
        out.write(json.dumps(event, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
