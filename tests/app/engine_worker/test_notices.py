"""The override channel's notices: overrides, closed incidents and the overload mode, as published and as heard."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis

from app.engine_worker.notices import listen_notices
from app.redis.keys import override_channel
from app.redis.queueing import (
    ClosedNotice,
    MalformedNoticeError,
    Notice,
    OverloadNotice,
    OverrideNotice,
    parse_notice,
    publish_closed,
    publish_overload,
    publish_override,
)


def test_each_notice_reads_back_as_published_and_anything_else_is_refused() -> None:
    assert parse_notice(b"override call-1 2") == OverrideNotice("call-1", 2)
    assert parse_notice("closed call-1") == ClosedNotice("call-1")
    assert parse_notice("overload on") == OverloadNotice(True)
    assert parse_notice("overload off") == OverloadNotice(False)
    for malformed in ("call-1 2", "override call-1 two", "overload maybe", "closed", ""):
        with pytest.raises(MalformedNoticeError, match="not a notice on the override channel"):
            parse_notice(malformed)


def test_the_listener_hears_every_notice_in_order_and_skips_a_malformed_one(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    prefix = f"notices-{uuid.uuid4().hex[:8]}"
    heard: list[Notice] = []
    subscriptions: list[int] = []

    async def scenario() -> None:
        ready = asyncio.Event()

        async def subscribed() -> None:
            subscriptions.append(1)
            ready.set()

        listener = asyncio.create_task(listen_notices(client, override_channel(prefix), heard.append, subscribed))
        await asyncio.wait_for(ready.wait(), 10)
        publish_override(client, prefix, "call-1", 1)
        client.publish(override_channel(prefix), "garbage")
        publish_closed(client, prefix, "call-2")
        publish_overload(client, prefix, True)
        for _ in range(100):
            if len(heard) == 3:
                break
            await asyncio.sleep(0.05)
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)

    asyncio.run(scenario())
    assert heard == [OverrideNotice("call-1", 1), ClosedNotice("call-2"), OverloadNotice(True)]
    assert subscriptions == [1]
