#!/usr/bin/env bash
# Accuracy and overhead of loadgen next to wrk: one server pinned to CPU 0, the load tools
# pinned to CPU 1, alternating wrk and loadgen ROUNDS times on GET / with -t1 -c100, then
# each round's loadgen/wrk ratios of requests/s and p50.
#
#   crates/loadgen/bench/accuracy.sh [SERVER_BIN] [DURATION] [ROUNDS] [PATH]
#
# SERVER_BIN defaults to target/release/server-prebuilt, else target/release/server-hyper;
# PATH to / (an empty SERVER_BIN keeps the default).
# Needs wrk (apt-get install wrk), python3, and `cargo build --release -p loadgen` plus the
# server. Other work on the machine shows in the figures: the 1-minute load is printed
# beside each run, and as root the server and the tools run at nice -20 to shield them.
set -euo pipefail
cd "$(dirname "$0")/../../.."
server=${1:-}
if [ -z "$server" ]; then
  if [ -x target/release/server-prebuilt ]; then server=target/release/server-prebuilt
  else server=target/release/server-hyper; fi
fi
dur=${2:-10s}
rounds=${3:-3}
path=${4:-/}
out=$(mktemp)
rows=$(mktemp)
pri=()
if [ "$(id -u)" = 0 ]; then pri=(nice -n -20); fi
"${pri[@]}" taskset -c 0 "$server" --addr 127.0.0.1:0 >"$out" &
spid=$!
trap 'kill $spid 2>/dev/null; rm -f "$out" "$rows"' EXIT
for _ in $(seq 50); do grep -q listening "$out" && break; sleep 0.1; done
url="http://$(sed -n 's|listening on http://||p' "$out")$path"
echo "$(date -u +%FT%TZ) server $server at $url, -t1 -c100 -d$dur, $rounds rounds"
echo "$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), kernel $(uname -r), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
load() { cut -d' ' -f1 /proc/loadavg; }
for r in $(seq "$rounds"); do
  w=$("${pri[@]}" taskset -c 1 wrk -t1 -c100 -d"$dur" --latency "$url")
  awk -v r="$r" -v l="$(load)" '/^Requests\/sec/ {q=$2} $1=="50%" {p=$2} $1=="99%" {n=$2}
    function us(v) { if (v ~ /us$/) return v+0; if (v ~ /ms$/) return v*1000; return v*1e6 }
    END {print "wrk", r, q, us(p), us(n), "-", l}' <<<"$w" >>"$rows"
  j=$("${pri[@]}" taskset -c 1 target/release/loadgen -t1 -c100 -d"$dur" --json "$url")
  python3 -c 'import json,sys; r=json.load(sys.stdin)["result"]; print("loadgen", sys.argv[1], r["requests_per_s"], r["latency"]["p50_us"], r["latency"]["p99_us"], round(100*r["cpu"]["max_thread_utilisation"]), sys.argv[2])' \
    "$r" "$(load)" <<<"$j" >>"$rows"
done
python3 - "$rows" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
print("%-8s %5s %11s %9s %9s %8s %6s" % ("tool", "round", "req/s", "p50 us", "p99 us", "cpu %", "load1"))
for t, r, q, p, n, c, l in rows:
    print("%-8s %5s %11.0f %9.0f %9.0f %8s %6s" % (t, r, float(q), float(p), float(n), c, l))
w = {r[1]: r for r in rows if r[0] == "wrk"}
qs, ps = [], []
for r in rows:
    if r[0] == "loadgen":
        a = w[r[1]]
        qs.append(float(r[2]) / float(a[2]))
        ps.append(float(r[3]) / float(a[3]))
        print("round %s: loadgen/wrk requests/s %.3f, p50 %.3f" % (r[1], qs[-1], ps[-1]))
med = lambda v: sorted(v)[len(v) // 2]
print("median loadgen/wrk: requests/s %.3f, p50 %.3f" % (med(qs), med(ps)))
PY
