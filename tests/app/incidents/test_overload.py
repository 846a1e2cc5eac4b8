"""Overload shedding in the product: the sweep against a real redis-server and a migrated SQLite database."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import json
from pathlib import Path

import pytest
import redis
from sqlalchemy import func, select

from app.db.migrate import upgrade
from app.db.models import Guidance, Incident, IncidentEvent, Outbox, Outcome, utcnow
from app.db.session import session_scope
from app.engine_worker.loop import EngineWorker
from app.engine_worker.notices import listen_notices
from app.guidance.templates import TEMPLATE_VERSION
from app.incidents.overload import FALLBACK_DRAIN_RATE, SHED_ACTION, engine_drain_rate, shed_overdue
from app.redis.keys import ENGINE_HEARTBEAT, override_channel
from app.redis.queueing import Notice
from app.settings import Settings
from scheduler.engines.hf import HFEngine, HFEngineConfig
from scheduler.redis_heap import RedisSemanticHeap

_prefixes = itertools.count()
NOW = utcnow()


@pytest.fixture
def setup(tmp_path: Path, redis_url: str) -> tuple[Settings, RedisSemanticHeap]:
    url = f"sqlite:///{tmp_path / 'overload.db'}"
    upgrade(url)
    prefix = f"overload-{next(_prefixes)}"
    settings = Settings(database_url=url, redis_url=redis_url, queue_prefix=prefix)
    return settings, RedisSemanticHeap(redis.Redis.from_url(redis_url), prefix)


def queue(
    settings: Settings, heap: RedisSemanticHeap, incident_id: str, level: int, est_s: float, age_s: float, text: str
) -> None:
    """A classified incident waiting in the heap, as `classify_incident` leaves it."""
    accepted = NOW - dt.timedelta(seconds=age_s)
    with session_scope(settings.database_url) as session:
        session.add(
            Incident(
                id=incident_id,
                source="cad",
                webhook_id=incident_id,
                text=text,
                chief_complaint=text[:40],
                accepted_at=accepted,
                esi_level=level,
                model_level=level,
                classified_at=accepted,
                queued_at=accepted,
                guidance_state="queued",
            )
        )
        session.flush()
        session.add(Outbox(incident_id=incident_id, created_at=accepted))
    assert heap.push(incident_id, level, est_s, int(accepted.timestamp() * 1_000_000))


def beat(heap: RedisSemanticHeap, consumer: str, drain_rate: float | None) -> None:
    heap.client.set(f"{heap.prefix}:{ENGINE_HEARTBEAT}:{consumer}", json.dumps({"drain_rate": drain_rate}), ex=10)


def test_the_sweep_gives_template_guidance_to_the_esi_4_and_5_calls_that_would_miss(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    settings, heap = setup
    beat(heap, "engine-a", 1.0)
    queue(settings, heap, "urgent", 2, 400.0, 30, "Chest pain and sweating")
    queue(settings, heap, "serious", 3, 150.0, 30, "Abdominal pain since this morning")
    queue(settings, heap, "ankle", 4, 300.0, 30, "I twisted my ankle on the stairs")  # 30 + 850 > 600
    queue(settings, heap, "refill", 5, 250.0, 30, "I need a refill of my pills")  # 30 + 800 <= 1200 once ankle left
    # The heap's order (weighted remaining work): serious 75, urgent 100, ankle 200, refill 250.
    assert heap.waiting_ids() == ["serious", "urgent", "ankle", "refill"]
    assert shed_overdue(settings, heap, now=NOW) == ["ankle"]
    # ankle's projected miss also turned the overload mode on: ESI 2 now goes strictly first.
    assert heap.waiting_ids() == ["urgent", "serious", "refill"]
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, "ankle")
        guidance = session.get(Guidance, "ankle")
        outcome = session.get(Outcome, "ankle")
        outbox = session.get(Outbox, "ankle")
        events = session.scalars(select(IncidentEvent).where(IncidentEvent.action == SHED_ACTION)).all()
        assert incident is not None and guidance is not None and outcome is not None and outbox is not None
        assert incident.guidance_state == "done"
        assert (guidance.model, guidance.prompt_version, guidance.tokens) == (
            "template:minor-injury",
            TEMPLATE_VERSION,
            0,
        )
        assert guidance.text.startswith("TEMPLATE GUIDANCE (minor injury;")
        assert (outcome.engine, outcome.model, outcome.esi_level, outcome.tokens) == (
            "template",
            "template:minor-injury",
            4,
            0,
        )
        assert outcome.ttft_s is None and outcome.error is None
        assert outcome.total_s == pytest.approx(30.0) and outcome.queue_wait_s == pytest.approx(30.0)
        assert outbox.done_at is not None
        assert [(e.incident_id, e.actor, e.after) for e in events] == [
            (
                "ankle",
                "system:overload",
                {"guidance_state": "done", "template": "minor-injury", "version": TEMPLATE_VERSION},
            )
        ]
        assert events[0].reason == "queue projected 880 s to guidance, past the ESI 4 deadline of 600 s"
        assert session.scalar(select(func.count()).select_from(Guidance)) == 1
    assert heap.client.hget(f"{heap.prefix}:metrics:engine", "shed") == b"1"


def test_a_faster_engine_or_a_second_one_sheds_nothing(setup: tuple[Settings, RedisSemanticHeap]) -> None:
    settings, heap = setup
    beat(heap, "engine-a", 1.0)
    beat(heap, "engine-b", None)  # not measured yet: counts as FALLBACK_DRAIN_RATE
    assert engine_drain_rate(heap.client, heap.prefix) == 1.0 + FALLBACK_DRAIN_RATE
    queue(settings, heap, "serious", 3, 550.0, 30, "Abdominal pain")
    queue(settings, heap, "ankle", 4, 450.0, 30, "I twisted my ankle")  # 30 + 1000 / 2 <= 600 (at rate 1: 1030)
    assert shed_overdue(settings, heap, now=NOW) == []
    assert heap.waiting_ids() == ["serious", "ankle"]


def test_a_worker_still_loading_its_model_or_unable_to_drains_nothing(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    _, heap = setup
    beat(heap, "engine-a", 2.5)
    for name, state in (("engine-b", "loading"), ("engine-c", "unavailable")):
        heap.client.set(f"{heap.prefix}:{ENGINE_HEARTBEAT}:{name}", json.dumps({"ok": False, "state": state}), ex=10)
    assert engine_drain_rate(heap.client, heap.prefix) == 2.5


def test_a_leased_call_is_never_shed_and_its_work_counts_as_in_service(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    settings, heap = setup
    queue(settings, heap, "in-engine", 4, 700.0, 0, "I twisted my ankle")
    assert heap.pop_lease("engine-a", 60.0) is not None
    queue(settings, heap, "rash", 5, 100.0, 500, "Itchy rash")  # 500 + 800 > 1200, with no engine heartbeat: rate 1
    assert shed_overdue(settings, heap, now=NOW) == ["rash"]
    assert heap.leased() == 1 and heap.waiting() == 0
    with session_scope(settings.database_url) as session:
        assert session.get(Incident, "in-engine").guidance_state == "queued"  # type: ignore[union-attr]


def test_a_call_overridden_to_esi_2_meanwhile_goes_back_to_the_heap_unshed(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    settings, heap = setup
    queue(settings, heap, "upgraded", 4, 1000.0, 0, "Ankle pain, now short of breath")
    with session_scope(settings.database_url) as session:  # the heap has not been re-keyed yet
        incident = session.get(Incident, "upgraded")
        assert incident is not None
        incident.esi_level = incident.override_level = 2
    assert shed_overdue(settings, heap, now=NOW) == []
    item = heap.get("upgraded")
    assert item is not None and item.esi_level == 2 and heap.waiting_ids() == ["upgraded"]
    with session_scope(settings.database_url) as session:
        assert session.scalar(select(func.count()).select_from(Guidance)) == 0


def test_shedding_off_sheds_nothing(setup: tuple[Settings, RedisSemanticHeap]) -> None:
    settings, heap = setup
    queue(settings, heap, "ankle", 4, 5000.0, 0, "I twisted my ankle")
    assert shed_overdue(settings.model_copy(update={"shedding_enabled": False}), heap, now=NOW) == []
    assert heap.waiting_ids() == ["ankle"]


def test_a_projected_miss_turns_the_overload_mode_on_until_calm_for_overload_calm_s(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    settings, heap = setup
    settings = settings.model_copy(update={"shedding_enabled": False, "overload_calm_s": 30.0})
    beat(heap, "engine-a", 1.0)
    queue(settings, heap, "urgent", 2, 400.0, 0, "Chest pain and sweating")  # 400 / 4 = 100
    queue(settings, heap, "serious", 3, 190.0, 0, "Abdominal pain since this morning")  # 95: first; 190 > 180
    assert heap.waiting_ids() == ["serious", "urgent"]
    assert shed_overdue(settings, heap, now=NOW) == []  # nothing shed, but a miss is projected
    assert heap.waiting_ids() == ["urgent", "serious"] and heap.last_miss_s() == NOW.timestamp()
    for served in ("urgent", "serious"):  # served meanwhile: no miss projected any more
        assert heap.take_waiting(served) is not None
    queue(settings, heap, "urgent-2", 2, 40.0, 0, "Chest pain")  # 40 / 4 = 10
    queue(settings, heap, "serious-2", 3, 10.0, 0, "Abdominal pain")  # 10 / 2 = 5, but ESI 2 goes first now
    assert heap.waiting_ids() == ["urgent-2", "serious-2"]
    shed_overdue(settings, heap, now=NOW + dt.timedelta(seconds=29))
    assert heap.last_miss_s() == NOW.timestamp()  # still on: calm for 29 s only
    shed_overdue(settings, heap, now=NOW + dt.timedelta(seconds=30))
    assert heap.last_miss_s() is None
    assert heap.waiting_ids() == ["serious-2", "urgent-2"]  # weighted again: 5 before 10


def test_without_shedding_or_an_overload_level_the_sweep_reads_nothing(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    settings, heap = setup
    settings = settings.model_copy(update={"shedding_enabled": False, "policy_overload_strict_max_level": 1})
    queue(settings, heap, "urgent", 2, 400.0, 0, "Chest pain and sweating")
    queue(settings, heap, "serious", 3, 900.0, 0, "Abdominal pain since this morning")
    assert shed_overdue(settings, heap, now=NOW) == []
    assert heap.last_miss_s() is None and heap.waiting_ids() == ["urgent", "serious"]


def test_the_overload_mode_reaches_the_engine_workers_on_the_override_channel(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    settings, heap = setup
    settings = settings.model_copy(update={"shedding_enabled": False, "overload_calm_s": 30.0})
    engine = HFEngine(HFEngineConfig(model_path="never-loaded"))
    worker = EngineWorker(settings, engine, tokenizer=None, model_name="tiny-llama")
    channel = override_channel(heap.prefix)

    async def scenario() -> list[bool]:
        heard: list[bool] = []

        def handle(notice: Notice) -> None:
            worker.handle(notice)
            heard.append(engine.overloaded)

        subscribed = asyncio.Event()

        async def on_subscribed() -> None:
            subscribed.set()

        listener = asyncio.create_task(listen_notices(heap.client, channel, handle, on_subscribed))
        await asyncio.wait_for(subscribed.wait(), 10)
        beat(heap, "engine-a", 1.0)
        queue(settings, heap, "urgent", 2, 400.0, 0, "Chest pain and sweating")
        queue(settings, heap, "serious", 3, 190.0, 0, "Abdominal pain since this morning")
        shed_overdue(settings, heap, now=NOW)  # a miss projected: on
        for _ in range(100):
            if heard:
                break
            await asyncio.sleep(0.05)
        in_force = await engine.scheduling_in_force()
        assert in_force is not None and in_force["options"]["strict_max_level"] == 2  # ESI 2 strictly after ESI 1
        for served in ("urgent", "serious"):  # served meanwhile: no miss projected any more
            assert heap.take_waiting(served) is not None
        shed_overdue(settings, heap, now=NOW + dt.timedelta(seconds=30))  # calm for 30 s: off
        for _ in range(100):
            if len(heard) == 2:
                break
            await asyncio.sleep(0.05)
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)
        return heard

    assert asyncio.run(scenario()) == [True, False]
    in_force = asyncio.run(engine.scheduling_in_force())
    assert in_force is not None and in_force["options"]["strict_max_level"] == 1
