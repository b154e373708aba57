#!/usr/bin/env bash
# Starts nginx with the Lua module (OpenResty's model) as a contract peer, in the foreground.
#
#   peers/nginx/run.sh --addr 127.0.0.1:8080 [--workers N]     (N worker processes, default 1)
#
# Writes its config into a temporary folder (pid, error log and temp paths there too, nothing
# under /var), starts nginx there with `daemon off`, waits until it has bound the port, prints
# `listening on http://HOST:PORT` (port 0: a free port is picked, retrying when nginx finds
# it taken), forwards SIGINT/SIGTERM to nginx (a graceful stop, at most 5 s), removes the folder
# and exits 0. nginx runs under `setpriv --pdeathsig TERM`, so it stops even when this script
# is killed outright. A bad flag or a taken port: one line on stderr, exit 2.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
MODULES=${NGINX_MODULES:-/usr/lib/nginx/modules}

die() { echo "nginx-lua: $*" >&2; exit 2; }
addr=127.0.0.1:8080
workers=1
while [ $# -gt 0 ]; do
    case $1 in
        --addr) [ $# -ge 2 ] || die "--addr needs HOST:PORT"; addr=$2; shift 2 ;;
        --workers) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--workers needs a positive number"; workers=$2; shift 2 ;;
        *) die "usage: peers/nginx/run.sh --addr HOST:PORT [--workers N]" ;;
    esac
done
[[ $addr =~ ^(\[[0-9a-fA-F:.]+\]|[0-9.]+|localhost):([0-9]{1,5})$ ]] || die "bad address $addr (HOST:PORT)"
host=${BASH_REMATCH[1]}
port=${BASH_REMATCH[2]}
[ "$port" -le 65535 ] || die "bad port $port"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/nginx-lua.XXXXXX")
chmod 755 "$TMP"
NGINX=
cleanup() { rm -rf "$TMP"; }
stop() {
    if [ -n "$NGINX" ] && kill -0 "$NGINX" 2>/dev/null; then
        kill -QUIT "$NGINX" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$NGINX" 2>/dev/null || break; sleep 0.1; done
        kill -TERM "$NGINX" 2>/dev/null
        wait "$NGINX" 2>/dev/null
    fi
    cleanup
    exit 0
}
trap stop INT TERM
trap cleanup EXIT

config() { # port
    local reuseport=""
    [ "$workers" -gt 1 ] && reuseport=" reuseport"
    cat >"$TMP/nginx.conf" <<NGINX
load_module $MODULES/ndk_http_module.so;
load_module $MODULES/ngx_http_lua_module.so;
daemon off;
master_process on;
worker_processes $workers;
worker_rlimit_nofile 20000;
pid $TMP/nginx.pid;
error_log $TMP/error.log warn;
events {
    worker_connections 20000;
    accept_mutex off;
}
http {
    access_log off;
    server_tokens off;
    default_type "";
    keepalive_timeout 65;
    keepalive_requests 10000000;
    merge_slashes off;
    client_body_temp_path $TMP/body;
    proxy_temp_path $TMP/proxy;
    fastcgi_temp_path $TMP/fastcgi;
    uwsgi_temp_path $TMP/uwsgi;
    scgi_temp_path $TMP/scgi;
    lua_package_path "$HERE/?.lua;;";
    init_by_lua_block { app = require("app") }
    server {
        listen $host:$1 backlog=4096$reuseport;
        location / {
            content_by_lua_block { app.handle() }
        }
    }
}
NGINX
}

# Ready means bound: nginx writes its pid file only after it has opened its listening sockets,
# so the script never needs to connect anywhere to know (and never probes an address).
for attempt in $(seq 20); do
    try=$port
    # Port 0: a random port below the ephemeral range, so it meets no outgoing connection.
    [ "$port" = 0 ] && try=$((20000 + RANDOM % 12000))
    config "$try"
    : >"$TMP/error.log"
    rm -f "$TMP/nginx.pid"
    setpriv --pdeathsig TERM nginx -p "$TMP" -c "$TMP/nginx.conf" -e "$TMP/error.log" 2>>"$TMP/error.log" &
    NGINX=$!
    for _ in $(seq 1000); do
        if ! kill -0 "$NGINX" 2>/dev/null; then break; fi
        if [ -s "$TMP/nginx.pid" ]; then
            echo "listening on http://$host:$try"
            wait "$NGINX"
            code=$?
            NGINX=
            exit "$code"
        fi
        sleep 0.01
    done
    wait "$NGINX" 2>/dev/null
    NGINX=
    if [ "$port" = 0 ] && grep -q "Address already in use" "$TMP/error.log"; then
        continue
    fi
    die "nginx did not start: $(grep -m1 -E 'emerg|alert|crit' "$TMP/error.log" | sed -E 's/^[^]]*\] ([0-9]+#[0-9]+: )?//; s/^nginx: \[[a-z]+\] //' || tail -n1 "$TMP/error.log")"
done
die "no free port found in 20 tries"
