"""The Celery worker's heartbeat in Redis: a key with a TTL per worker, which `/readyz` reads instead of pinging."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import redis

from app.redis import keys

if TYPE_CHECKING:
    from celery import Celery

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HeartbeatConfig:
    """How often a worker beats and how long a beat counts."""

    interval_s: float = 2.0
    """Seconds between two beats."""
    ttl_s: float = 10.0
    """A beat's lifetime: several intervals, so that one slow write does not make the worker look gone."""

    def __post_init__(self) -> None:
        if not 0 < self.interval_s < self.ttl_s:
            raise ValueError(f"need 0 < interval_s < ttl_s, got {self.interval_s} and {self.ttl_s}")


def heartbeat_key(prefix: str, hostname: str) -> str:
    return keys.worker_heartbeat(prefix, hostname)


def heartbeat_client(url: str) -> redis.Redis:
    """A client of its own (not the pipeline's): short timeouts, at most two connections."""
    from app.redis.queueing import side_redis_client

    return side_redis_client(url, 1.0, answer_s=2.0)


def write_heartbeat(client: Any, prefix: str, hostname: str, ttl_s: float) -> None:
    """One beat: who and when, expiring after `ttl_s`."""
    beat = {"hostname": hostname, "pid": os.getpid(), "at": time.time()}
    client.set(heartbeat_key(prefix, hostname), json.dumps(beat), px=int(ttl_s * 1000))


@dataclass
class WorkerHeartbeat:
    """A daemon thread that beats every `config.interval_s` until `stop()`, which deletes the key."""

    client: Any
    prefix: str
    hostname: str
    config: HeartbeatConfig = field(default_factory=HeartbeatConfig)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="worker-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop beating and remove the key at once (a stopped worker must not look ready for `ttl_s` more)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        try:
            self.client.delete(heartbeat_key(self.prefix, self.hostname))
        except redis.RedisError as error:
            log.warning("worker heartbeat: could not delete %s: %s", self.hostname, error)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                write_heartbeat(self.client, self.prefix, self.hostname, self.config.ttl_s)
            except redis.RedisError as error:
                log.warning("worker heartbeat failed: %s", error)
            self._stop.wait(self.config.interval_s)


def install_heartbeat(celery: Celery, url: str, prefix: str, config: HeartbeatConfig | None = None) -> None:
    """Each worker of `celery` beats in the Redis at `url` from `worker_ready` until `worker_shutdown` (the main
    process beats: it is the one that takes tasks from the broker and hands them to the pool)."""
    from celery.signals import worker_ready, worker_shutdown  # here: the web app reads this module's key only

    beating: list[WorkerHeartbeat] = []

    def on_ready(sender: Any, **_: Any) -> None:
        if sender.app is not celery or beating:
            return
        heartbeat = WorkerHeartbeat(heartbeat_client(url), prefix, sender.hostname, config or HeartbeatConfig())
        heartbeat.start()
        beating.append(heartbeat)
        log.info("worker heartbeat started: %s", heartbeat_key(prefix, sender.hostname))

    def on_shutdown(sender: Any, **_: Any) -> None:
        if sender.app is not celery:
            return
        while beating:
            beating.pop().stop()

    # Celery's signals are process-wide and hold receivers weakly by default: these closures must stay connected.
    worker_ready.connect(on_ready, weak=False)
    worker_shutdown.connect(on_shutdown, weak=False)
