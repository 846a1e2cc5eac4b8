"""The engine worker's ear on the override channel: overrides, closed incidents and the overload mode, as notices."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import redis.exceptions

from app.redis.queueing import MalformedNoticeError, Notice, parse_notice

log = logging.getLogger(__name__)

RESUBSCRIBE_S = 1.0
"""The pause before subscribing again after the channel was lost (Redis away)."""


async def listen_notices(
    client: Any,
    channel: str,
    handle: Callable[[Notice], None],
    subscribed: Callable[[], Awaitable[None]],
) -> None:
    """Hand every notice on `channel` to `handle`, until cancelled; after each (re)subscription `subscribed` runs
    (notices sent while the channel was lost are not delivered: it reads the state they would have told). A malformed
    message is logged and skipped; a lost channel is subscribed again after `RESUBSCRIBE_S`."""
    while True:
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        try:
            await asyncio.to_thread(pubsub.subscribe, channel)
            await subscribed()
            while True:
                message = await asyncio.to_thread(pubsub.get_message, timeout=1.0)
                if message is None:
                    continue
                try:
                    notice = parse_notice(message["data"])
                except MalformedNoticeError as error:
                    log.warning("override channel: %s", error)
                    continue
                handle(notice)
        except asyncio.CancelledError:
            pubsub.close()
            raise
        except redis.exceptions.RedisError as error:
            log.warning("override channel lost (%s); subscribing again", error)
            pubsub.close()
            await asyncio.sleep(RESUBSCRIBE_S)
