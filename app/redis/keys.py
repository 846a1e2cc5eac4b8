"""Every Redis key and channel the product uses, each under the queue prefix (`TRIAGE_QUEUE_PREFIX`, "triage")."""

from __future__ import annotations

from scheduler.redis_heap import heap_keys

__all__ = [
    "engine_heartbeat",
    "engine_heartbeat_pattern",
    "handed",
    "heap_keys",
    "intake_limits_prefix",
    "live_call_window",
    "live_dirty",
    "live_known_call",
    "live_scheduled",
    "metrics_engine",
    "metrics_histogram",
    "override_channel",
    "signin_account",
    "signin_client",
    "worker_heartbeat",
    "worker_heartbeat_pattern",
]

# The semantic heap's own keys (`<prefix>:heap:queue|leases|items|overload|sources|served`) are named by
# `scheduler.redis_heap.heap_keys`, re-exported here, since the scheduler package never imports the app.

ENGINE_HEARTBEAT = "engine:heartbeat"
WORKER_HEARTBEAT = "worker:heartbeat"


def engine_heartbeat(prefix: str, consumer: str) -> str:
    """`<prefix>:engine:heartbeat:<consumer>`: one engine worker's last beat (JSON, expiring)."""
    return f"{prefix}:{ENGINE_HEARTBEAT}:{consumer}"


def engine_heartbeat_pattern(prefix: str) -> str:
    """The SCAN pattern matching every engine worker's beat."""
    return engine_heartbeat(prefix, "*")


def worker_heartbeat(prefix: str, hostname: str) -> str:
    """`<prefix>:worker:heartbeat:<hostname>`: one Celery worker's last beat (expiring)."""
    return f"{prefix}:{WORKER_HEARTBEAT}:{hostname}"


def worker_heartbeat_pattern(prefix: str) -> str:
    """The SCAN pattern matching every Celery worker's beat."""
    return worker_heartbeat(prefix, "*")


def override_channel(prefix: str) -> str:
    """`<prefix>:overrides`: the pub/sub channel of notices to every engine worker, one per message:
    `override <incident id> <ESI level>`, `replan <incident id> <ESI level>` (a live call's level rose),
    `closed <incident id>` and `overload on|off` (`queueing.parse_notice`)."""
    return f"{prefix}:overrides"


def handed(prefix: str, incident_id: str) -> str:
    """`<prefix>:classify:handed:<incident_id>`: a classify task for the incident is in the broker."""
    return f"{prefix}:classify:handed:{incident_id}"


def metrics_histogram(prefix: str, name: str) -> str:
    """`<prefix>:metrics:<name>`: a Redis-kept histogram (hash of cumulative buckets per ESI level)."""
    return f"{prefix}:metrics:{name}"


def metrics_engine(prefix: str) -> str:
    """`<prefix>:metrics:engine`: the engine workers' counters (hash)."""
    return f"{prefix}:metrics:engine"


def signin_account(prefix: str, account_digest: str) -> str:
    """`<prefix>:signin:account:<sha256 prefix>`: failed sign-ins against one account."""
    return f"{prefix}:signin:account:{account_digest}"


def signin_client(prefix: str, client_digest: str) -> str:
    """`<prefix>:signin:client:<sha256 prefix>`: failed sign-ins from one client address."""
    return f"{prefix}:signin:client:{client_digest}"


def intake_limits_prefix(prefix: str) -> str:
    """`<prefix>:intake:limits`: the `limits` library's per-source counters live under this key prefix."""
    return f"{prefix}:intake:limits"


def live_call_window(prefix: str, identity: str, window: str) -> str:
    """`<prefix>:live:limits:<source>|<call>:<window>`: one live call's events in one window of its limit, newest
    first (`app.live.call_windows`)."""
    return f"{prefix}:live:limits:{identity}:{window}"


def live_known_call(prefix: str, source: str, call_id: str) -> str:
    """`<prefix>:live:call:<source>:<call id>`: the call was counted once against its source's limit."""
    return f"{prefix}:live:call:{source}:{call_id}"


def live_dirty(prefix: str, incident_id: str) -> str:
    """`<prefix>:live:dirty:<incident id>`: the live call has final words its latest classification did not read."""
    return f"{prefix}:live:dirty:{incident_id}"


def live_scheduled(prefix: str, incident_id: str) -> str:
    """`<prefix>:live:scheduled:<incident id>`: a re-triage task for the call is queued or running (one at a time)."""
    return f"{prefix}:live:scheduled:{incident_id}"
