"""The reconciler against a real redis-server and a migrated SQLite database."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path

import pytest
import redis

from app.db.migrate import upgrade
from app.db.models import Incident, Outbox, utcnow
from app.db.session import session_scope
from app.incidents.pipeline import reconcile
from app.redis.queueing import clear_handed, mark_handed
from app.settings import Settings
from scheduler.redis_heap import RedisSemanticHeap

_prefixes = itertools.count()


@pytest.fixture
def setup(tmp_path: Path, redis_url: str) -> tuple[Settings, RedisSemanticHeap]:
    url = f"sqlite:///{tmp_path / 'reconcile.db'}"
    upgrade(url)
    prefix = f"reconcile-{next(_prefixes)}"
    settings = Settings(database_url=url, redis_url=redis_url, queue_prefix=prefix, engine_lease_s=30)
    return settings, RedisSemanticHeap(redis.Redis.from_url(redis_url), prefix)


def add(
    settings: Settings, incident_id: str, state: str, level: int | None, seen_ago_s: float | None, age_s: float
) -> None:
    now = utcnow()
    with session_scope(settings.database_url) as session:
        session.add(
            Incident(
                id=incident_id,
                source="cad",
                webhook_id=incident_id,
                text="call",
                accepted_at=now - dt.timedelta(seconds=age_s),
                esi_level=level,
                classified_at=now if level is not None else None,
                guidance_state=state,
                engine_seen_at=now - dt.timedelta(seconds=seen_ago_s) if seen_ago_s is not None else None,
            )
        )
        session.flush()
        session.add(
            Outbox(
                incident_id=incident_id,
                created_at=now - dt.timedelta(seconds=age_s),
                done_at=now if state == "done" else None,
            )
        )


def test_it_requeues_what_redis_lost_but_not_what_an_engine_serves_or_finished(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    settings, heap = setup
    add(settings, "lost-queued", "queued", 2, None, 60)
    add(settings, "served-now", "generating", 1, 5, 60)  # its worker renewed 5 s ago
    add(settings, "served-by-a-dead-worker", "generating", 3, 120, 300)
    add(settings, "finished", "done", 1, 1, 60)
    add(settings, "unclassified-stale", "pending", None, None, 60)
    add(settings, "unclassified-fresh", "pending", None, None, 1)
    published: list[str] = []
    counts = reconcile(settings, heap, publish=published.append)
    assert published == ["unclassified-stale"]  # a fresh one was handed over by intake a moment ago
    assert sorted(heap.waiting_ids()) == ["lost-queued", "served-by-a-dead-worker"]
    assert [item.source for item in heap.snapshot()[0]] == ["cad", "cad"]  # fair share knows whose they are
    assert counts == {"republished": 1, "requeued": 2, "in_broker": 0, "rekeyed": 0, "expired_leases": 0}
    again = reconcile(settings, heap, publish=published.append)
    assert again == {
        "republished": 0,
        "requeued": 0,
        "in_broker": 0,
        "rekeyed": 0,
        "expired_leases": 0,
    }  # published_at is fresh


def test_a_broker_outage_leaves_the_outbox_entry_for_the_next_pass(setup: tuple[Settings, RedisSemanticHeap]) -> None:
    settings, heap = setup
    add(settings, "waiting-for-the-broker", "pending", None, None, 60)

    def broker_down(incident_id: str) -> None:
        raise ConnectionError("broker unavailable")

    assert reconcile(settings, heap, publish=broker_down)["republished"] == 0
    published: list[str] = []
    assert reconcile(settings, heap, publish=published.append)["republished"] == 1
    assert published == ["waiting-for-the-broker"]


def test_a_stale_message_whose_task_is_still_in_the_broker_is_not_sent_again(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    settings, heap = setup
    add(settings, "behind-a-backlog", "pending", None, None, 60)
    add(settings, "lost-by-the-broker", "pending", None, None, 60)
    mark_handed(heap.client, heap.prefix, "behind-a-backlog", settings.outbox_redeliver_s)
    assert heap.client.ttl(f"{heap.prefix}:classify:handed:behind-a-backlog") == 300  # 10 x 30 s
    published: list[str] = []
    counts = reconcile(settings, heap, publish=published.append)
    assert published == ["lost-by-the-broker"]
    assert (counts["republished"], counts["in_broker"]) == (1, 1)
    clear_handed(heap.client, heap.prefix, "behind-a-backlog")  # a worker took it, then died
    later = utcnow() + dt.timedelta(seconds=31)
    assert reconcile(settings, heap, publish=published.append, now=later)["republished"] == 2
    assert published == ["lost-by-the-broker", "behind-a-backlog", "lost-by-the-broker"]


def test_a_level_that_drifted_from_the_database_is_rekeyed_and_the_engines_told(
    setup: tuple[Settings, RedisSemanticHeap],
) -> None:
    from app.auth.accounts import Principal
    from app.db.models import Role
    from app.incidents import actions
    from app.incidents.overrides import propagate_override
    from app.redis import keys

    settings, heap = setup
    add(settings, "drifted", "queued", 4, None, 5)
    add(settings, "steady", "queued", 3, None, 4)
    heap.push("drifted", 4, 5.0, 1, "cad")
    heap.push("steady", 3, 5.0, 2, "cad")
    with session_scope(settings.database_url) as session:
        actions.override(session, "drifted", Principal("dana", Role.DISPATCHER), 1, "not breathing")
    # The override committed, Redis away when it was propagated: said so, nothing raised.
    away = settings.model_copy(update={"redis_url": "redis://127.0.0.1:1/0"})
    assert propagate_override(away, "drifted", 1) == "unknown"
    assert heap.get("drifted").esi_level == 4  # type: ignore[union-attr]
    listener = heap.client.pubsub(ignore_subscribe_messages=True)
    listener.subscribe(keys.override_channel(settings.queue_prefix))
    counts = reconcile(settings, heap, lambda incident_id: None)
    assert counts["rekeyed"] == 1
    assert [item.incident_id for item in heap.snapshot()[0]] == ["drifted", "steady"]
    assert heap.get("drifted").esi_level == 1  # type: ignore[union-attr]
    notices = [listener.get_message(timeout=1) for _ in range(3)]
    assert [notice["data"] for notice in notices if notice is not None] == [b"override drifted 1"]
    assert reconcile(settings, heap, lambda incident_id: None)["rekeyed"] == 0
