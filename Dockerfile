# One image per Rust server variant of servers.toml (or of the load generator: VARIANT=loadgen,
# ANALOGUE=wrk; the binary is /server whatever the package):
#
#   docker build --build-arg VARIANT=server-prebuilt -t server-prebuilt .
#   docker run --rm -p 8080:8080 server-prebuilt
#
# scripts/images.sh builds every variant this way (and fills ANALOGUE from servers.toml);
# `scripts/images.sh --offline` packages host-built static binaries FROM scratch instead, for
# machines that cannot pull the base images below.
#
# Stage 1 builds the variant's release binary with the workspace's one release profile, in
# the official Rust image at the workspace's rust-version (Debian bookworm, glibc 2.36). The
# base images are named in full (docker.io/library/…): podman resolves no short names unless
# its registries.conf lists search registries.
# Stage 2 is distroless/cc on the same Debian release: glibc, libgcc_s and nothing else (no
# shell, no package manager), run as its numeric non-root user so that Kubernetes'
# runAsNonRoot can verify it.

ARG RUST_IMAGE=docker.io/library/rust:1.88-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM ${RUST_IMAGE} AS build
ARG VARIANT
WORKDIR /src
COPY . .
# The cache mounts keep the registry and the target directory between builds (BuildKit and
# buildah both support them); the binary is copied out of the cached target directory in the
# same step, since a cache mount is not part of the image.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    test -n "${VARIANT}" || { echo "Dockerfile: pass --build-arg VARIANT=<package>, e.g. server-prebuilt" >&2; exit 2; } \
    && cargo build --release --locked -p "${VARIANT}" \
    && install -D -m 0755 "target/release/${VARIANT}" /out/server

FROM ${RUNTIME_IMAGE}
ARG VARIANT
ARG ANALOGUE=""
LABEL org.opencontainers.image.title="${VARIANT}" \
      org.opencontainers.image.description="${VARIANT} of the HTTP reference servers workspace (analogue of: ${ANALOGUE})" \
      org.opencontainers.image.licenses="MIT OR Apache-2.0" \
      reference-servers.variant="${VARIANT}" \
      reference-servers.analogue="${ANALOGUE}"
COPY --from=build /out/server /server
# The contract's listen address: every interface in a container, port 8080.
ENV ADDR=0.0.0.0:8080
EXPOSE 8080
# SIGTERM: stop accepting, finish in-flight requests (at most 5 s), exit 0.
STOPSIGNAL SIGTERM
USER 65532:65532
ENTRYPOINT ["/server"]
