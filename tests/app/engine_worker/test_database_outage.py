"""A database outage is not the incident's failure: an engine worker that cannot load incidents because PostgreSQL is
restarting must not spend their five deliveries and then record them as failed (tests/app/test_faults.py saw 11
incidents reach "serving failed 5 times" within 0.4 s of a PostgreSQL restart; they survived only because recording
the failure needed the database too)."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest

from app.db.models import Incident, Outcome
from app.db.session import session_scope
from app.engine_worker import loop
from app.engine_worker.loop import MAX_DELIVERIES, EngineWorker, _Serving
from app.redis.local import free_port
from scheduler.engines.hf import HFEngine, HFEngineConfig
from scheduler.engines.tiny_models import build_tiny_llama
from tests.app.engine_worker.one_call import one_queued_call

_prefixes = itertools.count()


def test_a_database_outage_does_not_spend_an_incidents_deliveries(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transformers import AutoTokenizer

    model = build_tiny_llama(tmp_path)
    settings, heap = one_queued_call(tmp_path, redis_url, "outage")
    engine = HFEngine(HFEngineConfig(model_path=str(model)))  # never reached: loading the incident fails first
    worker = EngineWorker(settings, engine, AutoTokenizer.from_pretrained(model), "tiny-llama")
    away = f"postgresql+psycopg://triage@127.0.0.1:{free_port()}/triage"

    def load_while_the_database_is_away(database_url: str, incident_id: str, *args: object) -> None:
        with session_scope(away) as session:  # a real refused connection: sqlalchemy's OperationalError
            session.get(Incident, incident_id)

    monkeypatch.setattr(loop, "load_incident", load_while_the_database_is_away)
    for _ in range(MAX_DELIVERIES):
        item = heap.pop_lease(worker.consumer, 30.0)
        assert item is not None
        # The load fails (the database is away); whatever the worker writes next finds it back.
        asyncio.run(worker._generate(_Serving(item)))
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, "call-1")
        assert incident is not None and incident.guidance_state != "failed"
        assert session.get(Outcome, "call-1") is None
    assert "call-1" in heap
