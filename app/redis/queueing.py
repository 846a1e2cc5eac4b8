"""The product's Redis: one client per URL and process, the semantic heap, notices to the engine workers (overrides,
closed incidents, the overload mode), hand-over marks."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import redis

from app.redis import keys
from app.redis.urls import connect, connect_bounded
from app.settings import Settings
from scheduler.policy import DEFAULT_POLICY, PolicyOptions
from scheduler.redis_heap import RedisSemanticHeap

# `keys.handed`: a classify task for the incident is in the broker (set when it is sent, deleted when a worker starts
# it), so the reconciler does not send another while the workers have a backlog.
HANDED_TTL_FACTOR = 10
"""A mark outlives `outbox_redeliver_s` this many times at most (a broker that lost the task without losing the
mark, say a broker on another Redis that restarted: the reconciler sends it again after that)."""


@functools.cache
def redis_client(url: str) -> redis.Redis:
    """A client that fails fast when Redis is away (intake never waits on it); `url` plain or Sentinel."""
    return connect(url, socket_connect_timeout=1.0, socket_timeout=5.0, health_check_interval=10)


def side_redis_client(
    url: str, wait_s: float, answer_s: float | None = None, client_name: str | None = None
) -> redis.Redis:
    """A small client beside the pipeline's (`redis_client`), for side duties that must neither take nor wait for
    the pipeline's connections: two connections at most; waiting for a free connection and connecting bounded by
    `wait_s`, an answer by `answer_s` (default `wait_s`). With a Sentinel URL the sentinels are asked with the same
    timeouts."""
    return connect_bounded(
        url,
        max_connections=2,
        wait_s=wait_s,
        socket_connect_timeout=wait_s,
        socket_timeout=wait_s if answer_s is None else answer_s,
        client_name=client_name,
    )


def heap_for(
    url: str, prefix: str, policy: str = DEFAULT_POLICY, options: PolicyOptions | None = None
) -> RedisSemanticHeap:
    """The shared heap under `prefix`, scored by `policy` and its options."""
    return RedisSemanticHeap(redis_client(url), prefix, policy, options)


def settings_heap(settings: Settings) -> RedisSemanticHeap:
    """The heap the settings name: their Redis, queue prefix, scheduling policy and options."""
    if settings.redis_url is None:
        raise ValueError("no Redis configured (TRIAGE_REDIS_URL)")
    return heap_for(settings.redis_url, settings.queue_prefix, settings.scheduling_policy, settings.policy_options)


@dataclass(frozen=True, slots=True)
class OverrideNotice:
    """An incident's ESI level changed: the engine worker serving it re-keys it in its engine."""

    incident_id: str
    esi_level: int


@dataclass(frozen=True, slots=True)
class ClosedNotice:
    """An incident was closed: the engine worker serving it aborts its request."""

    incident_id: str


@dataclass(frozen=True, slots=True)
class OverloadNotice:
    """The queue entered (or left) the overload mode: the engines' schedulers serve ESI 2 strictly after ESI 1."""

    overloaded: bool


@dataclass(frozen=True, slots=True)
class ReplanNotice:
    """A live call's reading raised its level: the engine worker serving it aborts the guidance it is writing and
    submits it again with the new transcript, level and card."""

    incident_id: str
    esi_level: int


Notice = OverrideNotice | ClosedNotice | OverloadNotice | ReplanNotice


class MalformedNoticeError(ValueError):
    """A message on the override channel that is none of the notices (named, with the message)."""


def publish_override(client: Any, prefix: str, incident_id: str, esi_level: int) -> None:
    """Tell every engine worker: this incident's level changed (the one serving it applies the override at once)."""
    client.publish(keys.override_channel(prefix), f"override {incident_id} {esi_level}")


def publish_closed(client: Any, prefix: str, incident_id: str) -> None:
    """Tell every engine worker: this incident is closed (the one serving it aborts it)."""
    client.publish(keys.override_channel(prefix), f"closed {incident_id}")


def publish_replan(client: Any, prefix: str, incident_id: str, esi_level: int) -> None:
    """Tell every engine worker: this live call's level rose (the one serving it starts its guidance again)."""
    client.publish(keys.override_channel(prefix), f"replan {incident_id} {esi_level}")


def publish_overload(client: Any, prefix: str, overloaded: bool) -> None:
    """Tell every engine worker the overload mode changed (each also reads it from the heap as it beats)."""
    client.publish(keys.override_channel(prefix), f"overload {'on' if overloaded else 'off'}")


def parse_notice(message: str | bytes) -> Notice:
    """The notice a message on the override channel carries; `MalformedNoticeError` for anything else."""
    text = message.decode() if isinstance(message, bytes) else message
    match text.split():
        case ["override", incident_id, level] if level.isdigit():
            return OverrideNotice(incident_id, int(level))
        case ["replan", incident_id, level] if level.isdigit():
            return ReplanNotice(incident_id, int(level))
        case ["closed", incident_id]:
            return ClosedNotice(incident_id)
        case ["overload", ("on" | "off") as mode]:
            return OverloadNotice(mode == "on")
    raise MalformedNoticeError(f"not a notice on the override channel: {text[:100]!r}")


def mark_handed(client: Any, prefix: str, incident_id: str, redeliver_s: float) -> None:
    """Record that a classify task for the incident was just sent to the broker."""
    client.set(keys.handed(prefix, incident_id), "1", ex=max(1, int(redeliver_s * HANDED_TTL_FACTOR)))


def clear_handed(client: Any, prefix: str, incident_id: str) -> None:
    """A worker took the classify task off the broker: if it dies now, the reconciler must send another."""
    client.delete(keys.handed(prefix, incident_id))


def handed(client: Any, prefix: str, incident_ids: list[str]) -> set[str]:
    """Those of the incidents whose classify task is still in the broker."""
    if not incident_ids:
        return set()
    pipe = client.pipeline(transaction=False)
    for incident_id in incident_ids:
        pipe.exists(keys.handed(prefix, incident_id))
    return {incident_id for incident_id, there in zip(incident_ids, pipe.execute(), strict=True) if there}
