#!/usr/bin/env bash
# Installs what the container and two-namespace tests (crates/deploy) need, with apt-get:
# podman (builds and runs images without a daemon), runc (the OCI runtime that works on this
# project's machines; crun does not) and iproute2 (`ip netns`, veth pairs).
# Idempotent: a package already installed is skipped, and `apt-get update` runs at most once,
# only when something is missing. What could not be installed is named on stderr; the script
# exits 0 anyway, and the tests that need it skip with a printed reason — unless
# BENCH_REQUIRE_TOOLS=1 or CI is set (strict, as `.ci/run` runs it): then those tests would fail,
# and this script exits 1.
# Usage: scripts/install-containers.sh   (as root, or with sudo available)
set -uo pipefail

packages=(podman runc iproute2)

# (BENCH_REQUIRE_TOOLS decides when it is set, else CI does.)
strict=0
case "${BENCH_REQUIRE_TOOLS-${CI:-}}" in "" | 0 | false) ;; *) strict=1 ;; esac
# Names what is not installed on stderr; exits 1 when strict, else 0.
give_up() {
    echo "install-containers: $1" >&2
    if [ "$strict" = 1 ]; then
        echo "install-containers: BENCH_REQUIRE_TOOLS=1 (or CI): the container and namespace tests would fail" >&2
        exit 1
    fi
    exit 0
}

installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
    give_up "no apt-get here; not installed: ${packages[*]}"
fi

missing=()
for p in "${packages[@]}"; do
    if installed "$p"; then
        echo "install-containers: $p already installed"
    else
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

sudo=()
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo=(sudo -n)
    else
        give_up "not root and no password-less sudo; not installed: ${missing[*]}"
    fi
fi

export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get update -qq; then
    echo "install-containers: apt-get update failed; trying the package lists already here" >&2
fi
# One package at a time, so one that cannot be installed does not stop the others.
failed=()
for p in "${missing[@]}"; do
    if "${sudo[@]}" apt-get install -y -qq "$p" >/dev/null \
        && installed "$p"; then
        echo "install-containers: installed $p"
    else
        failed+=("$p")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    give_up "could not install: ${failed[*]}"
fi
exit 0
