"""The product's Redis: one client per URL and process, the semantic heap, override notices."""

from __future__ import annotations

import functools
from typing import Any

import redis

from app.redis_urls import connect, connect_bounded
from app.settings import Settings
from scheduler.policy import DEFAULT_POLICY, PolicyOptions
from scheduler.redis_heap import RedisSemanticHeap

OVERRIDE_CHANNEL = "overrides"


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


def publish_override(client: Any, prefix: str, incident_id: str, esi_level: int) -> None:
    """Tell every engine worker: this incident's level changed (the one serving it applies the override at once)."""
    client.publish(f"{prefix}:{OVERRIDE_CHANNEL}", f"{incident_id} {esi_level}")
