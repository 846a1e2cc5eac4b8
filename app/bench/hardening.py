"""`bench hardening`: the hardening issue's reproductions, run against a real `triage-dispatch serve` started in a
scratch home directory (its own SQLite, redis-server, Celery worker and engine worker), each against its target."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from app.bench.checks import Check
from app.bench.flood import FLOOD_LIMIT, FLOOD_SECRET, flood_checks
from app.bench.intake import wait_http
from app.intake.signatures import signed_headers
from app.redis.local import free_port, start_redis_server

SECRET = "whsec_" + "aGFyZGVuaW5nLXJlcHJvZHVjdGlvbnMtc2VjcmV0IQ=="
PASSWORD = "correct horse battery"


def _cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _post_call(client: httpx.Client, text: str) -> httpx.Response:
    body = json.dumps({"text": text}).encode()
    return client.post("/v1/intake/cad", content=body, headers=signed_headers(SECRET, f"msg_{uuid.uuid4().hex}", body))


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(0.9 * len(ordered) + 0.5) - 1)] if ordered else float("nan")


def _healthz_during(base: str, load: Callable[[], None]) -> list[float]:
    """/healthz answer times (s) while `load` runs in other threads."""
    times: list[float] = []
    done = threading.Event()

    def run_load() -> None:
        try:
            load()
        finally:
            done.set()

    runner = threading.Thread(target=run_load)
    runner.start()
    with httpx.Client(base_url=base, timeout=10) as client:
        while not done.is_set():
            started = time.monotonic()
            client.get("/healthz")
            times.append(time.monotonic() - started)
            time.sleep(0.05)
    runner.join()
    return times


def readyz_storm(base: str, token: str) -> list[Check]:
    """30 concurrent /readyz callers for 10 s: /healthz answers and a signed call is classified."""
    stop_at = time.monotonic() + 10.0

    def caller() -> None:
        with httpx.Client(base_url=base, timeout=10) as client:
            while time.monotonic() < stop_at:
                client.get("/readyz")

    def storm() -> None:
        with ThreadPoolExecutor(30) as pool:
            for _ in range(30):
                pool.submit(caller)

    classified: list[float] = []

    def post_and_wait() -> None:
        with httpx.Client(base_url=base, timeout=10) as client:
            started = time.monotonic()
            incident_id = _post_call(client, "Man, 60, crushing chest pain and sweating").json()["incident_id"]
            auth = {"authorization": f"Bearer {token}"}
            while time.monotonic() - started < 60:
                if client.get(f"/v1/incidents/{incident_id}", headers=auth).json().get("esi_level"):
                    classified.append(time.monotonic() - started)
                    return
                time.sleep(0.2)

    poster = threading.Thread(target=post_and_wait)
    poster.start()
    times = _healthz_during(base, storm)
    poster.join()
    worst = max(times)
    seconds = classified[0] if classified else float("inf")
    return [
        Check("/healthz during 30 /readyz callers (10 s)", f"max {worst:.2f} s", "< 2 s", worst < 2.0),
        Check("signed call classified during the /readyz storm", f"{seconds:.1f} s", "< 30 s", seconds < 30.0),
    ]


def refusals(base: str, token: str) -> list[Check]:
    """Empty-once-cleaned text, non-integer levels and an override of a closed incident."""
    auth = {"authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, timeout=10) as client:
        before = len(client.get("/v1/incidents?status=all&limit=1000", headers=auth).json()["incidents"])
        empty = [_post_call(client, text).status_code for text in ("\u0000", "\u200b", " \x07 ")]
        after = len(client.get("/v1/incidents?status=all&limit=1000", headers=auth).json()["incidents"])
        incident_id = _post_call(client, "Fell off a ladder, leg bent wrongly").json()["incident_id"]
        levels = [
            client.post(f"/v1/incidents/{incident_id}/override", json={"esi_level": level, "reason": "r"}, headers=auth)
            for level in (2.0, True)
        ]
        client.post(f"/v1/incidents/{incident_id}/close", json={"disposition": "other"}, headers=auth)
        closed = client.post(
            f"/v1/incidents/{incident_id}/override", json={"esi_level": 2, "reason": "r"}, headers=auth
        )
    return [
        Check(
            "text empty once cleaned (3 calls)",
            f"{empty}, {after - before} stored",
            "422 x3, 0 stored",
            empty == [422] * 3 and after == before,
        ),
        Check(
            "override with 2.0 and true",
            str([r.status_code for r in levels]),
            "422 x2",
            [r.status_code for r in levels] == [422, 422],
        ),
        Check("override of a closed incident", str(closed.status_code), "409", closed.status_code == 409),
    ]


def sign_in(base: str) -> list[Check]:
    """10 wrong passwords then the right one; then /healthz while 24 sign-ins run in parallel."""
    with httpx.Client(base_url=base, timeout=30) as client:
        for _ in range(10):
            client.post("/login", data={"username": "alice", "password": "wrong password"})
        right = client.post("/login", data={"username": "alice", "password": PASSWORD})

    def sign_ins() -> None:
        def one(_: int) -> None:
            with httpx.Client(base_url=base, timeout=30) as client:
                client.post("/login", data={"username": "bob", "password": PASSWORD})

        with ThreadPoolExecutor(24) as pool:
            list(pool.map(one, range(24)))

    p90 = _p90(_healthz_during(base, sign_ins))
    return [
        Check("right password after 10 wrong ones", str(right.status_code), "429", right.status_code == 429),
        Check("/healthz p90 during 24 parallel sign-ins", f"{p90 * 1000:.0f} ms", "< 250 ms", p90 < 0.25),
    ]


SLOW_HEAD = b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
SLOW_WATCH_S = 25.0
"""Past `serve`'s deadlines: 10 s for a head (TRIAGE_CLIENT_HEADER_TIMEOUT_S), 20 s for a body (..._BODY_...)."""


def _held_slow_connections(port: int, watch_s: float) -> tuple[int, float]:
    """20 connections sending a 1000-byte body a byte a second (after a whole head) and one sending its head a byte a
    second: how many the server still holds after `watch_s`, and when it closed the last one it closed (s)."""
    trickles: dict[socket.socket, bytes] = {}
    for _ in range(20):
        connection = socket.create_connection(("127.0.0.1", port), timeout=5)
        connection.sendall(SLOW_HEAD + b"Content-Length: 1000\r\n\r\n")
        trickles[connection] = b"x" * 1000
    trickles[socket.create_connection(("127.0.0.1", port), timeout=5)] = SLOW_HEAD
    started, last_closed = time.monotonic(), 0.0
    while trickles and time.monotonic() - started < watch_s:
        for connection in select.select(list(trickles), [], [], 1.0)[0]:
            try:
                closed = not connection.recv(4096)
            except OSError:
                closed = True
            if closed:
                trickles.pop(connection)
                connection.close()
                last_closed = time.monotonic() - started
        for connection, left in list(trickles.items()):
            try:
                connection.sendall(left[:1])
                trickles[connection] = left[1:]
            except OSError:
                pass  # closed by the server: the next select reads its end
        time.sleep(1.0)
    held = len(trickles)
    for connection in trickles:
        connection.close()
    return held, last_closed


def slow_clients(port: int) -> list[Check]:
    """Slow senders are let go at `serve`'s deadlines instead of held for ever."""
    held, last_closed = _held_slow_connections(port, SLOW_WATCH_S)
    return [
        Check(
            "21 slow senders (20 bodies, 1 head, a byte a second)",
            f"{held} held after {SLOW_WATCH_S:.0f} s (last closed at {last_closed:.1f} s)",
            "0 held",
            held == 0,
        )
    ]


def run_hardening_checks() -> list[Check]:
    """Start a redis-server and `serve` in a scratch home, add the users, run every reproduction, stop both."""
    with tempfile.TemporaryDirectory(prefix="hardening-") as home:
        redis_server, redis_url = start_redis_server(Path(home) / "redis", appendonly=False)
        try:
            return _against_serve(home, redis_url)
        finally:
            redis_server.terminate()
            redis_server.wait(timeout=10)


def _against_serve(home: str, redis_url: str) -> list[Check]:
    """`serve` on this Redis (the bench watches the heap in it), the users, every reproduction."""
    port = free_port()
    env = {
        **os.environ,
        "HOME": home,
        "TRIAGE_ENGINE": "hf",
        "TRIAGE_MODEL": "builtin:tiny-llama",
        "TRIAGE_MAX_NEW_TOKENS": "8",
        "TRIAGE_WEBHOOK_SECRETS": json.dumps({"cad": [SECRET], "flood": [FLOOD_SECRET]}),
        "TRIAGE_INTAKE_LIMITS": json.dumps({"flood": FLOOD_LIMIT}),
        "TRIAGE_REDIS_URL": redis_url,
    }
    env.pop("TRIAGE_DATABASE_URL", None)
    _cli(env, "db", "upgrade")
    _cli(env, "users", "add", "alice", "--role", "dispatcher", "--password", PASSWORD)
    _cli(env, "users", "add", "bob", "--role", "dispatcher", "--password", PASSWORD)
    token = _cli(env, "users", "token", "alice").splitlines()[-1]
    log = Path(home) / "serve.log"
    with log.open("wb") as out:
        serve = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)], env=env, stdout=out, stderr=out
        )
    try:
        wait_http(port, timeout_s=180)
        base = f"http://127.0.0.1:{port}"
        refused = 'triage_intake_source_refused_total{reason="rate_limited",source="flood"}'
        return [
            *readyz_storm(base, token),
            *refusals(base, token),
            *sign_in(base),
            *slow_clients(port),
            *flood_checks(base, token, SECRET, redis_url, refused),
        ]
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=60)
        except subprocess.TimeoutExpired:
            serve.kill()
