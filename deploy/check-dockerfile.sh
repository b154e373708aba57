#!/usr/bin/env bash
# Builds one variant through the real Dockerfile with podman on a machine that cannot pull
# its base images, by standing in for them with the host's own files:
#   rust:1.88-bookworm                     -> an empty image whose RUN steps get the host's
#                                             /usr/{bin,lib,…} and Rust toolchain mounted
#                                             read-only (/usr/local stays the image's own)
#   gcr.io/distroless/cc-debian12:nonroot  -> glibc, libm, libgcc_s and the loader from the host
# Every Dockerfile instruction then runs as written (ARGs, cache mounts, the cargo build, the
# labels, the user); only the bases differ. Needs a Debian-like x86_64 host with podman, runc,
# Rust under /root/.cargo and /root/.rustup, and crates.io reachable (the cache mount starts
# empty). The stand-in images and the built image are removed at the end unless --keep.
#
#   deploy/check-dockerfile.sh server-prebuilt [--keep]
set -euo pipefail
cd "$(dirname "$0")/.."

variant="${1:-}"
keep="${2:-}"
[ -n "$variant" ] || { echo "check-dockerfile.sh: usage: deploy/check-dockerfile.sh VARIANT [--keep]" >&2; exit 2; }
analogue="$(scripts/images.sh --list | awk -F'\t' -v p="$variant" '$1 == p { print $2 }')"
[ -n "$analogue" ] || { echo "check-dockerfile.sh: '$variant' is not a Rust variant of servers.toml" >&2; exit 2; }
rustup_home="${RUSTUP_HOME:-$HOME/.rustup}"
cargo_bin="$(dirname "$(command -v cargo)")"

id="deploy-check-$$"
tmp="$(mktemp -d)"
cleanup() {
    rm -rf "$tmp"
    podman rmi -f "localhost/$id-rust:latest" "localhost/$id-runtime:nonroot" >/dev/null 2>&1 || true
    [ "$keep" = --keep ] || podman rmi -f "localhost/$id:latest" >/dev/null 2>&1 || true
}
trap cleanup EXIT

mkdir -p "$tmp/rust/rootfs/tmp" "$tmp/rust/rootfs/usr/local"
for d in bin sbin lib lib64 include libexec share; do mkdir -p "$tmp/rust/rootfs/usr/$d"; done
(cd "$tmp/rust/rootfs" && ln -s usr/bin bin && ln -s usr/lib lib && ln -s usr/lib64 lib64 && ln -s usr/sbin sbin && chmod 1777 tmp)
cat >"$tmp/rust/Containerfile" <<EOF
FROM scratch
COPY rootfs/ /
ENV PATH=$cargo_bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin CARGO_HOME=/usr/local/cargo RUSTUP_HOME=$rustup_home
EOF

mkdir -p "$tmp/rt/rootfs/usr/lib/x86_64-linux-gnu" "$tmp/rt/rootfs/usr/lib64" "$tmp/rt/rootfs/tmp"
for l in libc.so.6 libm.so.6 libgcc_s.so.1; do cp -L "/usr/lib/x86_64-linux-gnu/$l" "$tmp/rt/rootfs/usr/lib/x86_64-linux-gnu/"; done
cp -L /lib64/ld-linux-x86-64.so.2 "$tmp/rt/rootfs/usr/lib64/"
(cd "$tmp/rt/rootfs" && ln -s usr/lib lib && ln -s usr/lib64 lib64 && chmod 1777 tmp)
printf 'FROM scratch\nCOPY rootfs/ /\nUSER 65532:65532\n' >"$tmp/rt/Containerfile"

podman build -q --layers=false -t "localhost/$id-rust:latest" "$tmp/rust" >/dev/null
podman build -q --layers=false -t "localhost/$id-runtime:nonroot" "$tmp/rt" >/dev/null

mounts=()
for d in bin sbin lib lib64 include libexec share; do mounts+=(-v "/usr/$d:/usr/$d:ro"); done
mounts+=(-v "$cargo_bin:$cargo_bin:ro" -v "$rustup_home:$rustup_home:ro" -v /etc:/etc:ro)
runtime=()
[ -x /usr/sbin/runc ] && runtime=(--runtime /usr/sbin/runc)

time podman build --layers=false "${runtime[@]}" --network host "${mounts[@]}" \
    --build-arg "RUST_IMAGE=localhost/$id-rust:latest" \
    --build-arg "RUNTIME_IMAGE=localhost/$id-runtime:nonroot" \
    --build-arg "VARIANT=$variant" --build-arg "ANALOGUE=$analogue" \
    -t "localhost/$id:latest" .

echo "check-dockerfile.sh: built localhost/$id:latest through the Dockerfile:"
podman image inspect --format '{{json .Config}}' "localhost/$id:latest"
echo
# Run it on the host's network at 127.0.0.1 (port 0: the ready line says which), ask it once,
# stop it with SIGTERM and show its exit code.
podman run -d --name "$id-run" "${runtime[@]}" --network host \
    --ulimit nofile=20000:20000 --ulimit nproc=1000:1000 -e ADDR=127.0.0.1:0 "localhost/$id:latest" >/dev/null
trap 'podman rm -f "$id-run" >/dev/null 2>&1 || true; cleanup' EXIT
for _ in $(seq 100); do
    line="$(podman logs "$id-run" 2>/dev/null | head -n1)"
    [ -n "$line" ] && break
    sleep 0.05
done
echo "check-dockerfile.sh: $line"
url="${line#listening on }"
curl -sS -i "${url}/hello"
echo
podman stop -t 5 "$id-run" >/dev/null
echo "check-dockerfile.sh: exit code after SIGTERM: $(podman inspect --format '{{.State.ExitCode}}' "$id-run")"
