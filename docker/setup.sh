#!/usr/bin/env bash
# Installs the Debian 12 packages webindex needs and builds it into build/ (Release).
#   docker/setup.sh           runtime and build dependencies, then build the program
#   docker/setup.sh --tests   also the test dependencies, and build the tests
# Used by the README's commands, by CI and by docker/Dockerfile. Needs root or sudo for apt.
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=OFF
[[ "${1:-}" == "--tests" ]] && with_tests=ON

packages=(build-essential cmake ninja-build pkg-config
          librdkafka-dev librocksdb-dev libsimdjson-dev libboost-dev libpsl-dev publicsuffix
          liburiparser-dev libcli11-dev libspdlog-dev libfmt-dev libtomlplusplus-dev zlib1g-dev libserd-dev libicu-dev libssl-dev libjemalloc-dev)
if [[ $with_tests == ON ]]; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev python3 python3-jsonschema python3-yaml curl clang libclang-rt-14-dev chromium
             ccache)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEBINDEX_BUILD_TESTS=$with_tests
cmake --build build -j2
