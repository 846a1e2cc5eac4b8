"""A live call's windows in one round trip, on a real redis-server: counted in every window or in none."""

from __future__ import annotations

import uuid

import pytest
import redis
from limits import parse_many

from app.live.call_windows import CallWindows, WindowFull
from app.redis.queueing import redis_client


@pytest.fixture
def client(redis_url: str) -> redis.Redis:
    return redis_client(redis_url)


def test_an_event_is_counted_in_every_window_until_one_is_full(client: redis.Redis) -> None:
    prefix = f"test-{uuid.uuid4().hex}"
    windows = CallWindows(client, prefix, parse_many("5/minute;3/10 seconds"))
    answers = [windows.hit("cad|CA1", now=1000.0 + n) for n in range(4)]
    assert answers[:3] == [None, None, None]
    assert answers[3] == WindowFull(windows.windows[1], 1010.0)  # the 10 s window, full since the event at 1000
    # The refused event is counted in neither window.
    assert client.llen(f"{prefix}:live:limits:cad|CA1:LIMITER/5/1/minute") == 3
    assert client.llen(f"{prefix}:live:limits:cad|CA1:LIMITER/3/10/second") == 3
    assert 0 < client.ttl(f"{prefix}:live:limits:cad|CA1:LIMITER/3/10/second") <= 10


def test_the_longer_window_refuses_once_the_shorter_has_room_again(client: redis.Redis) -> None:
    prefix = f"test-{uuid.uuid4().hex}"
    windows = CallWindows(client, prefix, parse_many("5/minute;3/10 seconds"))
    accepted = [windows.hit("cad|CA2", now=at) for at in (0.0, 1.0, 2.0, 20.0, 21.0)]
    assert accepted == [None] * 5
    assert windows.hit("cad|CA2", now=22.0) == WindowFull(windows.windows[0], 60.0)  # the minute's oldest, at 0
    assert windows.hit("cad|CA1", now=22.0) is None  # another call of the same source has its own windows
    assert windows.hit("cad|CA2", now=60.5) is None  # the minute has room again
