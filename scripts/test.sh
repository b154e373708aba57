#!/usr/bin/env bash
# The whole test suite, as the README gives it: every crate's unit tests, the conformance
# suite against every server's real binary (10,000 connections included), and the
# manifest checks, the peers (Node.js, Python, Go, nginx) and the container images.
# First it installs what those need (scripts/install-*.sh: apt, npm, pip, go, cc); what cannot
# be installed is named, and the tests that need it skip with a printed reason.
# With BENCH_REQUIRE_TOOLS=1 (`.ci/run` exports it; CI set implies it) nothing may skip: an
# install that fails stops this script with exit 1, and a test whose tool is missing fails
# (conformance::require).
# Usage: scripts/test.sh [extra cargo test arguments]   (SKIP_INSTALL=1 skips the installs)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
    echo "scripts/test.sh: cargo not found; install Rust from https://rustup.rs first" >&2
    exit 2
fi

# 10,000-connection checks need descriptors on the client side too; the test processes
# raise their own soft limit, this only helps tools started from here.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# CI means strict, unless BENCH_REQUIRE_TOOLS says otherwise.
case "${CI:-}" in "" | 0 | false) ;; *) export BENCH_REQUIRE_TOOLS="${BENCH_REQUIRE_TOOLS-1}" ;; esac
strict=0
case "${BENCH_REQUIRE_TOOLS:-}" in "" | 0) ;; *) strict=1 ;; esac

if [ "${SKIP_INSTALL:-0}" != 1 ]; then
    for script in scripts/install-peers.sh scripts/install-containers.sh; do
        if [ -x "$script" ] && ! "$script"; then
            if [ "$strict" = 1 ]; then
                echo "scripts/test.sh: $script did not install everything, and BENCH_REQUIRE_TOOLS=1: the tests that need it would fail; stopping" >&2
                exit 1
            fi
            echo "scripts/test.sh: $script did not install everything; tests that need it skip with a reason" >&2
        fi
    done
fi

exec cargo test --workspace --locked "$@"
