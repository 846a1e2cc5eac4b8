"""`bench live`: timestamped calls replayed at real time through a real web app, Celery worker and redis-server (and
an engine worker when asked): events a second held, answer times, recognition delay and card latency after the
decisive utterance, false arrest cards; with another source flooding (a runaway call and a burst of new calls).

Each call sends its utterances on both tracks through the segment webhook, each final preceded by partials that grow
a word every 0.2 s (as a transcription system shows what is being said). A thread reads the database every 0.1 s
for each call's level and card.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from app.bench.intake import wait_http
from app.bench.live_calls import SCRIPTS, CallScript
from app.db.migrate import upgrade
from app.intake.signatures import signed_headers
from app.redis.local import free_port, start_redis_server

SECRET = "whsec_" + base64.b64encode(b"bench-live-secret-32-random-byte").decode()
FLOOD_SECRET = "whsec_" + base64.b64encode(b"bench-live-flood-32-random-bytes").decode()
ROOT = Path(__file__).resolve().parents[2]
PARTIAL_EVERY_S = 0.2
CALLS_PER_CLIENT = 8
CENTRE_LIMIT = "6000/minute;1000/10 seconds"
"""The bench's centre source carries every call of the run (a centre sets its own limit per source)."""


@dataclass
class Sent:
    """What the sender saw: each POST's latency and status, and when each call's decisive utterance was answered."""

    latencies: list[float] = field(default_factory=list)
    status_list: list[int] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    lags: list[float] = field(default_factory=list)
    decisive_at: dict[str, float] = field(default_factory=dict)
    finals: int = 0

    def record(self, status: int, latency: float, lag: float) -> None:
        self.latencies.append(latency)
        self.status_list.append(status)
        self.lags.append(lag)
        self.statuses[status] = self.statuses.get(status, 0) + 1


def events_of(script: CallScript, call_id: str, stretch: float) -> list[tuple[float, dict[str, Any], bool]]:
    """(when, body, decisive) of each event of one call, in order."""
    events: list[tuple[float, dict[str, Any], bool]] = []
    sequence = 0
    for index, utterance in enumerate(script.utterances):
        words = utterance.text.split()
        at = utterance.offset_s * stretch
        for count in range(1, len(words)):
            sequence += 1
            when = max(0.0, at - PARTIAL_EVERY_S * (len(words) - count))
            body = {"call_id": call_id, "sequence": sequence, "offset_s": round(when, 3), "track": utterance.track,
                    "text": " ".join(words[:count]), "final": False}  # fmt: skip
            events.append((when, body, False))
        sequence += 1
        body = {"call_id": call_id, "sequence": sequence, "offset_s": at, "track": utterance.track,
                "text": utterance.text, "final": True}  # fmt: skip
        events.append((at, body, index == script.decisive))
    last = events[-1][0] + 1.0
    events.append((last, {"call_id": call_id, "sequence": sequence + 1, "offset_s": last, "event": "stopped"}, False))
    return events


async def _post(client: httpx.AsyncClient, source: str, secret: str, body: dict[str, Any]) -> tuple[int, float]:
    raw = json.dumps(body).encode()
    msg_id = f"{body['call_id']}-{body['sequence']}"
    began = time.perf_counter()
    try:
        answer = await client.post(
            f"/v1/intake/{source}/segments", content=raw, headers=signed_headers(secret, msg_id, raw)
        )
        status = answer.status_code
    except httpx.HTTPError:
        status = 0
    return status, time.perf_counter() - began


async def play_call(
    client: httpx.AsyncClient, script: CallScript, call_id: str, start: float, stretch: float, sent: Sent
) -> None:
    for when, body, decisive in events_of(script, call_id, stretch):
        due = start + when
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        lag = time.monotonic() - due
        status, latency = await _post(client, "centre", SECRET, body)
        sent.record(status, latency, lag)
        sent.finals += bool(body.get("final")) and status == 200
        if decisive:
            sent.decisive_at[call_id] = time.time()


async def flood(client: httpx.AsyncClient, start: float, seconds: float, sent: Sent) -> None:
    """A runaway call (40 events a second) and a burst of new calls (10 a second) from the `flood` source."""

    async def one(body: dict[str, Any]) -> None:
        status, latency = await _post(client, "flood", FLOOD_SECRET, body)
        sent.record(status, latency, 0.0)

    async def send(per_s: float, body_of: Any) -> None:
        """Open loop: each request is sent on time whether or not the last one was answered."""
        pending, number = [], 0
        while time.monotonic() < start + seconds:
            number += 1
            pending.append(asyncio.create_task(one(body_of(number))))
            await asyncio.sleep(1 / per_s)
        await asyncio.gather(*pending)

    def runaway(n: int) -> dict[str, Any]:
        return {"call_id": "runaway", "sequence": n, "offset_s": 1.0, "track": "caller", "text": "hello?"}

    def new_call(n: int) -> dict[str, Any]:
        return {"call_id": f"burst-{n}", "sequence": 1, "offset_s": 1.0, "track": "caller", "text": "help"}

    await asyncio.sleep(max(0.0, start - time.monotonic()))
    await asyncio.gather(send(40, runaway), send(10, new_call))


def watch(database: Path, stop: threading.Event, seen: dict[str, dict[str, float]]) -> None:
    """First time each call's incident was ESI 1 and first time it had a CPR card (this machine's clock)."""
    while not stop.is_set():
        try:
            with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1) as connection:
                rows = connection.execute("SELECT call_id, esi_level, card_id FROM incidents").fetchall()
        except sqlite3.Error:
            rows = []
        now = time.time()
        for call_id, level, card in rows:
            marks = seen.setdefault(call_id, {})
            if level == 1:
                marks.setdefault("esi1", now)
            if card and card.startswith("cpr-"):
                marks.setdefault("card", now)
        stop.wait(0.1)


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


@dataclass(frozen=True, slots=True)
class LiveBenchResult:
    calls: int
    engine: str
    speed: float
    """The calls' clock against real time (3.0: every call three times as fast, three times the events a second)."""
    events: int
    offered_per_s: float
    """Events a second the calls' schedule asks for, from the first event due to the last."""
    events_per_s: float
    """Events a second answered, from the first sent to the last answered: the offered rate when intake holds."""
    post_p50_ms: float | None
    post_p99_ms: float | None
    schedule_lag_p99_ms: float | None
    not_answered_200: int
    finals_sent: int
    finals_stored: int
    arrests: int
    arrests_recognised: int
    recognition_p50_s: float | None
    recognition_p95_s: float | None
    card_p95_s: float | None
    false_arrest_cards: int
    flood_requests: int
    flood_refused: int
    flood_other_status: int
    flood_429_p50_ms: float | None
    flood_429_p99_ms: float | None
    web_cpu_ms_per_event: float | None
    """CPU time the web process spent per event sent (all its threads), whatever else shared the machine."""
    load_average_before: float

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


async def _run(
    port: int, calls: int, ramp_s: float, stretch: float, with_flood: bool
) -> tuple[Sent, Sent, dict[str, CallScript], float]:
    sent, flooded = Sent(), Sent()
    plan = {f"bench-{n}-{SCRIPTS[n % len(SCRIPTS)].name}": SCRIPTS[n % len(SCRIPTS)] for n in range(calls)}
    # One small client per CALLS_PER_CLIENT calls: httpx's connection pool scans every connection for every request,
    # so a single client of a hundred connections spends the sender's CPU there instead of sending.
    limits = httpx.Limits(max_connections=CALLS_PER_CLIENT, max_keepalive_connections=CALLS_PER_CLIENT)
    clients = [
        httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30, limits=limits)
        for _ in range(calls // CALLS_PER_CLIENT + 2)
    ]
    try:
        start = time.monotonic() + 0.5
        began = time.monotonic()
        tasks = [
            play_call(clients[index // CALLS_PER_CLIENT], script, call_id,
                      start + ramp_s * index / max(1, calls), stretch, sent)
            for index, (call_id, script) in enumerate(plan.items())
        ]  # fmt: skip
        if with_flood:
            tasks.append(flood(clients[-1], start + ramp_s, 15.0, flooded))
        await asyncio.gather(*tasks)
        elapsed = time.monotonic() - began
    finally:
        for client in clients:
            await client.aclose()
    return sent, flooded, plan, elapsed


def _cpu_seconds(pid: int) -> float:
    import psutil

    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def _stored_finals(database: Path) -> int:
    with sqlite3.connect(database) as connection:
        return int(connection.execute("SELECT COUNT(*) FROM call_segments WHERE promoted = 0").fetchone()[0])


def offered_span_s(calls: int, ramp_s: float, stretch: float) -> float:
    """Seconds from the first event due to the last, the calls started over `ramp_s`."""
    plan = [SCRIPTS[n % len(SCRIPTS)] for n in range(calls)]
    ends = [ramp_s * n / max(1, calls) + events_of(script, "-", stretch)[-1][0] for n, script in enumerate(plan)]
    return max(ends)


def run_live_bench(
    calls: int = 100, ramp_s: float = 20.0, speed: float = 1.0, engine: str = "none", with_flood: bool = True,
    model_dir: Path | None = None,
) -> LiveBenchResult:  # fmt: skip
    """Start the processes, replay the calls (and the flood), wait for triage to settle, stop them."""
    stretch = 1.0 / speed
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-live-") as scratch:
        workdir = Path(scratch)
        redis_process, redis_url = start_redis_server(workdir / "redis", appendonly=False)
        database = workdir / "triage.db"
        upgrade(f"sqlite:///{database}")
        port = free_port()
        env = {
            **os.environ,
            "TRIAGE_DATABASE_URL": f"sqlite:///{database}",
            "TRIAGE_REDIS_URL": redis_url,
            "TRIAGE_WEBHOOK_SECRETS": json.dumps({"centre": [SECRET], "flood": [FLOOD_SECRET]}),
            "TRIAGE_INTAKE_LIMITS": json.dumps({"centre": CENTRE_LIMIT}),
            "TRIAGE_LIVE_STREAM_TIMEOUT_S": "30",
            "TRIAGE_ENGINE": "hf",
            "TRIAGE_MODEL": "builtin:tiny-llama",
            "TRIAGE_MAX_NEW_TOKENS": "16",
        }
        if model_dir is not None:
            env["TRIAGE_MODEL_DIR"] = str(model_dir)
        log = (workdir / "processes.log").open("ab")
        commands = [
            [sys.executable, "-m", "uvicorn", "app.api.main:create_app", "--factory", "--port", str(port),
             "--log-level", "warning"],
            [sys.executable, "-m", "app.cli.main", "worker"],
        ]  # fmt: skip
        if engine != "none":
            commands.append([sys.executable, "-m", "app.cli.main", "engine", "run"])
        processes = [subprocess.Popen(c, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT) for c in commands]
        stop, seen = threading.Event(), dict[str, dict[str, float]]()
        watcher = threading.Thread(target=watch, args=(database, stop, seen), daemon=True)
        try:
            wait_http(port, timeout_s=120)
            time.sleep(5)  # the worker loads its triage models
            watcher.start()
            web_cpu = _cpu_seconds(processes[0].pid)
            sent, flooded, plan, elapsed = asyncio.run(_run(port, calls, ramp_s, stretch, with_flood))
            web_cpu = _cpu_seconds(processes[0].pid) - web_cpu
            time.sleep(5)  # the last readings land
            stop.set()
            watcher.join()
            stored = _stored_finals(database)
        finally:
            stop.set()
            for process in processes:
                process.terminate()
            for process in processes:
                _stop(process)
            redis_process.terminate()
            redis_process.wait(timeout=10)
    result = _judge(calls, engine, sent, flooded, plan, seen, elapsed, stored)
    events = len(sent.latencies) + len(flooded.latencies)
    per_event = round(web_cpu * 1000 / max(1, events), 2)
    offered = round(len(sent.latencies) / offered_span_s(calls, ramp_s, stretch), 1)
    return dataclasses.replace(
        result, speed=speed, offered_per_s=offered, web_cpu_ms_per_event=per_event,
        load_average_before=round(load_before, 2),
    )  # fmt: skip


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Wait for a process told to stop; killed after 30 s (a Celery worker's warm shutdown waits for the re-triage
    tasks it holds, each reading its call again)."""
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _judge(
    calls: int, engine: str, sent: Sent, flooded: Sent, plan: dict[str, CallScript],
    seen: dict[str, dict[str, float]], elapsed: float, stored: int,
) -> LiveBenchResult:  # fmt: skip
    arrests = [call_id for call_id, script in plan.items() if script.arrest]
    recognition = [
        seen[c]["esi1"] - sent.decisive_at[c] for c in arrests if "esi1" in seen.get(c, {}) and c in sent.decisive_at
    ]
    card = [
        seen[c]["card"] - sent.decisive_at[c] for c in arrests if "card" in seen.get(c, {}) and c in sent.decisive_at
    ]
    false_cards = sum(1 for c, script in plan.items() if not script.arrest and "card" in seen.get(c, {}))
    refused = [lat for lat, status in zip(flooded.latencies, flooded.status_list, strict=True) if status == 429]
    return LiveBenchResult(
        calls=calls,
        engine=engine,
        speed=1.0,
        events=len(sent.latencies),
        offered_per_s=0.0,
        events_per_s=round(len(sent.latencies) / elapsed, 1),
        post_p50_ms=_ms(_pct(sent.latencies, 0.5)),
        post_p99_ms=_ms(_pct(sent.latencies, 0.99)),
        schedule_lag_p99_ms=_ms(_pct(sent.lags, 0.99)),
        not_answered_200=len(sent.latencies) - sent.statuses.get(200, 0),
        finals_sent=sent.finals,
        finals_stored=stored - _flood_finals(flooded),
        arrests=len(arrests),
        arrests_recognised=len(recognition),
        recognition_p50_s=_round(_pct(recognition, 0.5)),
        recognition_p95_s=_round(_pct(recognition, 0.95)),
        card_p95_s=_round(_pct(card, 0.95)),
        false_arrest_cards=false_cards,
        flood_requests=len(flooded.latencies),
        flood_refused=flooded.statuses.get(429, 0),
        flood_other_status=len(flooded.latencies) - flooded.statuses.get(429, 0) - flooded.statuses.get(200, 0),
        flood_429_p50_ms=_ms(_pct(refused, 0.5)),
        flood_429_p99_ms=_ms(_pct(refused, 0.99)),
        web_cpu_ms_per_event=None,
        load_average_before=0.0,
    )


def _flood_finals(flooded: Sent) -> int:
    return flooded.statuses.get(200, 0)


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
