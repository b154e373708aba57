#!/usr/bin/env bash
# Same-run comparison for issue-3's targets: server-prebuilt against the C epoll ceiling
# (peers/ceiling/ceiling.c), nginx with the Lua module (OpenResty's model, 1 worker) and
# server-hyper, each pinned to CPU 0 with `wrk -t1 -cC -dD` pinned to CPU 1 on `GET /`,
# alternating the servers ROUNDS times. Reports requests/s and server CPU per request
# (utime + stime of the server process from /proc, divided by the requests wrk counted).
# Needs wrk, cc, nginx + libnginx-mod-http-lua (Debian). Run from the workspace root after
# `cargo build --release -p server-prebuilt -p server-hyper`. Stops every server it starts.
set -euo pipefail
C=${C:-100}
DUR=${DUR:-8s}
ROUNDS=${ROUNDS:-3}
TCK=$(getconf CLK_TCK)
WORK=$(mktemp -d)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

cc -O2 -o "$WORK/ceiling" peers/ceiling/ceiling.c

nginx_conf() { # port
    cat >"$WORK/nginx.conf" <<NGINX
include /etc/nginx/modules-enabled/*.conf;
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid $WORK/nginx.pid;
error_log $WORK/error.log;
events { worker_connections 20000; }
http {
    access_log off;
    server_tokens off;
    init_by_lua_block { BODY = string.rep(".", 1024) }
    server {
        listen 127.0.0.1:$1;
        location = / {
            default_type "text/plain; charset=utf-8";
            content_by_lua_block { ngx.print(BODY) }
        }
    }
}
NGINX
}

start() { # name -> sets PID and URL
    local out="$WORK/ready"
    : >"$out"
    case $1 in
        ceiling) taskset -c 0 "$WORK/ceiling" 127.0.0.1 0 >"$out" & PID=$! ;;
        nginx)
            local port
            port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
            nginx_conf "$port"
            taskset -c 0 nginx -c "$WORK/nginx.conf" -e "$WORK/error.log" & PID=$!
            echo "listening on http://127.0.0.1:$port" >"$out" ;;
        *) taskset -c 0 "target/release/$1" --addr 127.0.0.1:0 >"$out" & PID=$! ;;
    esac
    for _ in $(seq 100); do grep -q listening "$out" && break; sleep 0.05; done
    URL=$(sed -n 's|^listening on \(http://[^ ]*\)$|\1|p' "$out")
    # Wait until it answers (nginx announces before it listens).
    for _ in $(seq 100); do curl -s -o /dev/null "$URL/" && break; sleep 0.05; done
}

stop() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; PID=; }

echo "machine: $(nproc) CPUs, kernel $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load: taskset -c 1 wrk -t1 -c$C -d$DUR --timeout 60s URL/ ; servers on CPU 0"
for round in $(seq "$ROUNDS"); do
    for s in ceiling nginx server-prebuilt server-hyper; do
        start "$s"
        taskset -c 1 wrk -t1 -c"$C" -d2s "$URL/" >/dev/null # warm-up
        t0=$(awk '{print $14 + $15}' "/proc/$PID/stat")
        out=$(taskset -c 1 wrk -t1 -c"$C" -d"$DUR" --timeout 60s "$URL/")
        t1=$(awk '{print $14 + $15}' "/proc/$PID/stat")
        stop
        reqs=$(awk '/requests in/ {print $1}' <<<"$out")
        rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
        errs=$(grep -E 'Socket errors|Non-2xx' <<<"$out" | tr -s ' \n' ' ' || true)
        awk -v r="$round" -v s="$s" -v n="$reqs" -v rps="$rps" -v d=$((t1 - t0)) -v tck="$TCK" -v e="$errs" \
            'BEGIN { printf "round %s  %-16s %10s req/s  server CPU %5.2f us/request  %s\n", r, s, rps, d / tck / n * 1e6, (e == "" ? "no errors" : e) }'
    done
done
