"""Slow clients against a real server with `serve`'s configuration (loopback only, bounded): a body sent at a byte
a second, a head sent the same way, and a connection that sends nothing are all closed once their deadline passes."""

from __future__ import annotations

import select
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from app.api.main import create_app
from app.api.server import uvicorn_config
from app.db.migrate import upgrade
from app.redis.local import free_port
from app.settings import Settings
from tests.app.live_server import serving

HEAD = b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
BODY_HEAD = HEAD + b"Content-Length: 1000\r\n\r\n"
WATCH_S = 15.0
"""How long each slow client keeps trying (the test's bound); the deadlines are 2 s (head) and 3 s (body)."""


@dataclass
class Held:
    """What one slow client saw: when the server closed its connection (None: still open) and what it answered."""

    closed_after_s: float | None = None
    answer: bytes = b""


def slow_client(port: int, at_once: bytes, trickle: bytes, held: Held) -> None:
    """Connect, send `at_once`, then `trickle` a byte a second (then nothing), until the server closes the
    connection or `WATCH_S` ends."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(at_once)
        remaining = list(trickle)
        while time.monotonic() - started < WATCH_S:
            try:
                if select.select([connection], [], [], 1.0)[0]:
                    data = connection.recv(4096)
                    held.answer += data
                    if not data:
                        break
                elif remaining:
                    connection.sendall(bytes([remaining.pop(0)]))
            except (BrokenPipeError, ConnectionResetError):
                break
        else:
            return
        held.closed_after_s = time.monotonic() - started


def run_slow_clients(port: int) -> tuple[list[Held], Held, Held]:
    """20 bodies at a byte a second (after a whole head), one head at a byte a second, one silent connection."""
    bodies = [Held() for _ in range(20)]
    head, silent = Held(), Held()
    plans = [(BODY_HEAD, b"x" * 1000, held) for held in bodies] + [(b"", HEAD, head), (b"", b"", silent)]
    threads = [threading.Thread(target=slow_client, args=(port, *plan)) for plan in plans]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=WATCH_S + 10)
    return bodies, head, silent


def test_slow_heads_slow_bodies_and_silent_connections_are_closed_at_their_deadlines(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'slow.db'}"
    upgrade(url)
    settings = Settings(database_url=url, client_header_timeout_s=2.0, client_body_timeout_s=3.0)
    config = uvicorn_config(create_app(settings, reconciler=False), settings, "127.0.0.1", free_port())
    with serving(config):
        bodies, head, silent = run_slow_clients(config.port)
        assert httpx.get(f"http://127.0.0.1:{config.port}/healthz").status_code == 200  # still serving
    still_open = [held for held in [*bodies, head, silent] if held.closed_after_s is None]
    assert still_open == [], f"{len(still_open)} of 22 slow connections still held after {WATCH_S:.0f} s"
    for held in bodies:
        assert held.answer.startswith(b"HTTP/1.1 408 "), held.answer
        assert held.answer.endswith(b'{"detail": "body not received within 3 s"}')
        assert held.closed_after_s is not None and held.closed_after_s < 3.0 + 5.0
    for held in (head, silent):
        assert held.answer == b""  # closed without an answer: nothing to answer yet
        assert held.closed_after_s is not None and held.closed_after_s < 2.0 + 5.0
