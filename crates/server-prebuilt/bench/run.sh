#!/usr/bin/env bash
# Benchmarks server-prebuilt on loopback (see ../README.md): server pinned to CPU 0, load on
# CPU 1. Prints requests/s, server CPU per request, socket errors, syscalls per request and
# RSS at 10,000 idle keep-alive connections. Needs wrk, ab (apache2-utils), strace, python3.
# Run from the workspace root after `cargo build --release -p server-prebuilt`.
set -euo pipefail
BIN=${BIN:-target/release/server-prebuilt}
DUR=${DUR:-8s}
HERE=$(dirname "$0")
TCK=$(getconf CLK_TCK)

ready=$(mktemp)
taskset -c 0 "$BIN" --addr 127.0.0.1:0 >"$ready" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -f "$ready"' EXIT
for _ in $(seq 50); do grep -q listening "$ready" && break; sleep 0.1; done
PORT=$(sed -n 's|.*:\([0-9]*\)$|\1|p' "$ready")
URL=http://127.0.0.1:$PORT
echo "machine: $(nproc) CPUs, kernel $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "server: $BIN (pid $PID) on $URL"

ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }

load() { # path connections
    local t0 t1 out reqs
    t0=$(ticks)
    out=$(taskset -c 1 wrk -t1 -c"$2" -d"$DUR" --timeout 60s "$URL$1")
    t1=$(ticks)
    reqs=$(awk '/requests in/ {print $1}' <<<"$out")
    local rps errs
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    errs=$(grep -E 'Socket errors|Non-2xx' <<<"$out" | tr '\n' ' ' || true)
    awk -v p="$1" -v c="$2" -v r="$reqs" -v rps="$rps" -v d=$((t1 - t0)) -v tck="$TCK" -v e="$errs" \
        'BEGIN { printf "wrk -t1 -c%-5s %-8s %9s req/s  %8d requests  server CPU %.2f s = %.2f us/request  %s\n",
                 c, p, rps, r, d / tck, d / tck / r * 1e6, (e == "" ? "no socket errors" : e) }'
}

# Memory first, on the fresh process: RSS at start and with 10,000 idle keep-alive connections.
python3 "$HERE/idle.py" "$PORT" "$PID" 10000

taskset -c 1 wrk -t1 -c100 -d2s "$URL/" >/dev/null # warm-up
# E3's workloads: / and /my/ip at 100, 1,000 and 10,000 connections.
for path in / /my/ip; do
    for c in 100 1000 10000; do load "$path" "$c"; done
done
load /api/hello 100

echo "syscalls (strace -c -f over ab -k -n 10000 -c 50):"
strace -c -f -q -o /tmp/strace.$$ -p "$PID" &
SPID=$!
sleep 1
taskset -c 1 ab -q -k -n 10000 -c 50 "$URL/" | grep -E 'Complete requests|Failed requests'
kill -INT $SPID; wait $SPID 2>/dev/null || true
grep -vE '^\s*$' /tmp/strace.$$ | head -20
rm -f /tmp/strace.$$

echo "after all loads: $(grep -E 'VmRSS|VmHWM' /proc/$PID/status | tr -s ' \t\n' ' ')"
