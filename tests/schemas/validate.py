#!/usr/bin/env python3
"""Validates webindex records against the JSON Schemas in <source>/schemas/.

Usage:
  validate.py --examples-only
      Self-check only: every schema is a valid draft 2020-12 schema with a title, a description
      and examples; every example validates; every known-bad record below is REJECTED (so a
      schema that accepts anything fails this check).
  validate.py [--min-records N] SCHEMA FILE...
      The self-check, then every line of each FILE (JSON lines; blank lines skipped) against
      SCHEMA ("export" or "export.schema.json"). Fails when fewer than N records were read.

Exit status: 0 all good; 1 a record or example is invalid, or a known-bad record is accepted;
2 usage or unreadable input; 3 the jsonschema module is missing (apt-get install
python3-jsonschema).

Needs only python3-jsonschema (Debian bookworm: 4.10; newer versions work too). The format
"date-time" is checked by a built-in RFC 3339 checker (the same rules as the event decoder), so
no optional format packages are needed. Schemas refer to each other by file name
("page.schema.json#/$defs/uri"), resolved against the schema directory.
"""

import argparse
import calendar
import json
import re
import sys
from pathlib import Path

try:
    import jsonschema
    from jsonschema import Draft202012Validator, FormatChecker
except ImportError:  # pragma: no cover
    print("validate.py: the Python module jsonschema is missing (apt-get install python3-jsonschema)",
          file=sys.stderr)
    sys.exit(3)

DEFAULT_SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
MAX_REPORTED = 20

# Records each schema must reject. Every schema in the directory needs an entry, so a new
# schema cannot slip in without a negative check.
PAGE = {
    "url": "http://a.com/1", "uri": "com.a>>o>/1", "crawlDate": "2015-07-28T03:06:17Z",
    "numOutbound": 1,
    "outboundLinks": [{"url": "http://b.com/1", "uri": "com.b>>o>/1", "anchorText": "b1"}],
}


def with_(base, **changes):
    out = json.loads(json.dumps(base))
    for k, v in changes.items():
        if v is _DROP:
            out.pop(k, None)
        else:
            out[k] = v
    return out


_DROP = object()
LINK = PAGE["outboundLinks"][0]

KNOWN_BAD = {
    "crawl-event": [
        ("not an object (array)", [{"url": "http://a.com/1"}]),
        ("not an object (string)", "http://a.com/1"),
        ("url missing", {"crawlDate": "2015-07-28T03:06:17Z"}),
        ("url null", {"url": None}),
        ("url a number", {"url": 5}),
        ("url not http(s)", {"url": "ftp://a.com/file"}),
        ("url with '>'", {"url": "http://a.com/a>b"}),
        ("deleted a string", {"url": "http://a.com/1", "deleted": "yes"}),
        ("deleted \"true\"", {"url": "http://a.com/1", "deleted": "true"}),
        ("crawlDate a number", {"url": "http://a.com/1", "crawlDate": 5}),
        ("crawlDate not RFC 3339", {"url": "http://a.com/1", "crawlDate": "yesterday"}),
        ("revision negative", {"url": "http://a.com/1", "revision": -1}),
        ("revision a string", {"url": "http://a.com/1", "revision": "3"}),
        ("revision a fraction", {"url": "http://a.com/1", "revision": 1.5}),
        ("crawlDate without zone", {"url": "http://a.com/1", "crawlDate": "2015-07-28T03:06:17"}),
        ("crawlDate Feb 30", {"url": "http://a.com/1", "crawlDate": "2015-02-30T03:06:17Z"}),
        ("crawlDate Feb 29 of 1900", {"url": "http://a.com/1", "crawlDate": "1900-02-29T03:06:17Z"}),
        ("crawlDate hour 24", {"url": "http://a.com/1", "crawlDate": "2015-07-28T24:00:00Z"}),
        ("crawlDate offset without colon", {"url": "http://a.com/1", "crawlDate": "2015-07-28T03:06:17+0200"}),
        ("outboundLinks an object", {"url": "http://a.com/1", "outboundLinks": {"url": "http://b.com/"}}),
        ("link a number", {"url": "http://a.com/1", "outboundLinks": [5]}),
        ("link without url", {"url": "http://a.com/1", "outboundLinks": [{"anchorText": "x"}]}),
        ("link url a number", {"url": "http://a.com/1", "outboundLinks": [{"url": 7}]}),
        ("link url null", {"url": "http://a.com/1", "outboundLinks": [{"url": None}]}),
        ("anchorText a number", {"url": "http://a.com/1", "outboundLinks": [{"url": "/x", "anchorText": 3}]}),
        ("url with a NUL inside", {"url": "http://a.com/a\u0000b"}),
        ("url with a NUL before it", {"url": "\u0000http://a.com/1"}),
        ("url with a control character after it", {"url": "http://a.com/1\u0001"}),
        ("url with DEL", {"url": "http://a.com/a\u007fb"}),
        ("url with a tab inside", {"url": "http://a.com/a\tb"}),
        ("crawlDate with 10 fraction digits", {"url": "http://a.com/1",
                                               "crawlDate": "2015-07-28T03:06:17.1234567891Z"}),
        ("title a number", {"url": "http://a.com/1", "title": 5}),
        ("title an object", {"url": "http://a.com/1", "title": {"text": "x"}}),
        ("server a number", {"url": "http://a.com/1", "server": 5}),
        ("server an object", {"url": "http://a.com/1", "server": {"name": "nginx"}}),
    ],
    "page": [
        ("missing uri", with_(PAGE, uri=_DROP)),
        ("missing numOutbound", with_(PAGE, numOutbound=_DROP)),
        ("missing outboundLinks", with_(PAGE, outboundLinks=_DROP)),
        ("unknown field", with_(PAGE, deleted=False)),
        ("null title (written pages omit it)", with_(PAGE, title=None)),
        ("uri not in URI form", with_(PAGE, uri="http://a.com/1")),
        ("url not canonical (no path)", with_(PAGE, url="http://a.com")),
        ("crawlDate not RFC 3339", with_(PAGE, crawlDate="28 Jul 2015")),
        ("numOutbound negative", with_(PAGE, numOutbound=-1)),
        ("numOutbound a string", with_(PAGE, numOutbound="1")),
        ("link without uri", with_(PAGE, outboundLinks=[with_(LINK, uri=_DROP)])),
        ("link without anchorText", with_(PAGE, outboundLinks=[with_(LINK, anchorText=_DROP)])),
        ("link with unknown field", with_(PAGE, outboundLinks=[with_(LINK, extra=1)])),
        ("not an object", None),
    ],
    "uri-delta": [
        ("missing docs", {"src": "page", "seq": 1, "uri": "com.a>>o>/1", "linksTo": 1}),
        ("missing src", {"seq": 1, "uri": "com.a>>o>/1", "linksTo": 1, "docs": 0}),
        ("unknown field", {"src": "page", "seq": 1, "uri": "com.a>>o>/1", "linksTo": 1, "docs": 0, "x": 1}),
        ("negative seq", {"src": "page", "seq": -1, "uri": "com.a>>o>/1", "linksTo": 1, "docs": 0}),
        ("linksTo a string", {"src": "page", "seq": 1, "uri": "com.a>>o>/1", "linksTo": "1", "docs": 0}),
        ("docs fractional", {"src": "page", "seq": 1, "uri": "com.a>>o>/1", "linksTo": 1, "docs": 0.5}),
        ("uri not in URI form", {"src": "page", "seq": 1, "uri": "http://a.com/1", "linksTo": 1, "docs": 0}),
        ("inst a group without a name", {"src": "page", "seq": 1, "gen": 1, "uri": "com.a>>o>/1", "linksTo": 1,
                                         "docs": 0, "inst": "group:"}),
        ("inst not 16 hex digits", {"src": "page", "seq": 1, "gen": 1, "uri": "com.a>>o>/1", "linksTo": 1, "docs": 0,
                                    "inst": "5f0c3e1a9b2d4c6"}),
    ],
    "domain-delta": [
        ("missing pages", {"src": "uri", "seq": 1, "domain": "com.a"}),
        ("unknown field", {"src": "uri", "seq": 1, "domain": "com.a", "pages": 1, "uri": "com.a>>o>/"}),
        ("empty domain", {"src": "uri", "seq": 1, "domain": "", "pages": 1}),
        ("domain is a uri", {"src": "uri", "seq": 1, "domain": "com.a>>o>/", "pages": 1}),
        ("pages a string", {"src": "uri", "seq": 1, "domain": "com.a", "pages": "1"}),
        ("inst a group without a name", {"src": "uri", "seq": 1, "gen": 1, "domain": "com.a", "pages": 1,
                                         "inst": "group:"}),
        ("inst in capitals", {"src": "uri", "seq": 1, "gen": 1, "domain": "com.a", "pages": 1,
                              "inst": "5F0C3E1A9B2D4C67"}),
    ],
    "group-generation": [
        ("generation 0", {"generation": 0, "state": "switched", "from_ms": -1, "indexes": "", "switch_lag": 0,
                          "at_ms": 1}),
        ("unknown state", {"generation": 2, "state": "done", "from_ms": -1, "indexes": "", "switch_lag": 0,
                           "at_ms": 1}),
        ("missing state", {"generation": 2, "from_ms": -1, "indexes": "", "switch_lag": 0, "at_ms": 1}),
        ("from before -1", {"generation": 2, "state": "building", "from_ms": -2, "indexes": "", "switch_lag": 0,
                            "at_ms": 1}),
    ],
    "instance-claim": [
        ("missing stopped", {"instance": "5f0c3e1a9b2d4c67", "dataDir": "/d", "host": "h", "pid": 1,
                             "heartbeatMs": 1, "intervalMs": 2000}),
        ("instance not an id", {"instance": "", "dataDir": "/d", "host": "h", "pid": 1, "heartbeatMs": 1,
                                "intervalMs": 2000, "stopped": False}),
        ("pid a string", {"instance": "5f0c3e1a9b2d4c67", "dataDir": "/d", "host": "h", "pid": "1",
                          "heartbeatMs": 1, "intervalMs": 2000, "stopped": False}),
    ],
    "fence": [
        ("missing epoch", {"type": "fence", "task": "uri.3", "gen": 1}),
        ("epoch 0 (no owner change)", {"type": "fence", "task": "uri.3", "epoch": 0, "gen": 1}),
        ("task without partition", {"type": "fence", "task": "uri", "epoch": 1, "gen": 1}),
        ("another type", {"type": "generation", "task": "uri.3", "epoch": 1, "gen": 1}),
        ("unknown field", {"type": "fence", "task": "uri.3", "epoch": 1, "gen": 1, "seq": 1}),
    ],
    "export": [
        ("unknown type", {"type": "table", "key": "com.a>>o>/1", "seq": 1}),
        ("missing type", {"key": "com.a>>o>/1", "seq": 1, "page": None}),
        ("page export without page", {"type": "page", "key": "com.a>>o>/1", "seq": 1}),
        ("page export with invalid page", {"type": "page", "key": "com.a>>o>/1", "seq": 1,
                                           "page": with_(PAGE, numOutbound=_DROP)}),
        ("page export with uri fields", {"type": "page", "key": "com.a>>o>/1", "seq": 1, "page": None,
                                         "linksTo": 0, "docs": 0}),
        ("uri export without docs", {"type": "uri", "key": "com.a>>o>/1", "seq": 1, "linksTo": 1}),
        ("uri export with docs 2", {"type": "uri", "key": "com.a>>o>/1", "seq": 1, "linksTo": 1, "docs": 2}),
        ("uri export with docs -1", {"type": "uri", "key": "com.a>>o>/1", "seq": 1, "linksTo": 0, "docs": -1}),
        ("uri export with negative linksTo", {"type": "uri", "key": "com.a>>o>/1", "seq": 1, "linksTo": -1,
                                              "docs": 1}),
        ("uri export with a page", {"type": "uri", "key": "com.a>>o>/1", "seq": 1, "linksTo": 1, "docs": 0,
                                    "page": None}),
        ("domain export without pagecount", {"type": "domain", "key": "com.a", "seq": 1}),
        ("generation without gen", {"type": "generation", "key": "2", "seq": 0}),
        ("generation key not a number", {"type": "generation", "key": "com.a", "seq": 0, "gen": 2}),
        ("generation with a seq", {"type": "generation", "key": "2", "seq": 5, "gen": 2}),
        ("gen 0", {"type": "domain", "key": "com.a", "seq": 1, "gen": 0, "pagecount": 1}),
        ("domain export with negative pagecount", {"type": "domain", "key": "com.a", "seq": 1, "pagecount": -1}),
        ("domain export keyed by a uri", {"type": "domain", "key": "com.a>>o>/1", "seq": 1, "pagecount": 1}),
        ("missing seq", {"type": "domain", "key": "com.a", "pagecount": 1}),
        ("inst a group without a name", {"type": "domain", "key": "com.a", "seq": 1, "gen": 1, "pagecount": 1,
                                         "inst": "group:"}),
        ("inst neither a data dir nor a group", {"type": "domain", "key": "com.a", "seq": 1, "gen": 1, "pagecount": 1,
                                                 "inst": "crawl"}),
        ("page part 0 without parts", {"type": "page", "key": "com.a>>o>/1", "seq": 1, "gen": 1, "part": 0,
                                       "page": PAGE}),
        ("page parts 1", {"type": "page", "key": "com.a>>o>/1", "seq": 1, "gen": 1, "part": 0, "parts": 1,
                          "page": PAGE}),
        ("page part 0 without page", {"type": "page", "key": "com.a>>o>/1", "seq": 1, "gen": 1, "part": 0,
                                      "parts": 2, "outboundLinks": [LINK]}),
        ("page part 1 with a page", {"type": "page", "key": "com.a>>o>/1", "seq": 1, "gen": 1, "part": 1,
                                     "parts": 2, "page": PAGE}),
        ("page part 1 without links", {"type": "page", "key": "com.a>>o>/1", "seq": 1, "gen": 1, "part": 1,
                                       "parts": 2}),
        ("page part 1 with an invalid link", {"type": "page", "key": "com.a>>o>/1", "seq": 1, "gen": 1, "part": 1,
                                              "parts": 2, "outboundLinks": [with_(LINK, uri=_DROP)]}),
    ],
    "dead-letter": [
        ("missing headers", {"key": "k", "value": "v"}),
        ("missing reason", {"key": "k", "value": "v", "headers": {
            "source.topic": "pages", "source.partition": "0", "source.offset": "1"}}),
        ("empty reason", {"key": "k", "value": "v", "headers": {
            "reason": "", "source.topic": "pages", "source.partition": "0", "source.offset": "1"}}),
        ("offset not decimal", {"key": "k", "value": "v", "headers": {
            "reason": "r", "source.topic": "pages", "source.partition": "0", "source.offset": "x"}}),
        ("partition a number, not header text", {"key": "k", "value": "v", "headers": {
            "reason": "r", "source.topic": "pages", "source.partition": 0, "source.offset": "1"}}),
        ("value not a string", {"key": "k", "value": {"url": "http://a.com/"}, "headers": {
            "reason": "r", "source.topic": "pages", "source.partition": "0", "source.offset": "1"}}),
        ("unknown header", {"key": "k", "value": "v", "headers": {
            "reason": "r", "source.topic": "pages", "source.partition": "0", "source.offset": "1", "x": "y"}}),
        ("value.truncated not decimal", {"key": "k", "value": "v", "headers": {
            "reason": "r", "source.topic": "pages", "source.partition": "0", "source.offset": "1",
            "generation": "1", "value.truncated": "big"}}),
        ("undeliverable without target.partition", {"key": "k", "value": "v", "headers": {
            "reason": "undeliverable: x", "target.topic": "webindex.exports", "generation": "1"}}),
        ("both source and target", {"key": "k", "value": "v", "headers": {
            "reason": "r", "source.topic": "pages", "source.partition": "0", "source.offset": "1",
            "target.topic": "webindex.exports", "target.partition": "0", "generation": "1"}}),
    ],
    "pagerank": [
        ("result 0", {"generation": 1, "result": 0, "part": 1, "parts": 1, "computedAtMs": 0, "iterations": 10, "nodes": 0, "edges": 0,
                      "exports": {"topic": "t", "positions": []}, "firstRank": 1, "results": []}),
        ("score a string", {"generation": 1, "result": 1, "part": 1, "parts": 1, "computedAtMs": 0, "iterations": 10, "nodes": 1,
                            "edges": 0, "exports": {"topic": "t", "positions": [0]}, "firstRank": 1,
                            "results": [{"url": "http://a.com/", "score": "1.5"}]}),
        ("no exports", {"generation": 1, "result": 1, "part": 1, "parts": 1, "computedAtMs": 0, "iterations": 10, "nodes": 0,
                        "edges": 0, "firstRank": 1, "results": []}),
    ],
}

# Records beyond the schemas' own examples that must be ACCEPTED (the lenient reading side).
KNOWN_GOOD = {
    "crawl-event": [
        ("url only", {"url": "http://a.com/1"}),
        ("nulls as absent", {"url": "http://a.com/1", "crawlDate": None, "revision": None, "deleted": None, "title": None,
                             "server": None, "outboundLinks": None}),
        ("webindex Page JSON with uri/numOutbound", PAGE),
        ("unknown fields", {"url": "HTTPS://A.com", "whatever": [1, 2], "outboundLinks": [{"url": "x", "y": 1}]}),
        ("lowercase t/z and offset", {"url": "http://a.com/1", "crawlDate": "2015-07-28t03:06:17.123+02:00"}),
        ("leap second", {"url": "http://a.com/1", "crawlDate": "2016-12-31T23:59:60Z"}),
        ("Feb 29 of a leap year", {"url": "http://a.com/1", "crawlDate": "2000-02-29T00:00:00Z"}),
        ("link url unresolvable (dropped, not invalid)", {"url": "http://a.com/1",
                                                         "outboundLinks": [{"url": "mailto:x@a.com"}]}),
        ("link url with a control character (dropped, not invalid)",
         {"url": "http://a.com/1", "outboundLinks": [{"url": "/a\u0000b"}]}),
        ("url with whitespace around it", {"url": " \t\r\nhttp://a.com/1 \t\r\n"}),
        ("crawlDate with 9 fraction digits", {"url": "http://a.com/1",
                                              "crawlDate": "2015-07-28T03:06:17.123456789+02:00"}),
    ],
    "page": [("no links", {"url": "http://a.com/", "uri": "com.a>>o>/", "numOutbound": 0,
                           "outboundLinks": []})],
}

_RFC3339 = re.compile(  # [0-9], not \d (which matches any Unicode digit); used with fullmatch
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?"
    r"([Zz]|[+-]([0-9]{2}):([0-9]{2}))")


def is_rfc3339(value):
    """RFC 3339 date-time, as codec ParseRfc3339 accepts it (leap second 60 allowed, a fraction of
    at most 9 digits)."""
    if not isinstance(value, str):
        return True
    m = _RFC3339.fullmatch(value)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)  # year 0000 is valid and leap
    if day > (29 if month == 2 and leap else calendar.mdays[month]):
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    if m.group(9) is not None and (int(m.group(9)) > 23 or int(m.group(10)) > 59):
        return False
    return True


def make_format_checker():
    checker = FormatChecker()
    checker.checks("date-time")(is_rfc3339)
    return checker


class Schemas:
    def __init__(self, directory):
        self.dir = Path(directory)
        self.schemas = {}
        for path in sorted(self.dir.glob("*.schema.json")):
            with open(path, encoding="utf-8") as f:
                self.schemas[path.name] = json.load(f)
        if not self.schemas:
            raise SystemExit(f"validate.py: no *.schema.json in {self.dir}")
        self.format_checker = make_format_checker()
        self._validators = {}

    @staticmethod
    def short(name):
        return name[: -len(".schema.json")] if name.endswith(".schema.json") else name

    def full(self, name):
        full = name if name.endswith(".schema.json") else name + ".schema.json"
        if full not in self.schemas:
            known = ", ".join(self.short(n) for n in self.schemas)
            print(f"validate.py: unknown schema '{name}' (known: {known})", file=sys.stderr)
            sys.exit(2)
        return full

    def validator(self, name):
        full = self.full(name)
        if full not in self._validators:
            schema = self.schemas[full]
            try:  # jsonschema >= 4.18
                from referencing import Registry, Resource
                from referencing.jsonschema import DRAFT202012
                registry = Registry().with_resources(
                    (n, Resource.from_contents(s, default_specification=DRAFT202012))
                    for n, s in self.schemas.items())
                v = Draft202012Validator(schema, registry=registry, format_checker=self.format_checker)
            except ImportError:  # jsonschema 4.10 (Debian bookworm)
                store = {(self.dir / n).resolve().as_uri(): s for n, s in self.schemas.items()}
                resolver = jsonschema.RefResolver(base_uri=(self.dir / full).resolve().as_uri(), referrer=schema,
                                                  store=store)
                v = Draft202012Validator(schema, resolver=resolver, format_checker=self.format_checker)
            self._validators[full] = v
        return self._validators[full]

    def errors(self, name, instance):
        """Messages of every violation; [] when the instance is valid."""
        out = []
        for e in sorted(self.validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path)):
            out.extend(describe(e))
        return out


def describe(error):
    """Messages for one error. For oneOf/anyOf, the reasons of the alternative that came closest
    (fewest violations), instead of the bare "is not valid under any of the given schemas"."""
    where = "/" + "/".join(str(p) for p in error.absolute_path)
    if not error.context:
        return [f"at {where}: {error.message}"]
    by_alternative = {}
    for sub in error.context:
        by_alternative.setdefault(sub.relative_schema_path[0], []).append(sub)
    closest = min(by_alternative.values(), key=lambda errs: (len(errs), -max(len(e.path) for e in errs)))
    out = [f"at {where}: matches none of the {error.validator} alternatives; the closest fails:"]
    for sub in closest:
        out.extend("  " + m for m in describe(sub))
    return out


def clip(text, limit=300):
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def self_check(schemas):
    """Returns the number of problems found in the schemas themselves."""
    problems = 0

    def fail(msg):
        nonlocal problems
        problems += 1
        print("FAIL " + msg)

    for full, schema in schemas.schemas.items():
        name = Schemas.short(full)
        try:
            Draft202012Validator.check_schema(schema)
        except jsonschema.exceptions.SchemaError as e:
            fail(f"{full}: not a valid draft 2020-12 schema: {e.message}")
            continue
        if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            fail(f"{full}: $schema is not draft 2020-12")
        for key in ("title", "description"):
            if not isinstance(schema.get(key), str) or not schema[key]:
                fail(f"{full}: no {key}")
        examples = schema.get("examples")
        if not isinstance(examples, list) or not examples:
            fail(f"{full}: no examples")
            examples = []
        for i, example in enumerate(examples):
            for err in schemas.errors(full, example):
                fail(f"{full}: examples[{i}] is invalid {err}")
        for label, record in KNOWN_GOOD.get(name, []):
            for err in schemas.errors(full, record):
                fail(f"{full}: known-good record '{label}' is rejected {err}")
        if name not in KNOWN_BAD:
            fail(f"{full}: no known-bad records in validate.py for this schema")
        for label, record in KNOWN_BAD.get(name, []):
            if not schemas.errors(full, record):
                fail(f"{full}: known-bad record '{label}' is ACCEPTED: {json.dumps(record)}")
    for name in KNOWN_BAD:
        if name + ".schema.json" not in schemas.schemas:
            fail(f"{name}.schema.json is missing from {schemas.dir}")
    total_bad = sum(len(v) for v in KNOWN_BAD.values())
    print(f"self-check: {len(schemas.schemas)} schemas, "
          f"{sum(len(s.get('examples', [])) for s in schemas.schemas.values())} examples, "
          f"{total_bad} known-bad records rejected: " + ("ok" if problems == 0 else f"{problems} problem(s)"))
    return problems


def validate_files(schemas, name, files):
    """Returns (records, invalid records)."""
    full = schemas.full(name)
    records = invalid = 0
    for file in files:
        try:
            f = open(file, encoding="utf-8")
        except OSError as e:
            print(f"validate.py: cannot read {file}: {e}", file=sys.stderr)
            sys.exit(2)
        with f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                records += 1
                try:
                    record = json.loads(line)
                    errors = schemas.errors(full, record)
                except ValueError as e:
                    errors = [f"not JSON: {e}"]
                if errors:
                    invalid += 1
                    if invalid <= MAX_REPORTED:
                        print(f"FAIL {file}:{lineno}: record is not a valid {Schemas.short(full)}: "
                              f"{clip(line.rstrip())}")
                        for err in errors[:8]:
                            print(f"     {clip(err, 600)}")
    if invalid > MAX_REPORTED:
        print(f"... and {invalid - MAX_REPORTED} more invalid records")
    print(f"{Schemas.short(full)}: {records} records in {len(files)} file(s), {invalid} invalid")
    return records, invalid


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples-only", action="store_true", help="only check the schemas themselves")
    parser.add_argument("--schemas", default=str(DEFAULT_SCHEMA_DIR), help="schema directory")
    parser.add_argument("--min-records", type=int, default=0, help="fail when fewer records were read")
    parser.add_argument("schema", nargs="?", help="schema name, e.g. export or export.schema.json")
    parser.add_argument("files", nargs="*", help="JSON-lines files")
    args = parser.parse_args(argv)
    if not args.examples_only and (not args.schema or not args.files):
        parser.error("give SCHEMA FILE... or --examples-only")
    if args.examples_only and args.schema:
        parser.error("--examples-only takes no files")

    schemas = Schemas(args.schemas)
    problems = self_check(schemas)
    if not args.examples_only:
        records, invalid = validate_files(schemas, args.schema, args.files)
        problems += invalid
        if records < args.min_records:
            print(f"FAIL {Schemas.short(schemas.full(args.schema))}: {records} records, "
                  f"expected at least {args.min_records}")
            problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
