"""`bench guidance`: how soon an ESI 1-2 call's protocol card is on the incident (read through the API), beside how
soon its first guidance token is, with the engine healthy, at a multiple of its capacity, and with it down; and the
checker's pass rate on what the engine wrote.

Each scenario runs a real `triage-dispatch serve` (its own SQLite, redis-server, Celery worker and engine worker) in
a scratch home. "Down" points the engine at a model that does not exist: it never serves. Times are from the POST of
the call to the first API read that shows the card (or a guidance token), reads every POLL_S.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from app.bench.intake import wait_http
from app.intake.signatures import signed_headers
from app.redis.local import free_port

SECRET = "whsec_" + "Z3VpZGFuY2UtYmVuY2gtc2VjcmV0LTMyLWJ5dGVzIQ=="
POLL_S = 0.1
WARM_UP_S = 600.0
"""The first call waits while the worker loads its models (or trains one, when the shipped model is out of date)."""
URGENT_CALLS = (
    "My husband collapsed, he is not breathing and has no pulse",
    "My 8 year old son is choking on a grape and can't breathe",
    "She was stung by a bee, her throat is swelling and she can't breathe, anaphylaxis",
    "He cut his leg with a chainsaw, severe bleeding, blood spurting everywhere",
    "Mi esposo se desmayó, no respira y no tiene pulso",
    "My wife is having a seizure right now, shaking all over, it won't stop",
    "Found my friend unresponsive, not breathing, I think he overdosed on heroin",
    "My baby is not breathing and turning blue",
)
MINOR_CALLS = (
    "Twisted my ankle playing football, it is a bit swollen",
    "I need a refill of my blood pressure medication",
    "Sore throat for two days, no fever",
    "Small cut on my finger from a kitchen knife, bleeding stopped",
)


@dataclass(frozen=True, slots=True)
class ScenarioFigures:
    """One scenario's ESI 1-2 calls: time to the card and to the first guidance token on the incident."""

    name: str
    urgent_calls: int
    background_calls: int
    carded: int
    card_p50_s: float | None
    card_p99_s: float | None
    first_token: int
    first_token_p50_s: float | None
    first_token_p99_s: float | None
    checked: int
    check_passed: int
    post_p99_s: float | None = None
    """Where a card's time goes: the intake's answer to the POST, at the 99th percentile."""
    classified_p99_s: float | None = None
    """... and the server's own time from receiving the call to the card stored with its ESI level (its
    `received` audit event to its `classified` one); the rest is the API read that sees it."""


@dataclass(frozen=True, slots=True)
class GuidanceBenchResult:
    model: str
    load: float
    capacity_per_s: float
    """Calls per second the engine finished in the healthy scenario; the overload scenario offers `load` times it."""
    scenarios: tuple[ScenarioFigures, ...]

    @property
    def check_pass_rate(self) -> float | None:
        checked = sum(figures.checked for figures in self.scenarios)
        return None if not checked else sum(figures.check_passed for figures in self.scenarios) / checked

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "load": self.load,
            "capacity_per_s": self.capacity_per_s,
            "check_pass_rate": self.check_pass_rate,
            "scenarios": [dataclasses.asdict(figures) for figures in self.scenarios],
        }


def percentile(values: list[float], q: float) -> float | None:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else None


@dataclass(slots=True)
class _Call:
    posted_s: float
    incident_id: str = ""
    card_s: float | None = None
    first_token_s: float | None = None
    check_passed: bool | None = None
    post_s: float | None = None
    classified_s: float | None = None


def _cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _post(client: httpx.Client, text: str) -> str:
    body = json.dumps({"text": text}).encode()
    response = client.post(
        "/v1/intake/cad", content=body, headers=signed_headers(SECRET, f"msg_{uuid.uuid4().hex}", body)
    )
    response.raise_for_status()
    incident_id: str = response.json()["incident_id"]
    return incident_id


def _follow(base: str, token: str, text: str, wait_guidance_s: float, give_up_s: float = 60.0) -> _Call:
    """Post one call and read its incident until the card is on it, then until a guidance token is (or give up)."""
    with httpx.Client(base_url=base, timeout=30, headers={"authorization": f"Bearer {token}"}) as client:
        call = _Call(time.monotonic())
        call.incident_id = _post(client, text)
        call.post_s = time.monotonic() - call.posted_s
        deadline = call.posted_s + give_up_s
        while time.monotonic() < deadline:
            body = client.get(f"/v1/incidents/{call.incident_id}").json()
            now = time.monotonic() - call.posted_s
            if call.card_s is None and body["protocol_card"] is not None:
                call.card_s = now
                call.classified_s = _server_seconds(body)
            guidance = body["guidance"]
            if call.first_token_s is None and guidance is not None and guidance["tokens"] > 0:
                call.first_token_s = now
            if guidance is not None and guidance["check_passed"] is not None:
                call.check_passed = guidance["check_passed"]
            done = call.card_s is not None and (call.check_passed is not None or now > wait_guidance_s)
            if done:
                return call
            time.sleep(POLL_S)
        return call


def _server_seconds(incident: dict[str, Any]) -> float | None:
    """The server's time from receiving a call to classifying it (its own clock: no network, no read lag): the
    incident's `received` audit event to its `classified` one."""
    at = {event["action"]: event["at"] for event in reversed(incident["events"])}  # the first of each
    if not at.get("received") or not at.get("classified"):
        return None
    return (dt.datetime.fromisoformat(at["classified"]) - dt.datetime.fromisoformat(at["received"])).total_seconds()


def _background(base: str, rate_per_s: float, stop: threading.Event, sent: list[int]) -> None:
    """Minor calls at `rate_per_s` until `stop`: the overload."""
    with httpx.Client(base_url=base, timeout=30) as client:
        index = 0
        while not stop.is_set():
            began = time.monotonic()
            _post(client, MINOR_CALLS[index % len(MINOR_CALLS)])
            index += 1
            sent[0] = index
            stop.wait(max(0.0, 1.0 / rate_per_s - (time.monotonic() - began)))


def _figures(name: str, calls: list[_Call], background: int) -> ScenarioFigures:
    cards = [call.card_s for call in calls if call.card_s is not None]
    firsts = [call.first_token_s for call in calls if call.first_token_s is not None]
    checked = [call.check_passed for call in calls if call.check_passed is not None]
    return ScenarioFigures(
        name=name,
        urgent_calls=len(calls),
        background_calls=background,
        carded=len(cards),
        card_p50_s=percentile(cards, 0.5),
        card_p99_s=percentile(cards, 0.99),
        first_token=len(firsts),
        first_token_p50_s=percentile(firsts, 0.5),
        first_token_p99_s=percentile(firsts, 0.99),
        checked=len(checked),
        check_passed=sum(checked),
        post_p99_s=percentile([call.post_s for call in calls if call.post_s is not None], 0.99),
        classified_p99_s=percentile([call.classified_s for call in calls if call.classified_s is not None], 0.99),
    )


def _scenario(
    name: str, env: dict[str, str], urgent: int, background_rate: float, wait_guidance_s: float
) -> tuple[ScenarioFigures, float]:
    """Serve in a scratch home, post `urgent` ESI 1-2 calls (two at a time) over minor calls at `background_rate`;
    the figures and the calls per second whose guidance the engine finished."""
    with tempfile.TemporaryDirectory(prefix="bench-guidance-") as home:
        env = {**env, "HOME": home}
        _cli(env, "db", "upgrade")
        _cli(env, "users", "add", "bench", "--role", "dispatcher", "--password", "bench guidance password")
        token = _cli(env, "users", "token", "bench").splitlines()[-1]
        port = free_port()
        with (Path(home) / "serve.log").open("wb") as log:
            serve = subprocess.Popen(
                [sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)], env=env, stdout=log, stderr=log
            )
        try:
            wait_http(port, timeout_s=180)
            base = f"http://127.0.0.1:{port}"
            warm = _follow(base, token, "warm-up: " + URGENT_CALLS[0], wait_guidance_s, WARM_UP_S)
            if warm.card_s is None:
                raise RuntimeError(f"the warm-up call got no card in {WARM_UP_S:g} s; see {home}/serve.log")
            stop, sent = threading.Event(), [0]
            flood = threading.Thread(target=_background, args=(base, background_rate, stop, sent), daemon=True)
            if background_rate > 0:
                flood.start()
            began = time.monotonic()
            texts = [URGENT_CALLS[index % len(URGENT_CALLS)] for index in range(urgent)]
            with ThreadPoolExecutor(2) as pool:
                calls = list(pool.map(lambda text: _follow(base, token, text, wait_guidance_s), texts))
            elapsed = time.monotonic() - began
            stop.set()
            if background_rate > 0:
                flood.join(timeout=30)
            finished = sum(call.check_passed is not None for call in calls)
            return _figures(name, calls, sent[0]), finished / elapsed
        finally:
            serve.send_signal(signal.SIGTERM)
            try:
                serve.wait(timeout=60)
            except subprocess.TimeoutExpired:
                serve.kill()


def run_guidance_bench(urgent: int = 12, load: float = 3.0, model: str = "builtin:tiny-llama") -> GuidanceBenchResult:
    """Healthy, then `load` times the healthy run's finished calls per second, then with the engine down."""
    env = {
        **os.environ,
        "TRIAGE_ENGINE": "hf",
        "TRIAGE_MODEL": model,
        "TRIAGE_MAX_NEW_TOKENS": "32",
        "TRIAGE_WEBHOOK_SECRETS": json.dumps({"cad": [SECRET]}),
        "TRIAGE_INTAKE_LIMIT": "100000/minute",  # the overload is the engine's: intake takes every call
    }
    for name in ("TRIAGE_DATABASE_URL", "TRIAGE_REDIS_URL"):
        env.pop(name, None)
    # One triage model directory for the three scenarios: when the shipped model cannot be used, the first
    # scenario's warm-up trains one there and the others load it.
    with tempfile.TemporaryDirectory(prefix="bench-guidance-model-") as model_dir:
        env["TRIAGE_MODEL_DIR"] = model_dir
        healthy, capacity = _scenario("engine healthy", env, urgent, 0.0, 30.0)
        overloaded, _ = _scenario(f"{load:g}x overload", env, urgent, max(0.2, load * capacity), 30.0)
        down_env = {**env, "TRIAGE_MODEL": "/nonexistent/guidance-bench-model"}
        down, _ = _scenario("engine down", down_env, urgent, 0.0, 0.0)
    return GuidanceBenchResult(model, load, capacity, (healthy, overloaded, down))
