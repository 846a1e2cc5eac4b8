"""The engine worker's failure cap counts every kind of failure: an incident that fails for a reason other than an
engine error (here, a model whose chat template raises) goes back to the heap, and after the fifth delivery it is
recorded as failed instead of circulating for ever."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from sqlalchemy import select

from app.db.models import Incident, Outcome
from app.db.session import session_scope
from app.engine_worker.loop import MAX_DELIVERIES, EngineWorker, _Serving
from scheduler.engines.hf import HFEngine, HFEngineConfig
from scheduler.engines.tiny_models import build_tiny_llama
from tests.app.engine_worker.one_call import one_queued_call

_prefixes = itertools.count()


def test_a_failure_other_than_the_engines_counts_toward_the_cap(tmp_path: Path, redis_url: str) -> None:
    from transformers import AutoTokenizer

    model = build_tiny_llama(tmp_path)
    tokenizer = AutoTokenizer.from_pretrained(model)
    tokenizer.chat_template = "{{ raise_exception('this model ships a broken chat template') }}"
    settings, heap = one_queued_call(tmp_path, redis_url, "cap")
    engine = HFEngine(HFEngineConfig(model_path=str(model)))  # never reached: the prompt fails first
    worker = EngineWorker(settings, engine, tokenizer, "tiny-llama")
    for delivery in range(1, MAX_DELIVERIES + 1):
        item = heap.pop_lease(worker.consumer, 30.0)
        assert item is not None and item.deliveries == delivery  # given back at once, not after its lease
        asyncio.run(worker._generate(_Serving(item)))
    assert heap.pop_lease(worker.consumer, 30.0) is None and "call-1" not in heap
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, "call-1")
        assert incident is not None and incident.guidance_state == "failed"
        outcome = session.scalars(select(Outcome).where(Outcome.incident_id == "call-1")).one()
        assert outcome.error is not None
        assert outcome.error.startswith(f"serving failed {MAX_DELIVERIES} times: TemplateError: this model ships")
