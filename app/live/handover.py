"""Handing live calls to triage as their words arrive, coalesced: each new final utterance marks its call dirty, and
a re-triage task is sent only when none is queued or running for the call; the task reads the call again for as
long as words came in while it classified. Then the queue follows the reading: a first reading queues the
guidance, a raised level re-keys the call in the heap at once and tells the engine serving it to start again."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable
from typing import Any

from redis.exceptions import RedisError

from app.db.models import Incident
from app.db.session import session_scope
from app.incidents.pipeline import arrival_us, call_facts, incident_remaining_s, triager_for
from app.live.retriage import Change, read_again
from app.live.store import Recorded
from app.redis import keys
from app.redis.queueing import publish_replan
from app.settings import Settings
from scheduler.redis_heap import RedisSemanticHeap
from triage_models.rules import evaluate_rules, rules_floor

log = logging.getLogger(__name__)

SCHEDULED_TTL_S = 120
"""A re-triage task's mark outlives a worker that died holding it this long at most (the reconciler then sends
another)."""
MAX_ROUNDS = 50
"""Readings one task makes at most before handing the call to a fresh task (a call never monopolises a worker)."""
FINISHED_LEASE_WAIT_S = 2.0
"""How long a call raised after its guidance was done waits for the finishing worker's acknowledgement (a Redis call
right after its commit) before its lease is taken back."""


URGENT_MARK = "urgent"
"""The value of a call's scheduled mark when its task was sent urgent (any other value: sent at the live priority)."""


def urgent_words(words: str) -> bool:
    """Whether a new utterance holds a red flag of ESI 1-2 by itself ("no, he's not breathing"): its call's reading
    then goes ahead of calls whose new words hold none. The red-flag rules on one utterance, a few milliseconds."""
    if not words.strip():
        return False
    floor = rules_floor(evaluate_rules(words))
    return floor is not None and floor <= 2


def hand_over_to(client: Any, prefix: str, publish: Callable[[str, bool], None]) -> Callable[[list[Recorded]], None]:
    """The live writer's step after each commit: the calls with new final words go to triage, those whose words hold
    a red flag urgent (`request_retriage`)."""

    def hand_over(recorded: list[Recorded]) -> None:
        calls = [item.incident_id for item in recorded if item.new_words]
        urgent = {item.incident_id for item in recorded if item.new_words and urgent_words(item.words)}
        request_retriage(client, prefix, calls, publish, urgent)

    return hand_over


def request_retriage(
    client: Any,
    prefix: str,
    incident_ids: Iterable[str],
    publish: Callable[[str, bool], None],
    urgent: Collection[str] = frozenset(),
) -> int:
    """Mark the calls dirty and send a re-triage task for each that has none (`publish(incident_id, urgent)`), and an
    urgent one for a call in `urgent` whose task was sent at the live priority (it may still wait in the broker
    behind other calls' readings); how many were sent."""
    ids = list(dict.fromkeys(incident_ids))
    if not ids:
        return 0
    pipe = client.pipeline(transaction=False)
    for incident_id in ids:
        pipe.set(keys.live_dirty(prefix, incident_id), "1", ex=SCHEDULED_TTL_S * 10)
        mark = URGENT_MARK if incident_id in urgent else "1"
        pipe.set(keys.live_scheduled(prefix, incident_id), mark, nx=True, ex=SCHEDULED_TTL_S)
    answers = pipe.execute()
    fresh = [incident_id for incident_id, scheduled in zip(ids, answers[1::2], strict=True) if scheduled]
    raised = [incident_id for incident_id in ids if incident_id in urgent and incident_id not in fresh]
    sent = sum(_send(client, prefix, incident_id, incident_id in urgent, publish) for incident_id in fresh)
    return sent + sum(_send_urgent(client, prefix, incident_id, publish) for incident_id in raised)


def _send(client: Any, prefix: str, incident_id: str, urgent: bool, publish: Callable[[str, bool], None]) -> bool:
    try:
        publish(incident_id, urgent)
    except Exception as error:  # the broker away: the mark goes, the reconciler sends it later
        client.delete(keys.live_scheduled(prefix, incident_id))
        log.warning("live_retriage incident_id=%s not handed over: %s", incident_id, error)
        return False
    return True


def _send_urgent(client: Any, prefix: str, incident_id: str, publish: Callable[[str, bool], None]) -> bool:
    """A call whose task is queued or running gets an urgent task too, unless the one it has was sent urgent (a
    second reading of the same words costs one classification; the words wait for none)."""
    scheduled = keys.live_scheduled(prefix, incident_id)
    before = client.set(scheduled, URGENT_MARK, xx=True, get=True, keepttl=True)
    if before is None:  # the task ended meanwhile: send one as for a new call
        if not client.set(scheduled, URGENT_MARK, nx=True, ex=SCHEDULED_TTL_S):
            return False
        return _send(client, prefix, incident_id, True, publish)
    if before in (URGENT_MARK, URGENT_MARK.encode()):
        return False
    try:
        publish(incident_id, True)
    except Exception as error:  # the task sent before still reads the words
        log.warning("live_retriage incident_id=%s urgent task not sent: %s", incident_id, error)
        return False
    return True


def run_retriage(settings: Settings, heap: RedisSemanticHeap, incident_id: str) -> str:
    """The re-triage task's body: read the call again while it is dirty, then let go of its mark (and take it back
    if words came in at that moment). What it did."""
    client, prefix = heap.client, heap.prefix
    dirty, scheduled = keys.live_dirty(prefix, incident_id), keys.live_scheduled(prefix, incident_id)
    triager = triager_for(str(settings.model_dir) if settings.model_dir else None)
    readings = 0
    while readings < MAX_ROUNDS:
        client.delete(dirty)
        client.expire(scheduled, SCHEDULED_TTL_S)
        change, seen = read_again(settings.database_url, incident_id, triager.classify)
        readings += seen is not None
        if change is not None:
            follow_in_queue(settings, heap, incident_id, change)
        if client.exists(dirty):
            continue
        client.delete(scheduled)
        if not client.exists(dirty) or not client.set(scheduled, "1", nx=True, ex=SCHEDULED_TTL_S):
            break
    return f"read {readings} times"


def take_back_finished(heap: RedisSemanticHeap, incident_id: str) -> bool:
    """A call whose guidance was done is queued again, but the worker that finished it still holds its lease (it lets
    go just after its commit): wait for that, and take the lease back from a worker that does not let go (it died
    between its commit and its acknowledgement). Whether the heap no longer holds the call."""
    deadline = time.monotonic() + FINISHED_LEASE_WAIT_S
    while time.monotonic() < deadline:
        held = heap.get(incident_id)
        if held is None:
            return True
        if not held.consumer:
            return False  # waiting already: the re-key below orders it
        time.sleep(0.02)
    held = heap.get(incident_id)
    if held is not None and held.consumer and heap.release(incident_id, held.consumer, uncount=True):
        log.warning("live_requeue incident_id=%s lease taken back from %s", incident_id, held.consumer)
    return heap.get(incident_id) is None


def follow_in_queue(settings: Settings, heap: RedisSemanticHeap, incident_id: str, change: Change) -> str:
    """After a reading's commit: queue the call's guidance, or re-key it and restart its generation; where it was."""
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        if incident is None or incident.esi_level is None:
            return "absent"
        level, text, source = incident.esi_level, incident.text, incident.source
        tokens, arrival, facts = incident.predicted_output_tokens or 0, arrival_us(incident), call_facts(incident)
    estimate = incident_remaining_s(settings, heap.client, text, tokens)
    if (change.first or change.requeue) and heap.push(incident_id, level, estimate, arrival, source, facts):
        return "queued"
    taken_back = change.requeue and take_back_finished(heap, incident_id)
    if taken_back and heap.push(incident_id, level, estimate, arrival, source, facts):
        return "queued"
    if not (change.raised or change.first or change.requeue):
        return "unchanged"
    try:
        where = heap.override(incident_id, level, estimate, facts)
        publish_replan(heap.client, heap.prefix, incident_id, level)
    except RedisError as error:  # the reconciler re-keys a level that drifted from the database
        log.warning("live_rekey incident_id=%s not propagated: %s", incident_id, error)
        return "unknown"
    log.info("live_rekey incident_id=%s esi_level=%d heap=%s", incident_id, level, where)
    return where
