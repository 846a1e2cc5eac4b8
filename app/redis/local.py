"""Start a local `redis-server` (for `serve` on embedded defaults, and for the tests): a real server, not a fake."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import redis

from app.redis.urls import connect


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_redis_server(
    directory: Path,
    port: int | None = None,
    appendonly: bool = True,
    preexec_fn: Callable[[], None] | None = None,
    extra_args: Sequence[str] = (),
) -> tuple[subprocess.Popen[bytes], str]:
    """Start redis-server on 127.0.0.1 with its files in `directory`; returns the process and its URL
    (`preexec_fn` runs in the child before redis-server does; `extra_args` are more options, `--replicaof` say)."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError(
            "redis-server is not installed (Debian: apt-get install redis-server) and TRIAGE_REDIS_URL is unset"
        )
    directory.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    process = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(directory),
            "--save",
            "",
            "--appendonly",
            "yes" if appendonly else "no",
            "--protected-mode",
            "yes",
            *extra_args,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=preexec_fn,
    )
    url = f"redis://127.0.0.1:{port}/0"
    wait_for_redis(url, process)
    return process, url


def wait_for_redis(url: str, process: subprocess.Popen[bytes] | None = None, timeout_s: float = 20.0) -> None:
    """Until Redis at `url` (plain or Sentinel) answers a PING; `process` exiting meanwhile is an error."""
    client = connect(url, socket_connect_timeout=0.5)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            client.ping()
            return
        except redis.RedisError:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {process.returncode}") from None
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
