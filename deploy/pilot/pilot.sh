#!/usr/bin/env bash
# The compose pilot's machinery on a machine that reaches no image registry (`make pilot`, docs/deploy.md):
#   engine  Debian's docker.io, docker-compose (1.29) and debootstrap when missing; a dockerd of the pilot's own, as
#           root, its data root, exec root and socket under $TRIAGE_PILOT_DIR, default iptables rules (without them
#           containers do not resolve each other by name). Storage: fuse-overlayfs (Debian's package) where /dev/fuse
#           exists, else vfs, or $TRIAGE_PILOT_STORAGE_DRIVER. vfs copies the whole image for every build step and
#           every container: a 2.1 GB copy took 5 min on a busy 2-core machine, fuse-overlayfs shares the layers.
#   images  the Debian bases (debootstrap, kept as tarballs in $TRIAGE_PILOT_DIR/cache), the services image
#           (Dockerfile.services) and the app's image (Dockerfile, engine `hf`), each built only when missing
#   clean   the project's containers, networks and volumes gone; dangling images pruned; `PRUNE=all` prunes the
#           images too (the next run builds them again from the cached bases)
#   stop    the pilot's dockerd stopped
# Every command prints `DOCKER_HOST=...` on its last line, for the test (tests/deploy/test_pilot.py) to reach the engine.
set -euo pipefail

PILOT_DIR=${TRIAGE_PILOT_DIR:-/var/tmp/triage-pilot}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SOCKET=$PILOT_DIR/docker/docker.sock
if [ -n "${TRIAGE_PILOT_STORAGE_DRIVER:-}" ]; then
    STORAGE_DRIVER=$TRIAGE_PILOT_STORAGE_DRIVER
elif [ -c /dev/fuse ]; then
    STORAGE_DRIVER=fuse-overlayfs
else
    STORAGE_DRIVER=vfs
fi
export DOCKER_HOST=unix://$SOCKET
DEBIAN_MIRROR=http://deb.debian.org/debian
BASE_IMAGE=triage-pilot/debian:bookworm
PYTHON_IMAGE=triage-pilot/python:3.11-bookworm
SERVICES_IMAGE=triage-pilot/services:bookworm
APP_IMAGE=triage-dispatch:latest
TORCH_WHEEL=${TRIAGE_TORCH_WHEEL:-/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl}

say() { printf 'pilot: %s\n' "$*" >&2; }

timed() {  # timed WHAT COMMAND...: run it, say how long it took
    local what=$1 start=$SECONDS
    shift
    "$@"
    say "$what took $((SECONDS - start)) s"
}

install_packages() {
    local missing=()
    command -v dockerd >/dev/null || missing+=(docker.io)
    command -v docker-compose >/dev/null || missing+=(docker-compose)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    [ "$STORAGE_DRIVER" != fuse-overlayfs ] || command -v fuse-overlayfs >/dev/null || missing+=(fuse-overlayfs)
    if ((${#missing[@]})); then
        say "installing ${missing[*]} from Debian"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

start_engine() {
    [ "$(id -u)" = 0 ] || { say "dockerd runs as root here: run as root"; exit 1; }
    install_packages
    if docker info >/dev/null 2>&1; then
        return
    fi
    mkdir -p "$PILOT_DIR/docker"
    say "starting dockerd ($STORAGE_DRIVER) on $SOCKET"
    # A data root per storage driver: images built under one are not seen by the other.
    nohup dockerd --storage-driver="$STORAGE_DRIVER" --data-root="$PILOT_DIR/docker/root-$STORAGE_DRIVER" \
        --exec-root="$PILOT_DIR/docker/exec" \
        --pidfile="$PILOT_DIR/docker/dockerd.pid" -H "$DOCKER_HOST" >"$PILOT_DIR/docker/dockerd.log" 2>&1 &
    for _ in $(seq 60); do
        docker info >/dev/null 2>&1 && return
        sleep 1
    done
    say "dockerd did not answer within 60 s: $PILOT_DIR/docker/dockerd.log"
    exit 1
}

has_image() { docker image inspect "$1" >/dev/null 2>&1; }

# Debian bookworm (minbase) and, for the app, the same with Python's venv module, the host's CA certificates (pip
# inside a build reaches PyPI through them) and a virtualenv holding torch 2.13.0 from the CPU wheel (no CUDA):
# the Dockerfile's `pip install torch==2.13.0` then finds it installed.
build_bases() {
    local cache=$PILOT_DIR/cache rootfs=$PILOT_DIR/rootfs
    mkdir -p "$cache"
    if [ ! -s "$cache/debian-bookworm.tar" ] || [ ! -s "$cache/python-3.11-bookworm.tar" ]; then
        rm -rf "$rootfs"
        timed debootstrap debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates bookworm \
            "$rootfs" "$DEBIAN_MIRROR" >"$PILOT_DIR/debootstrap.log"
        tar -C "$rootfs" -cf "$cache/debian-bookworm.tar" .
        cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/" 2>/dev/null || true
        chroot "$rootfs" update-ca-certificates >/dev/null
        cp "$TORCH_WHEEL" "$rootfs/tmp/"
        mount -t proc proc "$rootfs/proc"
        chroot "$rootfs" python3 -m venv /opt/triage-dispatch
        timed "torch into the base" chroot "$rootfs" /usr/bin/env -u PIP_FIND_LINKS PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
            /opt/triage-dispatch/bin/pip install --quiet --no-cache-dir --disable-pip-version-check \
            "/tmp/$(basename "$TORCH_WHEEL")" || { umount "$rootfs/proc"; exit 1; }
        umount "$rootfs/proc"
        rm -f "$rootfs/tmp/$(basename "$TORCH_WHEEL")"
        tar -C "$rootfs" -cf "$cache/python-3.11-bookworm.tar" .
        rm -rf "$rootfs"
    fi
    has_image "$BASE_IMAGE" || docker import "$cache/debian-bookworm.tar" "$BASE_IMAGE" >/dev/null
    has_image "$PYTHON_IMAGE" || docker import --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
        "$cache/python-3.11-bookworm.tar" "$PYTHON_IMAGE" >/dev/null
}

build_images() {
    build_bases
    if ! has_image "$SERVICES_IMAGE"; then
        timed "the services image" docker build -q --build-arg DEBIAN_IMAGE="$BASE_IMAGE" \
            -f "$ROOT/deploy/pilot/Dockerfile.services" -t "$SERVICES_IMAGE" "$ROOT/deploy/pilot" >/dev/null
    fi
    if ! has_image "$APP_IMAGE" || [ "${REBUILD:-}" = 1 ]; then
        timed "the app's image" docker build -q --build-arg PYTHON_IMAGE="$PYTHON_IMAGE" --build-arg ENGINE=hf \
            -t "$APP_IMAGE" "$ROOT" >/dev/null
    fi
}

clean() {
    local project
    for project in $(docker ps -a --filter label=com.docker.compose.project --format '{{.Label "com.docker.compose.project"}}' | sort -u); do
        say "removing the containers of project $project"
        docker ps -aq --filter "label=com.docker.compose.project=$project" | xargs -r docker rm -f >/dev/null
    done
    docker volume prune -f >/dev/null
    docker network prune -f >/dev/null
    if [ "${PRUNE:-}" = all ]; then
        docker system prune -af --volumes >/dev/null
    else
        docker image prune -f >/dev/null
    fi
}

stop_engine() {
    local pid
    pid=$(cat "$PILOT_DIR/docker/dockerd.pid" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null || return 0
    while kill -0 "$pid" 2>/dev/null; do sleep 1; done
}

case "${1:-}" in
    engine) start_engine ;;
    images) start_engine && build_images ;;
    clean) clean ;;
    stop) stop_engine ;;
    *) say "usage: $0 engine|images|clean|stop"; exit 2 ;;
esac
echo "DOCKER_HOST=$DOCKER_HOST"
