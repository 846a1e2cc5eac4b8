"""`bench hardening`'s flood: one source sends ESI 1 calls at 10 times its intake limit, retrying every 429 after
its Retry-After as a Standard Webhooks sender does, while another source sends real ESI 1 calls."""

from __future__ import annotations

import heapq
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import redis

from app.bench.checks import Check
from app.intake.signatures import signed_headers
from scheduler.redis_heap import RedisSemanticHeap

FLOOD_SECRET = "whsec_" + "Zmxvb2Qtc291cmNlLXNlbmRpbmctdG9vLW11Y2gh"
FLOOD_LIMIT = "60/minute;10/10 seconds"
"""The flooding source's limit in the bench: 1 call a second; it sends 10 a second (10 times its limit)."""
FLOOD_RATE_PER_S = 10.0
FLOOD_CALLS = 200
RETRY_HORIZON_S = 60.0
"""The flooding sender retries until this long after its first call; what is still refused then waits in the sender
(each with the Retry-After it was given): refused, not lost."""
CAD_CALLS_AT_S = (3.0, 8.0, 13.0, 18.0)
"""When the other source sends its ESI 1 calls, during the flood."""
CAD_ESI1_TEXT = "Man, 60, collapsed at home, not breathing, no pulse, wife starting CPR"
FLOOD_ESI1_TEXT = "Woman unconscious, not breathing, lips blue (flood call {n})"
GUIDANCE_TARGET_S = 60.0
"""ESI 1 has no deadline of its own (it is strictly first); ESI 2's 60 s is the bound the bench holds it to."""


@dataclass
class FloodSender:
    """The flooding source's outcome per call: accepted at once, accepted after retrying, still refused, or lost
    (any answer that is neither 202 nor 429 with Retry-After)."""

    at_once: int = 0
    after_retry: int = 0
    refusals: int = 0
    waiting: int = 0
    lost: list[str] = field(default_factory=list)
    stored: int = 0
    """Its incidents in the database afterwards: the accepted calls, each once, and nothing for a refused one."""


def _post(client: httpx.Client, source: str, secret: str, webhook_id: str, text: str) -> httpx.Response:
    body = json.dumps({"text": text}).encode()
    return client.post(f"/v1/intake/{source}", content=body, headers=signed_headers(secret, webhook_id, body))


def flood(
    client: httpx.Client,
    started: float,
    calls: int = FLOOD_CALLS,
    rate_per_s: float = FLOOD_RATE_PER_S,
    horizon_s: float = RETRY_HORIZON_S,
) -> FloodSender:
    """Send `calls` from the `flood` source at `rate_per_s` from `started` (monotonic), each refused one again after
    its Retry-After, until `horizon_s` after `started`."""
    outcome = FloodSender()
    due = [(started + n / rate_per_s, n, 0) for n in range(calls)]
    heapq.heapify(due)
    while due and due[0][0] < started + horizon_s:
        at, n, tries = heapq.heappop(due)
        time.sleep(max(0.0, at - time.monotonic()))
        answer = _post(client, "flood", FLOOD_SECRET, f"flood-{n}", FLOOD_ESI1_TEXT.format(n=n))
        if answer.status_code == 202:
            if tries:
                outcome.after_retry += 1
            else:
                outcome.at_once += 1
        elif answer.status_code == 429 and answer.headers.get("retry-after", "").isdigit():
            outcome.refusals += 1
            heapq.heappush(due, (time.monotonic() + int(answer.headers["retry-after"]), n, tries + 1))
        else:
            outcome.lost.append(f"flood-{n}: {answer.status_code}")
    outcome.waiting = len(due)
    return outcome


def cad_calls(base: str, started: float, secret: str) -> list[tuple[str, float]]:
    """The other source's ESI 1 calls during the flood: (incident id, when sent)."""
    sent = []
    with httpx.Client(base_url=base, timeout=10) as client:
        for at in CAD_CALLS_AT_S:
            time.sleep(max(0.0, started + at - time.monotonic()))
            answer = _post(client, "cad", secret, f"cad-{uuid.uuid4().hex}", CAD_ESI1_TEXT)
            sent.append((str(answer.json()["incident_id"]), time.monotonic()))
    return sent


def watch_positions(heap: RedisSemanticHeap, stop: threading.Event) -> dict[str, tuple[int, int]]:
    """For each waiting call, the first place it was seen at in the order the heap takes calls, and how many
    flood calls were waiting then."""
    first_seen: dict[str, tuple[int, int]] = {}
    while not stop.is_set():
        waiting, _ = heap.snapshot()
        flood_waiting = sum(1 for item in waiting if item.source == "flood")
        for place, item in enumerate(waiting, start=1):
            first_seen.setdefault(item.incident_id, (place, flood_waiting))
        time.sleep(0.05)
    return first_seen


def _guidance_s(client: httpx.Client, token: str, incident_id: str, sent_at: float, wait_s: float) -> float | None:
    """Seconds from sending to finished guidance (None: not within `wait_s`)."""
    while time.monotonic() - sent_at < wait_s:
        detail: dict[str, Any] = client.get(
            f"/v1/incidents/{incident_id}", headers={"authorization": f"Bearer {token}"}
        ).json()
        if detail.get("guidance_state") == "done":
            total = detail["timings"]["total_s"]
            return float(total) if total is not None else time.monotonic() - sent_at
        time.sleep(0.25)
    return None


def flood_checks(base: str, token: str, cad_secret: str, redis_url: str, refused_metric: str) -> list[Check]:
    """Run the flood and the other source's calls together; check nothing was lost and the other source's ESI 1
    calls kept their place."""
    heap = RedisSemanticHeap(redis.Redis.from_url(redis_url), "triage")
    stop = threading.Event()
    seen: dict[str, tuple[int, int]] = {}
    watcher = threading.Thread(target=lambda: seen.update(watch_positions(heap, stop)))
    watcher.start()
    started = time.monotonic() + 0.5
    cad: list[tuple[str, float]] = []
    cad_thread = threading.Thread(target=lambda: cad.extend(cad_calls(base, started, cad_secret)))
    cad_thread.start()
    with httpx.Client(base_url=base, timeout=10) as client:
        outcome = flood(client, started)
    cad_thread.join()
    with httpx.Client(base_url=base, timeout=10) as client:
        guidance = [_guidance_s(client, token, incident_id, sent, GUIDANCE_TARGET_S + 30) for incident_id, sent in cad]
        refused_total = _metric(client.get("/metrics").text, refused_metric)
        auth = {"authorization": f"Bearer {token}"}
        levels = [client.get(f"/v1/incidents/{i}", headers=auth).json()["esi_level"] for i, _ in cad]
        listed = client.get("/v1/incidents?status=all&limit=1000", headers=auth).json()["incidents"]
    stop.set()
    watcher.join()
    outcome.stored = sum(1 for incident in listed if incident["source"] == "flood")
    return _judge(outcome, refused_total, cad, seen, guidance, levels)


def _metric(text: str, line_start: str) -> float:
    for line in text.splitlines():
        if line.startswith(line_start):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def _judge(
    outcome: FloodSender,
    refused_total: float,
    cad: list[tuple[str, float]],
    seen: dict[str, tuple[int, int]],
    guidance: list[float | None],
    levels: list[int | None],
) -> list[Check]:
    accepted = outcome.at_once + outcome.after_retry
    places = [seen.get(incident_id, (1, 0)) for incident_id, _ in cad]  # never seen waiting: taken at once
    finished = [seconds for seconds in guidance if seconds is not None]
    worst = max(finished) if len(finished) == len(guidance) else float("inf")
    return [
        Check(
            f"flood: one source at 10x its limit ({FLOOD_CALLS} ESI 1 calls at {FLOOD_RATE_PER_S:.0f}/s, limit "
            f"{FLOOD_LIMIT}), retried per Retry-After for {RETRY_HORIZON_S:.0f} s",
            f"{outcome.at_once} accepted at once, {outcome.after_retry} after retrying, {outcome.waiting} still "
            f"refused with Retry-After (held by the sender), {len(outcome.lost)} lost; {outcome.stored} stored; "
            f"{outcome.refusals} 429s, metric {refused_total:.0f}",
            "0 lost; stored = accepted; every 429 with Retry-After and counted",
            not outcome.lost
            and outcome.stored == accepted
            and accepted + outcome.waiting == FLOOD_CALLS
            and refused_total == outcome.refusals
            and accepted < FLOOD_CALLS,
        ),
        Check(
            f"flood: the other source's {len(cad)} ESI 1 calls",
            f"ESI {levels}, first place in the queue {[place for place, _ in places]} with "
            f"{[waiting for _, waiting in places]} flood calls waiting, guidance in max {worst:.1f} s",
            f"ESI 1, place <= 2, guidance < {GUIDANCE_TARGET_S:.0f} s",
            all(level == 1 for level in levels)
            and all(place <= 2 for place, _ in places)
            and worst < GUIDANCE_TARGET_S,
        ),
    ]
