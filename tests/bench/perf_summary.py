#!/usr/bin/env python3
"""Summarizes a `perf record -g` profile of `webindex bench` by thread role and phase.

    perf record -e cpu-clock -F 499 --call-graph dwarf,16384 -o perf.data -- \
        build/webindex bench --pages 50000 --no-count-uris
    perf script -i perf.data -F comm,tid,ip,sym,dso > perf.txt
    tests/bench/perf_summary.py perf.txt

Stage threads are told apart by the Stage::Process they run; a sample's phase is the innermost
frame that matches one of PHASES, so URL parsing inside event decoding counts as URL parsing.
"""
import collections
import re
import sys

ROLES = [  # (role, frame pattern) for webindex's own threads
    ("page stage", r"PageStage::Process"),
    ("uri stage", r"UriStage::Process"),
    ("domain stage", r"DomainStage::Process"),
    ("sink stage", r"SinkStage::Process"),
    ("bench main thread (generate, produce, lag checks, raw consume)", r"bench::(Feeder::|.*BenchRun::|MeasureRawConsume)"),
    ("bench latency poller", r"LatencyProbes::Poll"),
    ("producer poll thread", r"Producer::Create"),
]

PHASES = [  # innermost match wins
    ("URL parse/resolve (model::ParseUrl, ResolveLink, libpsl, uriparser)", r"model::(ParseUrl|ResolveLink|Url::)|psl_|uriParse|uriResolve|uriNormalize"),
    ("JSON decode (simdjson, codec decoders)", r"EventDecoder|RecordDecoder|simdjson"),
    ("JSON/binary encode (codec::Encode*, JsonWriter)", r"codec::(Encode|JsonWriter)|EncodeOutRecord|EncodePageState|EncodeCounted"),
    ("RocksDB write (Store::Write: WAL + memtable)", r"state::Store::Write"),
    ("RocksDB read (MultiGet/Get)", r"state::Store::(MultiGet|Get)"),
    ("RocksDB scan (iterators)", r"state::.*Iterator|rocksdb::DBIter"),
    ("Kafka produce (Producer::Produce)", r"kafka::Producer::Produce"),
    ("Kafka consume (Consumer::PollBatch)", r"kafka::Consumer::PollBatch|MessageBatch"),
    ("Kafka admin (lag/watermarks)", r"kafka::Admin|Processor::(Lag|Idle)"),
    ("table rows (sink::TableWriter, keys)", r"sink::(TableWriter|EncodeCellKey|PageRow|TotalRow|RankRow)"),
    ("synthetic crawl generation", r"bench::SyntheticCrawl"),
    ("page diff / combine / dedupe (stage logic)", r"pipeline::|sink::SinkStage"),
]


def read_samples(path):
    comm = tid = None
    frames = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                if comm is not None:
                    yield comm, tid, frames
                comm, frames = None, []
                continue
            if not line.startswith("\t"):  # "<comm> <tid>"; stack frames are tab-indented
                parts = line.split()
                comm, tid = " ".join(parts[:-1]), parts[-1]
                continue
            m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)$", line)
            if m:
                frames.append((m.group(1), m.group(2)))
    if comm is not None:
        yield comm, tid, frames


def main(path):
    samples = list(read_samples(path))
    tid_role = collections.defaultdict(collections.Counter)
    for comm, tid, frames in samples:
        for sym, _ in frames:
            for role, pat in ROLES:
                if re.search(pat, sym):
                    tid_role[tid][role] += 1
    by_role = collections.Counter()
    phases = collections.defaultdict(collections.Counter)
    selfsym = collections.Counter()
    for comm, tid, frames in samples:
        if comm.startswith("rdk:mock"):
            role = "embedded broker (rdk:mock)"
        elif comm.startswith("rdk:"):
            role = "librdkafka client threads (rdk:broker*, rdk:main)"
        elif comm.startswith("rocksdb:"):
            role = "RocksDB background (flush/compaction)"
        elif tid_role[tid]:
            role = tid_role[tid].most_common(1)[0][0]
        else:
            role = "other webindex threads"
        by_role[role] += 1
        phase = "other"
        for sym, _ in frames:
            hit = next((name for name, pat in PHASES if re.search(pat, sym)), None)
            if hit:
                phase = hit
                break
        phases[role][phase] += 1
        if frames:
            selfsym[f"{frames[0][0][:90]} [{frames[0][1].split('/')[-1]}]"] += 1
    total = len(samples)
    print(f"{total} samples (cpu-clock) of the whole process\n")
    print("| thread role | share of CPU | top phases within it |")
    print("|---|---:|---|")
    for role, n in by_role.most_common():
        top = ", ".join(f"{p} {100 * c / n:.0f}%" for p, c in phases[role].most_common(4))
        print(f"| {role} | {100 * n / total:.1f}% | {top} |")
    print("\nAll threads by phase:\n")
    overall = collections.Counter()
    for role in phases:
        overall.update(phases[role])
    for p, c in overall.most_common():
        print(f"  {100 * c / total:5.1f}%  {p}")
    print("\nTop self functions:\n")
    for s, c in selfsym.most_common(25):
        print(f"  {100 * c / total:5.1f}%  {s}")


if __name__ == "__main__":
    main(sys.argv[1])
