"""Test helper: one classified call, ESI 2, waiting in the heap of a migrated SQLite database."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path

from app.db.migrate import upgrade
from app.db.models import Incident, utcnow
from app.db.session import session_scope
from app.redis.queueing import settings_heap
from app.settings import Settings
from scheduler.redis_heap import RedisSemanticHeap

_prefixes = itertools.count()


def one_queued_call(tmp_path: Path, redis_url: str, name: str) -> tuple[Settings, RedisSemanticHeap]:
    """Settings on `<tmp_path>/<name>.db` and a fresh queue prefix, and the heap holding the call `call-1`."""
    url = f"sqlite:///{tmp_path / f'{name}.db'}"
    upgrade(url)
    settings = Settings(database_url=url, redis_url=redis_url, queue_prefix=f"{name}-{next(_prefixes)}")
    add_call_1(url, "queued", utcnow())
    heap = settings_heap(settings)
    heap.push("call-1", 2, 5.0, 1)
    return settings, heap


def add_call_1(database_url: str, guidance_state: str, accepted_at: dt.datetime) -> None:
    """The call `call-1` (chest pain, classified ESI 2) in a migrated database, its guidance in `guidance_state`."""
    with session_scope(database_url) as session:
        session.add(
            Incident(
                id="call-1",
                source="cad",
                webhook_id="w1",
                text="chest pain",
                accepted_at=accepted_at,
                esi_level=2,
                classified_at=accepted_at,
                guidance_state=guidance_state,
            )
        )
