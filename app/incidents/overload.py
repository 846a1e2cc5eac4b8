"""Overload in the product: while a miss is projected ESI 2 goes strictly after ESI 1 (the heap's overload mode, told
to the engines on the override channel), and waiting ESI 4-5 calls the queue would make miss their deadline get
template guidance at once (the decisions are `scheduler.shedding`'s; the reconciler runs the sweep)."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

import redis.exceptions

from app.db.models import FINAL_GUIDANCE_STATES, Guidance, GuidanceState, Incident, IncidentEvent, utcnow
from app.db.session import session_scope
from app.engine_worker.outcomes import Served, close_outbox, put_outcome
from app.guidance.templates import TEMPLATE_ENGINE, TEMPLATE_VERSION, template_guidance
from app.redis.queueing import publish_overload
from app.settings import Settings
from app.status.engine import STARTING_STATES, heartbeats
from app.status.metrics import count_engine
from scheduler.redis_heap import HeapItem, RedisSemanticHeap
from scheduler.shedding import ShedDecision, WaitingCall, overloaded, plan_shedding, projects_miss

log = logging.getLogger(__name__)

FALLBACK_DRAIN_RATE = 1.0
"""Estimated seconds of work per second an engine is assumed to get through before it has measured its own rate
(the estimate is one request's time alone on the CPU, so a batching engine does better), and the rate assumed
when no engine is alive (one will be: a call must not be shed for an engine's restart alone)."""
SHED_ACTION = "template_guidance"
"""The audit event's action when a call is given template guidance."""


def engine_drain_rate(client: Any, prefix: str) -> float:
    """The live engines' measured drain rates summed (`DrainMeter`, in their heartbeats); a worker still starting its
    engine (loading a model, or unable to) drains nothing."""
    rates = [
        float(beat["drain_rate"]) if beat.get("drain_rate") else FALLBACK_DRAIN_RATE
        for beat in heartbeats(client, prefix)
        if beat.get("state") not in STARTING_STATES
    ]
    return sum(rates) or FALLBACK_DRAIN_RATE


@dataclass(frozen=True, slots=True)
class QueueProjection:
    """The heap as the overload sweep sees it: the waiting calls in queue order, the work in service, the rate."""

    waiting: list[WaitingCall]
    in_service_s: float
    drain_rate: float


def project(heap: RedisSemanticHeap, now: dt.datetime) -> QueueProjection:
    """Read the heap and the engines' drain rates once."""
    waiting, leased = heap.snapshot()
    now_us = now.timestamp() * 1_000_000
    calls = [
        WaitingCall(item.incident_id, item.esi_level, item.est_remaining_s, max(0.0, (now_us - item.arrival_us) / 1e6))
        for item in waiting
    ]
    # A leased call's estimate is its whole work: what it still owes is less, so the projection errs on the side
    # of shedding a little early rather than late.
    in_service_s = sum(item.est_remaining_s for item in leased)
    return QueueProjection(calls, in_service_s, engine_drain_rate(heap.client, heap.prefix))


def update_overload_mode(settings: Settings, heap: RedisSemanticHeap, queue: QueueProjection, now: dt.datetime) -> bool:
    """Enter the overload mode when a miss is projected (ESI 2 then goes strictly after ESI 1, `PolicyOptions.
    when_overloaded`), leave it `overload_calm_s` after the last one; whether it holds now."""
    missing = projects_miss(queue.waiting, queue.in_service_s, queue.drain_rate, settings.policy_level_deadlines_s)
    now_s = now.timestamp()
    last_miss_s = now_s if missing else heap.last_miss_s()
    holds = overloaded(missing, last_miss_s, now_s, settings.overload_calm_s)
    if heap.set_overloaded(holds, last_miss_s or now_s):
        log.warning("overload mode %s", "on: ESI 2 served strictly after ESI 1" if holds else "off")
        publish_overload(heap.client, heap.prefix, holds)  # the engines' schedulers switch at their next step
    return holds


def shed_overdue(settings: Settings, heap: RedisSemanticHeap, now: dt.datetime | None = None) -> list[str]:
    """The reconciler's overload sweep: update the overload mode, then give template guidance to every waiting call
    `plan_shedding` picks; the ids shed. A call an engine worker took meanwhile is left to it; a call whose
    database write fails goes back to the heap."""
    options = settings.policy_options
    if not settings.shedding_enabled and options.when_overloaded() == options:
        return []
    now = now or utcnow()
    queue = project(heap, now)
    update_overload_mode(settings, heap, queue, now)
    if not settings.shedding_enabled:
        return []
    shed = []
    deadlines_s, shedding = settings.policy_level_deadlines_s, settings.shedding_options
    for decision in plan_shedding(queue.waiting, queue.in_service_s, queue.drain_rate, deadlines_s, shedding):
        item = heap.take_waiting(decision.call_id)
        if item is None:  # an engine worker took it, or it was overridden and re-keyed: not ours to shed
            continue
        try:
            written, put_back_level = write_template_guidance(settings, item, decision, now)
        except Exception:
            heap.push(item.incident_id, item.esi_level, item.est_remaining_s, item.arrival_us, item.source, item.facts)
            raise
        if written:
            shed.append(item.incident_id)
        elif put_back_level is not None:
            heap.push(item.incident_id, put_back_level, item.est_remaining_s, item.arrival_us, item.source, item.facts)
    if shed:
        log.warning("overload: %d call(s) of ESI %d-5 given template guidance", len(shed), settings.shed_min_level)
        try:
            count_engine(heap.client, heap.prefix, shed=len(shed))
        except redis.exceptions.RedisError as error:
            log.warning("metrics not recorded: %s", error)
    return shed


def write_template_guidance(
    settings: Settings, item: HeapItem, decision: ShedDecision, now: dt.datetime
) -> tuple[bool, int | None]:
    """The template guidance, the outcome (engine "template"), the incident done, its outbox closed and the audit
    event, in one transaction. Returns whether it was written and, when not, the level to put the call back in the
    heap at (None: finished meanwhile or gone, nothing to put back; a level: overridden to one never shed)."""
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, item.incident_id, with_for_update=True)  # a delivery finishing waits
        if incident is None or incident.guidance_state in FINAL_GUIDANCE_STATES:
            return False, None
        level = incident.esi_level or item.esi_level
        if not settings.shedding_options.may_shed(level):
            return False, level
        text, template = template_guidance(incident.text, level, incident.chief_complaint or "", decision.deadline_s)
        model = f"{TEMPLATE_ENGINE}:{template.kind}"
        guidance = session.get(Guidance, incident.id)
        if guidance is None:
            guidance = Guidance(incident_id=incident.id, model=model, prompt_version=TEMPLATE_VERSION)
            session.add(guidance)
        guidance.text, guidance.tokens, guidance.model = text, 0, model
        guidance.prompt_version, guidance.updated_at = TEMPLATE_VERSION, now
        queue_wait_s = max(0.0, (now - (incident.queued_at or incident.accepted_at)).total_seconds())
        served = Served(TEMPLATE_ENGINE, model, queue_wait_s)
        total_s = (now - incident.accepted_at).total_seconds()
        put_outcome(session, incident, item, served, total_s, now, replace=True)
        before: dict[str, object] = {"guidance_state": incident.guidance_state}
        incident.guidance_state = GuidanceState.DONE.value
        close_outbox(session, incident.id, now)
        reason = (
            f"queue projected {decision.projected_s:.0f} s to guidance, past the ESI {level} deadline of "
            f"{decision.deadline_s:.0f} s"
        )
        after = {"guidance_state": incident.guidance_state, "template": template.kind, "version": TEMPLATE_VERSION}
        session.add(
            IncidentEvent(
                incident_id=incident.id,
                actor="system:overload",
                action=SHED_ACTION,
                before=before,
                after=after,
                reason=reason,
                created_at=now,
            )
        )
    return True, None
