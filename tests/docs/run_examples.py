#!/usr/bin/env python3
"""Runs the shell examples of README.md and docs/api.md in order, as a new user following them
would, and fails on the first one that does not work as written.

Every ```sh block of those files is a step; the steps share one shell (variables such as
run_pid carry over) and one environment. What differs from a user's terminal, and why:
  - `build/webindex` is the binary under test, /tmp/webindex.addr and /tmp/webindex-data live
    in a temporary dir, and port 8080 is a free port, so that runs do not collide;
  - `docker/setup.sh && ` and `tests/run.sh` are left out: the test runs after the setup and is
    part of the test suite;
  - after a command started with `&` that serves HTTP, the script waits for the port, where a
    user would wait for the log line; after `webindex broker ... &` it does not wait: the
    commands that follow take `--brokers @FILE`, which waits for the address file, as when a
    user pastes the steps as one block;
  - `CURSOR` is the "next" cursor of the answer before, as the example's comment says.
A command fails the test when it exits non-zero or prints an API error ({"error": ...}),
unless its comment announces a 404. docs/performance.md's recipes are benchmarks that take
minutes to hours and are not run here.

Usage: run_examples.py --binary build/webindex --source . [--keep]
"""
import argparse
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile

FILES = ["README.md", "docs/api.md"]


def sh_blocks(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return [m.group(1) for m in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M)]


def logical_lines(block):
    """Joins backslash continuations; drops blank and comment-only lines."""
    out, pending = [], ""
    for raw in block.splitlines():
        line = pending + raw
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line.strip())
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def split_comment(line):
    """(command, comment): a trailing ' # ...' outside quotes is the comment."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and i > 0 and line[i - 1] in " \t":
            return line[:i].rstrip(), line[i + 1:].strip()
    return line, ""


def cursor_at(match, previous):
    """The shell text for the cursor of the answer in `previous`, inside quotes or not."""
    expansion = f'"$(next_cursor {previous})"'
    in_single_quotes = match.string[:match.start()].count("'") % 2 == 1
    return f"'{expansion}'" if in_single_quotes else expansion


PRELUDE = r"""
set -e
cd "$SOURCE"
stop_jobs() {  # SIGTERM to what is still running (broker, run), as a user's Ctrl-C; 60 s to stop
  local status=$? pids left pid
  pids=$(jobs -p)
  [ -n "$pids" ] && kill $pids 2>/dev/null
  for _ in $(seq 600); do
    left=""
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && left="$left $pid"; done
    [ -z "$left" ] && break
    sleep 0.1
  done
  if [ -n "$left" ]; then
    echo "still running 60 s after SIGTERM:$left" >&2; ps -o pid,args -p ${left// /,} >&2 || true
    kill -9 $left 2>/dev/null; status=1
  fi
  wait 2>/dev/null
  exit $status
}
trap stop_jobs EXIT
wait_http() {
  for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.1; done
  echo "nothing listens on port $1 after 30 s" >&2; return 1
}
next_cursor() { grep -o '"next":"[^"]*"' "$1" | head -1 | cut -d'"' -f4; }
check() {  # check STEP OUT ALLOW_ERROR
  cat "$2"; echo
  if [ "$3" = 0 ] && grep -q '^{"error"' "$2"; then echo "step $1 answered an error" >&2; return 1; fi
}
"""


def build_script(source, binary, tmp, port):
    steps = []
    for name in FILES:
        for block in sh_blocks(os.path.join(source, name)):
            for line in logical_lines(block):
                steps.append((name, line))
    out = [PRELUDE]
    n = 0
    for name, line in steps:
        if line.startswith("tests/run.sh"):
            continue
        line = re.sub(r"^docker/setup\.sh(\s+--tests)?\s*&&\s*", "", line)
        command, comment = split_comment(line)
        command = (command.replace("build/webindex", shlex.quote(binary))
                   .replace("/tmp/webindex.addr", f"{tmp}/webindex.addr")
                   .replace("/tmp/webindex-data", f"{tmp}/webindex-data")
                   .replace("127.0.0.1:8080", f"127.0.0.1:{port}")
                   .replace("--http 8080", f"--http {port}"))
        n += 1
        out.append(f"echo {shlex.quote(f'== step {n} ({name}): {line}')}")
        if command.endswith("&"):
            out.append(command)
            if "--http" in command:
                out.append(f"wait_http {port}")
            continue
        if re.match(r"^(\w+=|kill |sleep )", command):
            out.append(command)
            continue
        previous = f"{tmp}/out.{n - 1}"
        command = re.sub("CURSOR", lambda m: cursor_at(m, previous), command)
        allow_error = 1 if "404" in comment else 0
        out.append(f"{{ {command} ; }} > {tmp}/out.{n}")
        out.append(f"check {n} {tmp}/out.{n} {allow_error}")
    return "\n".join(out) + "\necho '== all examples ran'\n", n


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--keep", action="store_true", help="keep the temporary dir")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="webindex-docs-")
    script, steps = build_script(os.path.abspath(args.source), os.path.abspath(args.binary), tmp, free_port())
    with open(f"{tmp}/examples.sh", "w") as f:
        f.write(script)
    env = dict(os.environ, SOURCE=os.path.abspath(args.source), TMPDIR=tmp)
    try:
        rc = subprocess.run(["bash", f"{tmp}/examples.sh"], env=env, timeout=900).returncode
    except subprocess.TimeoutExpired:
        print("the examples did not finish within 15 minutes", file=sys.stderr)
        rc = 1
    if rc != 0:
        print(f"examples failed (exit {rc}); the script and outputs are in {tmp}", file=sys.stderr)
        return 1
    print(f"{steps} example commands of {', '.join(FILES)} ran as written")
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
