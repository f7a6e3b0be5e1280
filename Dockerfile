# syntax=docker/dockerfile:1
# The ecs-gpu container image: the static (musl) ecs-gpu binary on distroless/static, which holds
# CA certificates (live `diagnose` and `simulate --cluster` call AWS over TLS), a nonroot user, and
# nothing else: no shell, no package manager.
#
#   docker build -t ecs-gpu .                      # the binary built from this checkout, for the
#                                                  # builder's platform (the CI workflow does this)
#   docker build --build-arg BINARY=prebuilt .     # the release workflow: the release archives in
#                                                  # dist/ (scripts/package-release.sh), one image per
#                                                  # platform with no compiler and no emulation
#   docker run --rm -v "$PWD:/src" ecs-gpu check /src
#
# A build from source has no .git in its context (.dockerignore), so its `--version` says the
# commit is unknown; the release images carry the release binaries, which name their commit.

ARG BINARY=source

# --- the binary, built from this checkout ---------------------------------------------------------
FROM rust:1.95-alpine AS source
# C and C++ for mimalloc and aws-lc-sys (the AWS SDK's TLS); perl and cmake for aws-lc-sys' build.
# No pinned apk versions (DL3018): Alpine's repositories keep only the latest build of a package.
# hadolint ignore=DL3018
RUN apk add --no-cache musl-dev gcc g++ make cmake perl
WORKDIR /build
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/build/target \
    cargo build --release --locked -p ecs-gpu \
    && cp target/release/ecs-gpu /ecs-gpu \
    && /ecs-gpu --version

# --- the binary, from the release archives --------------------------------------------------------
FROM --platform=$BUILDPLATFORM alpine:3.22 AS prebuilt
ARG TARGETARCH
COPY dist/ /dist/
RUN case "$TARGETARCH" in \
      amd64) target=x86_64-unknown-linux-musl ;; \
      arm64) target=aarch64-unknown-linux-musl ;; \
      *) echo "no release binary for $TARGETARCH" >&2; exit 1 ;; \
    esac \
    && tar -xzf "/dist/ecs-gpu-$target.tar.gz" -C /tmp \
    && cp "/tmp/ecs-gpu-$target/ecs-gpu" /ecs-gpu

# BuildKit builds only the stage chosen here.
# hadolint ignore=DL3006
FROM ${BINARY} AS binary

# --- the image ----------------------------------------------------------------------------------
FROM gcr.io/distroless/static-debian13:nonroot
COPY --from=binary /ecs-gpu /usr/local/bin/ecs-gpu
WORKDIR /src
ENTRYPOINT ["/usr/local/bin/ecs-gpu"]
CMD ["--help"]
