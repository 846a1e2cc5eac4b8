"""Per-source intake limits: the same windows in memory, in Redis, and in a Redis that does not answer."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from limits.storage import RedisStorage

from app.intake.limits import IntakeLimitError, SourceLimits, parse_limit, source_limits_for
from app.redis.local import free_port
from app.redis.queueing import redis_client


@pytest.fixture(params=["memory", "redis", "redis-down"])
def make_limits(request: pytest.FixtureRequest) -> Callable[[dict[str, str], str], SourceLimits]:
    """Limits counted in this process, in a real Redis, and in a Redis that does not answer (in this process)."""
    if request.param == "memory":
        return lambda limits, default: source_limits_for(limits, default, None, "t")
    url = request.getfixturevalue("redis_url") if request.param == "redis" else f"redis://127.0.0.1:{free_port()}/0"
    prefix = f"t-{uuid.uuid4().hex}"
    return lambda limits, default: source_limits_for(limits, default, redis_client(url), prefix)


def test_a_source_past_its_window_is_refused_with_the_seconds_to_wait(
    make_limits: Callable[[dict[str, str], str], SourceLimits],
) -> None:
    limits = make_limits({"flood": "3/minute"}, "100/minute")
    answers = [limits.hit("flood") for _ in range(5)]
    assert answers[:3] == [None, None, None]
    refused = answers[3]
    assert refused is not None
    assert (refused.source, refused.limit) == ("flood", "3 per 1 minute")
    assert 59 <= refused.retry_after_s <= 60
    assert "nothing was stored" in refused.reason
    # Another source has its own windows (the default's).
    assert [limits.hit("cad") for _ in range(5)] == [None] * 5
    assert limits.counts("flood").calls == 3
    assert limits.counts("flood").refused == 2
    assert limits.counts("cad").refused == 0
    assert list(limits.over_limit(["cad", "flood"])) == ["flood"]


def test_every_window_holds_and_a_refused_call_uses_no_room(
    make_limits: Callable[[dict[str, str], str], SourceLimits],
) -> None:
    limits = make_limits({}, "10/minute;2/10 seconds")
    assert [limits.hit("cad") is None for _ in range(4)] == [True, True, False, False]
    # The refused calls were not counted in the minute window: 2 of its 10 are used.
    assert limits.counts("cad").calls == 2
    refused = limits.hit("cad")
    assert refused is not None and refused.limit == "2 per 10 second"
    assert 1 <= refused.retry_after_s <= 10


def test_the_windows_are_shared_by_every_process_through_redis(redis_url: str) -> None:
    prefix = f"t-{uuid.uuid4().hex}"
    first = source_limits_for({}, "3/minute", redis_client(redis_url), prefix)
    second = source_limits_for({}, "3/minute", redis_client(redis_url), prefix)
    assert [first.hit("cad"), second.hit("cad"), first.hit("cad")] == [None, None, None]
    assert second.hit("cad") is not None
    keys = {key.decode() for key in redis_client(redis_url).keys(f"{prefix}:intake:limits*") if isinstance(key, bytes)}
    assert keys and all(key.startswith(f"{prefix}:intake:limits") for key in keys)
    assert isinstance(first._shared.storage, RedisStorage)  # type: ignore[union-attr]


def test_a_limit_limits_cannot_read_is_refused_with_the_source() -> None:
    with pytest.raises(IntakeLimitError, match="'cad'"):
        parse_limit("cad", "fast please")
    assert [str(item) for item in parse_limit("cad", "120/minute;30/10 seconds")] == [
        "120 per 1 minute",
        "30 per 10 second",
    ]
