#!/usr/bin/env bash
# Builds a container image for every Rust variant of servers.toml (the entries with
# `package = "…"`; peers, which have a `command`, are skipped), with docker or podman.
#
#   scripts/images.sh                  # the Dockerfile: build in rust:1.88-bookworm, run in distroless
#   scripts/images.sh --offline        # host-built static binaries, each packaged FROM scratch
#   scripts/images.sh --only server-prebuilt,server-hyper --tag-prefix registry.example/bench/
#   scripts/images.sh --list           # print the Rust variants and their analogues, build nothing
#   scripts/images.sh --with-loadgen   # also loadgen:latest, the load generator (deploy/k8s's Job)
#
# Every image is <tag-prefix><variant>:latest, listens on 0.0.0.0:8080 (ENV ADDR), exposes
# 8080, stops on SIGTERM, runs as a numeric non-root user, and carries the labels
# reference-servers.variant and reference-servers.analogue.
#
# --offline needs nothing pulled: it runs
#   RUSTFLAGS='-C target-feature=+crt-static' cargo build --release --locked \
#       --target x86_64-unknown-linux-gnu -p <every selected variant>
# once, with CARGO_TARGET_DIR=target/static (so the normal target/release build is left as
# it is), and packages each binary FROM scratch as user 65534:65534 (numeric: scratch has no
# /etc/passwd).
#
# Exit status: 0 when every image was built; 2 for bad input (one line on stderr);
# 1 when no engine is usable or a build failed.
set -euo pipefail
cd "$(dirname "$0")/.."

die_usage() {
    echo "images.sh: $1" >&2
    exit 2
}
die() {
    echo "images.sh: $1" >&2
    exit 1
}

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

offline=0
list=0
with_loadgen=0
only=""
prefix=""
engine=""
while [ $# -gt 0 ]; do
    case "$1" in
        --offline) offline=1 ;;
        --list) list=1 ;;
        --with-loadgen) with_loadgen=1 ;;
        --only)
            [ $# -ge 2 ] || die_usage "--only needs a comma-separated list of variants"
            only="$2"
            shift
            ;;
        --only=*) only="${1#--only=}" ;;
        --tag-prefix)
            [ $# -ge 2 ] || die_usage "--tag-prefix needs a value (e.g. registry.example/bench/)"
            prefix="$2"
            shift
            ;;
        --tag-prefix=*) prefix="${1#--tag-prefix=}" ;;
        --engine)
            [ $# -ge 2 ] || die_usage "--engine needs docker or podman"
            engine="$2"
            shift
            ;;
        --engine=*) engine="${1#--engine=}" ;;
        -h | --help)
            usage
            exit 0
            ;;
        *) die_usage "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

case "$engine" in
    "" | docker | podman) ;;
    *) die_usage "--engine must be docker or podman, not '$engine'" ;;
esac
# An image reference is lowercase; a prefix is a registry/namespace path, usually ending in /.
if [ -n "$prefix" ] && ! [[ "$prefix" =~ ^[a-z0-9][a-z0-9._/:-]*$ ]]; then
    die_usage "--tag-prefix '$prefix' is not a valid image name prefix (lowercase letters, digits, . _ - / :)"
fi

# The Rust variants of servers.toml, one per line: package, a tab, its analogues joined by
# ", ". Keys are read from [[server]] tables only (not from [[server.exception]] and the like);
# an `analogue` array may span lines.
variants() {
    awk '
        function flush() {
            if (inserver && pkg != "") print pkg "\t" analogue
            pkg = ""; analogue = ""
        }
        function strings(s,    out, m) {
            out = ""
            while (match(s, /"([^"\\]|\\.)*"/)) {
                m = substr(s, RSTART + 1, RLENGTH - 2)
                out = (out == "" ? m : out ", " m)
                s = substr(s, RSTART + RLENGTH)
            }
            return out
        }
        /^[ \t]*\[\[server\]\][ \t]*(#.*)?$/ { flush(); inserver = 1; top = 1; next }
        /^[ \t]*\[/ { top = 0; inarray = 0; next }
        inarray { acc = acc $0; if ($0 ~ /\]/) { analogue = strings(acc); inarray = 0 }; next }
        top && /^[ \t]*package[ \t]*=/ { sub(/^[^=]*=[ \t]*/, ""); pkg = strings($0); next }
        top && /^[ \t]*analogue[ \t]*=/ {
            sub(/^[^=]*=[ \t]*/, "")
            if ($0 ~ /\]/) analogue = strings($0); else { acc = $0; inarray = 1 }
            next
        }
        END { flush() }
    ' servers.toml
}

all="$(variants)"
[ -n "$all" ] || die "servers.toml lists no Rust variant (no [[server]] with package = \"…\")"

if [ "$list" = 1 ]; then
    printf '%s\n' "$all"
    exit 0
fi

selected=()
if [ -n "$only" ]; then
    IFS=',' read -r -a wanted <<<"$only"
    for v in "${wanted[@]}"; do
        v="${v// /}"
        [ -n "$v" ] || die_usage "--only '$only' has an empty entry"
        if ! cut -f1 <<<"$all" | grep -qxF -- "$v"; then
            die_usage "--only: '$v' is not a Rust variant of servers.toml (known: $(cut -f1 <<<"$all" | paste -sd, -))"
        fi
        selected+=("$v")
    done
else
    mapfile -t selected < <(cut -f1 <<<"$all")
fi

# The load generator is packaged the same way; its "analogue" is the tool it stands in for.
if [ "$with_loadgen" = 1 ]; then
    all="$all"$'\n'"loadgen"$'\t'"wrk"
    selected+=(loadgen)
fi

analogue_of() {
    awk -F'\t' -v p="$1" '$1 == p { print $2 }' <<<"$all"
}

# docker only counts when its daemon answers (a docker client without a daemon is common);
# podman needs no daemon.
usable() {
    case "$1" in
        docker) command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1 ;;
        podman) command -v podman >/dev/null 2>&1 ;;
    esac
}
if [ -n "$engine" ]; then
    usable "$engine" || die "--engine $engine: not usable here ($engine not installed, or its daemon does not answer)"
elif usable docker; then
    engine=docker
elif usable podman; then
    engine=podman
else
    die "neither docker (with a running daemon) nor podman is available; scripts/install-containers.sh installs podman"
fi

# podman keeps an untagged image per Containerfile step unless told not to; the offline
# images are a few steps on an empty base, nothing worth caching.
layers=()
[ "$engine" = podman ] && layers=(--layers=false)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if [ "$offline" = 1 ]; then
    triple=x86_64-unknown-linux-gnu
    [ "$(uname -m)" = x86_64 ] || die "--offline builds for $triple and needs an x86_64 host (this is $(uname -m))"
    command -v cargo >/dev/null 2>&1 || die "--offline needs cargo (https://rustup.rs)"
    pkgs=()
    for v in "${selected[@]}"; do pkgs+=(-p "$v"); done
    echo "images.sh: static release build of ${selected[*]} (target dir target/static)"
    # CARGO_ENCODED_RUSTFLAGS, when set, would win over RUSTFLAGS.
    env -u CARGO_ENCODED_RUSTFLAGS RUSTFLAGS='-C target-feature=+crt-static' CARGO_TARGET_DIR=target/static \
        cargo build --release --locked --target "$triple" "${pkgs[@]}" \
        || die "the static release build failed"
    bindir="target/static/$triple/release"
fi

built=()
for v in "${selected[@]}"; do
    image="${prefix}${v}:latest"
    analogue="$(analogue_of "$v")"
    echo "images.sh: building $image with $engine$([ "$offline" = 1 ] && echo ' (offline, FROM scratch)')"
    if [ "$offline" = 1 ]; then
        ctx="$tmp/$v"
        mkdir -p "$ctx"
        cp "$bindir/$v" "$ctx/server"
        # LABEL values are double-quoted in the Containerfile: escape \ and ".
        esc_analogue="$(sed 's/[\\"]/\\&/g' <<<"$analogue")"
        cat >"$ctx/Containerfile" <<EOF
FROM scratch
LABEL org.opencontainers.image.title="$v" \\
      org.opencontainers.image.description="$v of the HTTP reference servers workspace (analogue of: $esc_analogue)" \\
      org.opencontainers.image.licenses="MIT OR Apache-2.0" \\
      reference-servers.variant="$v" \\
      reference-servers.analogue="$esc_analogue"
COPY server /server
ENV ADDR=0.0.0.0:8080
EXPOSE 8080
STOPSIGNAL SIGTERM
USER 65534:65534
ENTRYPOINT ["/server"]
EOF
        "$engine" build "${layers[@]}" --quiet -t "$image" -f "$ctx/Containerfile" "$ctx" >/dev/null \
            || die "$engine build of $image failed"
    else
        "$engine" build -t "$image" -f Dockerfile \
            --build-arg "VARIANT=$v" --build-arg "ANALOGUE=$analogue" . \
            || die "$engine build of $image failed (where the base images cannot be pulled, --offline needs none)"
    fi
    built+=("$image")
done

echo "images.sh: built ${#built[@]} image(s) with $engine:"
for image in "${built[@]}"; do
    size="$("$engine" image inspect --format '{{.Size}}' "$image" 2>/dev/null || echo '?')"
    if [[ "$size" =~ ^[0-9]+$ ]]; then
        size="$(awk -v b="$size" 'BEGIN { printf "%.1f MB", b / 1000000 }')"
    fi
    printf '  %-40s %s\n' "$image" "$size"
done
