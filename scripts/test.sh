#!/usr/bin/env bash
# The whole test suite, as the README gives it: every crate's unit tests, the conformance
# suite against every server's real binary (10,000 connections included), and the
# manifest checks. Installs nothing yet: every test here needs only the Rust toolchain.
# Usage: scripts/test.sh [extra cargo test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
    echo "scripts/test.sh: cargo not found; install Rust from https://rustup.rs first" >&2
    exit 2
fi

# 10,000-connection checks need descriptors on the client side too; the test processes
# raise their own soft limit, this only helps tools started from here.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

exec cargo test --workspace --locked "$@"
