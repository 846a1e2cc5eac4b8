"""The hardening bench's flooding sender against the real app: every call accepted, or refused with Retry-After
and sent again; none lost, each accepted one stored once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import cast

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.api.main import create_app
from app.bench.flood import FLOOD_SECRET, flood
from app.db.migrate import upgrade
from app.db.models import Incident
from app.db.session import session_scope
from app.settings import Settings


def test_the_flooding_sender_loses_nothing_and_retries_after_retry_after(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'flood.db'}"
    upgrade(url)
    settings = Settings(
        database_url=url, webhook_secrets={"flood": [FLOOD_SECRET]}, intake_limits={"flood": "3/4 seconds"}
    )
    # The eight calls go out in 80 ms; a window of 4 s (not 1 s) holds them all even on a loaded machine, whose
    # first requests can take a second, and the retries after Retry-After (4 s at most) land within the horizon.
    with TestClient(create_app(settings, reconciler=False, console=False)) as client:
        # TestClient is an httpx.Client (mypy reads Starlette's through another path).
        outcome = flood(cast(httpx.Client, client), time.monotonic(), calls=8, rate_per_s=100.0, horizon_s=9.0)
        metrics = client.get("/metrics").text
    with session_scope(url) as session:
        stored = session.scalar(select(func.count()).select_from(Incident).where(Incident.source == "flood"))
    accepted = outcome.at_once + outcome.after_retry
    assert outcome.lost == []
    assert outcome.at_once == 3  # the window's room, then 429s
    assert outcome.after_retry >= 3  # retried after Retry-After (5 s at most) and accepted
    assert accepted + outcome.waiting == 8
    assert stored == accepted
    refused = 'triage_intake_source_refused_total{reason="rate_limited",source="flood"}'
    assert f"{refused} {float(outcome.refusals)}" in metrics
