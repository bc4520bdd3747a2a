#!/usr/bin/env python3
"""Keeps docker/compose.yaml consistent with the code: Docker cannot run here, so instead of
starting the cluster this checks what would make it fail.

  - the Kafka services form one KRaft quorum: three brokers that are also controllers, distinct
    node ids, the same voter list naming each of them, a valid cluster id, each advertising the
    listener the webindex services bootstrap from;
  - every webindex service runs the image docker/Dockerfile builds (entrypoint `webindex`), and
    every option of its command is one that `webindex <subcommand> --help` lists;
  - the members of the group share one --group name and --partitions count, have distinct
    --group-instance-id and a data dir on a volume of their own; at least two run stages; one
    replica runs none and serves --http on a port published on loopback; members of a partitioned
    table (--table-shard) serve --http on a port published on loopback and advertise their
    service name and that port (--http-advertise), which the other members reach them at;
  - topic names given anywhere are ones topics/ declares;
  - README.md's commands use the compose file and name services it has.

Usage: compose_test.py --binary build/webindex --source .
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tomllib

import yaml

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def options_of(binary, subcommand):
    text = subprocess.run([binary, subcommand, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[A-Za-z])\b", text))


def option_values(argv):
    """{option: value or True} of an argv that follows `webindex <subcommand>`."""
    out, i = {}, 0
    while i < len(argv):
        arg = str(argv[i])
        if arg.startswith("-"):
            if i + 1 < len(argv) and not str(argv[i + 1]).startswith("-"):
                out[arg] = str(argv[i + 1])
                i += 2
                continue
            out[arg] = True
        i += 1
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--source", required=True)
    args = parser.parse_args()
    src = args.source
    with open(os.path.join(src, "docker/compose.yaml"), encoding="utf-8") as f:
        compose = yaml.safe_load(f)
    services = compose["services"]
    volumes = set((compose.get("volumes") or {}).keys())

    # The KRaft quorum.
    kafka = {name: s for name, s in services.items() if str(s.get("image", "")).startswith("apache/kafka")}
    check(len(kafka) == 3, f"three Kafka brokers expected, found {sorted(kafka)}")
    ids, voters_lists, bootstrap = {}, set(), []
    for name, s in sorted(kafka.items()):
        env = {k: str(v) for k, v in s["environment"].items()}
        roles = set(env.get("KAFKA_PROCESS_ROLES", "").split(","))
        check(roles == {"broker", "controller"}, f"{name}: KAFKA_PROCESS_ROLES {roles}")
        ids[name] = env.get("KAFKA_NODE_ID")
        voters_lists.add(env.get("KAFKA_CONTROLLER_QUORUM_VOTERS"))
        check(re.fullmatch(r"[A-Za-z0-9_-]{22}", env.get("CLUSTER_ID", "")) is not None,
              f"{name}: CLUSTER_ID must be 16 bytes in base64url without padding (22 characters)")
        advertised = env.get("KAFKA_ADVERTISED_LISTENERS", "")
        check(advertised == f"PLAINTEXT://{name}:9092", f"{name}: advertises {advertised}")
        bootstrap.append(f"{name}:9092")
        for mount in s.get("volumes", []):
            check(mount.split(":")[0] in volumes, f"{name}: volume {mount} is not declared")
    check(len(set(ids.values())) == len(ids), f"node ids not distinct: {ids}")
    check(len(voters_lists) == 1, f"the brokers disagree on the quorum voters: {voters_lists}")
    voters = voters_lists.pop() if voters_lists else ""
    expected_voters = ",".join(f"{ids[n]}@{n}:9093" for n in sorted(kafka))
    check(voters == expected_voters, f"quorum voters {voters}, expected {expected_voters}")
    bootstrap = ",".join(bootstrap)

    # The webindex services.
    with open(os.path.join(src, "docker/Dockerfile"), encoding="utf-8") as f:
        dockerfile = f.read()
    check('ENTRYPOINT ["webindex"]' in dockerfile, "docker/Dockerfile's entrypoint is not webindex")
    members, replicas, shard_members, stage_members, replays = [], [], [], [], []
    help_cache = {}
    topics = set()
    for path in glob.glob(os.path.join(src, "topics/*.toml")):
        with open(path, "rb") as f:
            topics.add(tomllib.load(f)["name"])
    for name, s in sorted(services.items()):
        if name in kafka:
            continue
        build = s.get("build", {})
        check(build.get("dockerfile") == "docker/Dockerfile" and
              os.path.normpath(os.path.join(src, "docker", build.get("context", ""))) == os.path.normpath(src),
              f"{name}: must build docker/Dockerfile from the repository root")
        argv = [str(a) for a in (s.get("entrypoint") or [])]
        if argv:
            check(argv[0] == "webindex", f"{name}: entrypoint {argv}")
            argv = argv[1:]
        argv += [str(a) for a in (s.get("command") or [])]
        sub = argv[0] if argv else ""
        check(sub in ("run", "load", "replay"), f"{name}: runs `webindex {sub}`")
        if sub not in help_cache:
            help_cache[sub] = options_of(args.binary, sub)
        opts = option_values(argv[1:])
        for opt in opts:
            check(opt in help_cache[sub], f"{name}: `webindex {sub}` has no option {opt}")
        check(opts.get("--brokers") == bootstrap, f"{name}: --brokers {opts.get('--brokers')}, expected {bootstrap}")
        if "--topic" in opts:
            check(opts["--topic"] in topics, f"{name}: topic {opts['--topic']} is not declared in topics/")
        for mount in s.get("volumes", []):
            source = mount.split(":")[0]
            check(source.startswith(".") or source in volumes, f"{name}: volume {mount} is not declared")
        if sub == "replay":
            replays.append((name, opts))
        if sub != "run":
            continue
        members.append((name, opts))
        data_dir = opts.get("--data-dir")
        check(any(m.split(":")[1] == data_dir and m.split(":")[0] in volumes for m in s.get("volumes", [])),
              f"{name}: --data-dir {data_dir} is not on a volume of its own")
        if opts.get("--table-shard"):
            shard_members.append((name, s, opts))
        elif opts.get("--no-stages"):
            replicas.append((name, s, opts))
        else:
            stage_members.append(name)
    check(len({o.get("--group") for _, o in members}) == 1 and members and members[0][1].get("--group"),
          f"the members do not share one --group: {[(n, o.get('--group')) for n, o in members]}")
    check(len({o.get("--partitions") for _, o in members}) == 1, "the members create topics with different --partitions")
    for name, opts in replays:
        check(opts.get("--group") == members[0][1].get("--group"), f"{name}: replays group {opts.get('--group')}, "
              f"not the members' {members[0][1].get('--group')}")
    ids = [o["--group-instance-id"] for _, o in members if "--group-instance-id" in o]
    check(len(ids) == len(set(ids)), f"--group-instance-id not distinct: {ids}")
    mounts = [m for n, _ in members for m in services[n].get("volumes", [])]
    check(len(mounts) == len(set(m.split(":")[0] for m in mounts)), "two members share a data-dir volume")
    check(len(stage_members) >= 2, f"at least two members must run stages: {stage_members}")
    check(len(replicas) == 1, f"one table replica (--no-stages) expected: {[n for n, _, _ in replicas]}")
    for name, s, opts in replicas:
        http = str(opts.get("--http", ""))
        port = http.rsplit(":", 1)[-1]
        check(http.startswith("0.0.0.0:"), f"{name}: --http {http} must listen on every interface inside the container")
        check(f"127.0.0.1:{port}:{port}" in [str(p) for p in s.get("ports", [])],
              f"{name}: port {port} is not published on 127.0.0.1")

    for name, s, opts in shard_members:
        http = str(opts.get("--http", ""))
        port = http.rsplit(":", 1)[-1]
        check(http.startswith("0.0.0.0:"), f"{name}: --http {http} must listen on every interface inside the container")
        check(opts.get("--http-advertise") == f"{name}:{port}",
              f"{name}: --http-advertise {opts.get('--http-advertise')}, expected {name}:{port}")
        check(any(str(p).startswith("127.0.0.1:") and str(p).endswith(f":{port}") for p in s.get("ports", [])),
              f"{name}: port {port} is not published on 127.0.0.1")

    # README.md's commands.
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    commands = re.findall(r"docker compose -f (\S+) (.*)", readme)
    check(commands, "README.md has no `docker compose -f docker/compose.yaml` command")
    for path, rest in commands:
        check(path == "docker/compose.yaml", f"README.md uses {path}")
        m = re.match(r"(?:run --rm|logs -f|stop|start|restart|up -d --build|up -d|down)\s*(\S*)", rest)
        check(m is not None, f"README.md: unexpected `docker compose {rest}`")
        if m and m.group(1) and not m.group(1).startswith("#"):
            check(m.group(1) in services, f"README.md names service {m.group(1)}, which compose.yaml lacks")

    for f in failures:
        print("docker/compose.yaml:", f)
    print(f"{len(services)} services checked, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
