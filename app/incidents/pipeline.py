"""The incident pipeline's steps on the database and the heap: store, classify, queue, reconcile.

The database is the source of truth. Intake stores the message and its outbox entry in one transaction before it
answers 202; the outbox entry is done only when the guidance is. The reconciler (run by the web app) hands every
stored-but-unclassified message to the workers again after `outbox_redeliver_s`, and puts back in the heap every
classified incident that is neither done nor in the heap (after a Redis restart, say): nothing accepted is lost.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kombu.exceptions import KombuError
from redis.exceptions import RedisError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db.models import (
    FINAL_GUIDANCE_STATES,
    Classification,
    GuidanceState,
    Incident,
    IncidentEvent,
    Outbox,
    utcnow,
)
from app.db.session import session_scope
from app.engine_worker.cost_model import scoring_cost_model
from app.guidance.incident_card import assign_from_triage
from app.incidents.complaint import complaint_from_evidence, first_sentence
from app.incidents.duplicates import callback_of, flag_possible_duplicate
from app.incidents.overload import shed_overdue
from app.incidents.protocol_reading import store_reading
from app.intake.schemas import IntakeMessage
from app.redis.queueing import handed, publish_closed, publish_override
from app.settings import Settings, get_settings
from scheduler.cost_model import estimate_remaining_s
from scheduler.redis_heap import CallFacts, HeapItem, RedisSemanticHeap
from triage_models.llm import LLM_PROMPT_VERSION
from triage_models.pipeline import Triager
from triage_models.result import TriageResult

log = logging.getLogger(__name__)

PROMPT_OVERHEAD_TOKENS = 250
"""The guidance prompt's fixed part (instructions), added to the message's own tokens in estimates."""
CHARS_PER_TOKEN = 4
"""Characters of a call per token, for the estimate (English and Spanish text under BPE tokenizers: about 4)."""


@dataclass(frozen=True, slots=True)
class CallContact:
    """What a call-taker adds to a typed call: the number to call back and the patient's age."""

    callback_number: str | None = None
    patient_age_years: int | None = None


def store_message(
    session: Session,
    source: str,
    webhook_id: str,
    message: IntakeMessage,
    entered_by: str | None = None,
    contact: CallContact | None = None,
) -> tuple[str, bool]:
    """Store a message with its outbox entry; (incident id, duplicate). A webhook id seen before creates nothing.
    Its `received` event's actor is always the intake source (`system:intake:<source>`, the console's too, as the
    threat model says); `entered_by`, the user who typed it in the console, is kept in the same audit row. A call at
    the address or from the number of an open incident of the last 30 minutes is flagged as a possible duplicate."""

    def existing_id() -> str | None:
        return session.scalar(select(Incident.id).where(Incident.source == source, Incident.webhook_id == webhook_id))

    existing = existing_id()
    if existing is not None:
        return existing, True
    incident = Incident(
        source=source,
        webhook_id=webhook_id,
        call_id=message.call_id,
        caller=message.caller,
        location=message.location,
        text=message.text,
        received_at=message.received_at,
        accepted_at=utcnow(),
        chief_complaint=first_sentence(message.text),
        callback_number=(contact.callback_number if contact else None) or callback_of(message.caller),
        patient_age_years=contact.patient_age_years if contact else None,
    )
    session.add(incident)
    try:
        session.flush()
    except IntegrityError:  # the same webhook id, concurrently: the other request stored it
        session.rollback()
        existing = existing_id()
        if existing is None:
            raise
        return existing, True
    session.add(Outbox(incident_id=incident.id))
    session.add(
        IncidentEvent(
            incident_id=incident.id,
            actor=f"system:intake:{source}",
            action="received",
            after={
                "webhook_id": webhook_id,
                "call_id": message.call_id,
                **({"entered_by": entered_by} if entered_by is not None else {}),
            },
        )
    )
    flag_possible_duplicate(session, incident, f"system:intake:{source}")
    return incident.id, False


def triage_text(incident: Incident) -> str:
    """What triage reads: the call, and the patient's age when the call-taker entered it (triage reads an age from
    the words, so it is said in words after the call: the call's own offsets stay valid)."""
    if incident.patient_age_years is None:
        return incident.text
    return f"{incident.text}\nPatient is {incident.patient_age_years} years old."


def estimated_prompt_tokens(text: str) -> int:
    """The guidance prompt's length in tokens, estimated without a tokenizer (the pipeline loads none): the
    instructions' fixed part plus one token per `CHARS_PER_TOKEN` characters of the call. The one such estimate: the
    engines count the real prompt with the model's tokenizer."""
    return PROMPT_OVERHEAD_TOKENS + len(text) // CHARS_PER_TOKEN


def incident_remaining_s(settings: Settings, client: Any, text: str, predicted_output_tokens: int) -> float:
    """Estimated engine time for an incident's guidance (`scheduler.cost_model.estimate_remaining_s`), with the
    cost model the engines publish (the configured one until an engine has: `app.engine_worker.cost_model`)."""
    cost_model = scoring_cost_model(settings, client)
    return estimate_remaining_s(cost_model, estimated_prompt_tokens(text), predicted_output_tokens)


def arrival_us(incident: Incident) -> int:
    return int(incident.accepted_at.timestamp() * 1_000_000)


def call_facts(incident: Incident) -> CallFacts:
    """What the engine needs of a classified incident besides its words, for its heap item (and lease): the rules
    its latest classification fired, its card, its language, its answer-length estimate."""
    classification = incident.classifications[-1] if incident.classifications else None
    flags = tuple(str(item.get("rule_id")) for item in classification.evidence) if classification else ()
    return CallFacts(
        flags=flags,
        card_id=incident.card_id,
        card_language=incident.card_language,
        language=incident.language or "en",
        predicted_output_tokens=incident.predicted_output_tokens or 0,
    )


_triagers: dict[tuple[str, str], tuple[tuple[int, int] | None, Triager]] = {}
"""(model directory, triage backend) -> (the stamp of its `meta.json` when loaded, the triager)."""
_triagers_lock = threading.Lock()


def _meta_stamp(directory: Path) -> tuple[int, int] | None:
    """`meta.json`'s modification time (ns) and inode, None when absent. A promotion replaces the directory by
    rename, so both change (the inode also when a copy kept the old file's time)."""
    try:
        stat = (directory / "meta.json").stat()
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_ino


def triager_for(model_dir: str | None, settings: Settings | None = None) -> Triager:
    """The triage models of a directory (default `default_model_dir()`), loaded (or trained on first use) once and
    again whenever a promoted model replaces them: one stat of `meta.json` per call. With `triage_backend = "llm"`
    (in `settings`, else the process's) the engine's model classifies and the trained model is the fallback."""
    from triage_models.llm import LLMClassifier
    from triage_models.store import default_model_dir, load_or_train_default

    settings = settings or get_settings()
    directory = Path(model_dir) if model_dir else default_model_dir()
    key = (str(directory), settings.triage_backend)
    with _triagers_lock:
        stamp = _meta_stamp(directory)  # before loading: a promotion during the load is picked up next call
        cached = _triagers.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        model = load_or_train_default(directory)
        log.info("triage model %s loaded from %s (backend %s)", model.version, directory, settings.triage_backend)
        if settings.triage_backend == "llm":
            from app.incidents.triage_llm import engine_generator

            triager = Triager(model, llm=LLMClassifier(engine_generator(settings)))
        else:
            triager = Triager(model)
        _triagers[key] = (stamp, triager)
        return triager


def classify_incident(settings: Settings, heap: RedisSemanticHeap, incident_id: str) -> str:
    """Classify an incident (once per model version) and queue it in the heap; idempotent. Returns what it did."""
    triager = triager_for(str(settings.model_dir) if settings.model_dir else None)
    with session_scope(settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        if incident is None:
            log.warning("classify: incident %s does not exist", incident_id)
            return "missing"
        if incident.guidance_state in FINAL_GUIDANCE_STATES:
            return "finished"
        # With the llm backend a classification is recorded under the prompt's version too (or the trained
        # model's when the llm fell back): either means this model has classified the incident.
        versions = (triager.model.version, f"{LLM_PROMPT_VERSION}+{triager.model.version}")
        done = session.scalar(
            select(Classification.id).where(
                Classification.incident_id == incident_id,
                Classification.model_version.in_(versions),
                Classification.text_revision == incident.text_revision,
            )
        )
        action = "already classified"
        if done is None:
            _record_classification(session, incident, triager.classify(triage_text(incident)))
            action = "classified"
        if incident.guidance_state == GuidanceState.PENDING:
            incident.guidance_state = GuidanceState.QUEUED.value
            incident.queued_at = utcnow()
        level, text, source = incident.esi_level, incident.text, incident.source
        tokens, arrival, facts = incident.predicted_output_tokens or 0, arrival_us(incident), call_facts(incident)
    assert level is not None
    estimate = incident_remaining_s(settings, heap.client, text, tokens)
    heap.push(incident_id, level, estimate, arrival, source, facts)
    # An override committed while we classified: its re-key may have found nothing in the heap yet.
    with session_scope(settings.database_url) as session:
        current = session.scalar(select(Incident.esi_level).where(Incident.id == incident_id))
    if current is not None and current != level:
        heap.override(incident_id, current)
    return action


def _record_classification(session: Session, incident: Incident, result: TriageResult) -> None:
    """Store a classification, set the incident's levels, review flag and protocol card (an override made meanwhile
    wins), and write the audit event; the caller commits."""
    evidence = [item.to_json() for item in result.evidence]
    row = Classification(
        incident_id=incident.id,
        esi_level=result.esi_level,
        classifier_level=result.classifier_level,
        decision_point=result.decision_point.value,
        probabilities={str(level): p for level, p in result.probabilities.items()},
        evidence=evidence,
        predicted_output_tokens=result.predicted_output_tokens,
        model_version=result.model_version,
        backend=result.backend,
        needs_review=result.needs_review,
        review_reason=result.review_reason[:255],
        resources=[item.to_json() for item in result.resources],
        resource_count=result.resource_count,
        language=result.language.code,
        text_revision=incident.text_revision,
    )
    store_reading(row, result)
    session.add(row)
    before = {"esi_level": incident.esi_level}
    incident.model_level = result.esi_level
    session.refresh(incident, ["override_level"])  # an override made while the models ran wins
    incident.esi_level = incident.override_level or result.esi_level
    incident.predicted_output_tokens = result.predicted_output_tokens
    incident.needs_review = result.needs_review
    incident.review_reason = result.review_reason[:255]
    incident.language = result.language.code
    incident.chief_complaint = complaint_from_evidence(incident.text, evidence)  # the red flags, not the opening
    incident.classified_at = utcnow()
    after: dict[str, object] = {"esi_level": incident.esi_level, "model_version": result.model_version}
    if result.needs_review:
        after["needs_review"] = True
    card = assign_from_triage(incident, result)  # on screen with the level, whatever the engine is doing
    if card is not None:
        after["card"] = {"id": card.id, "version": card.version, "language": card.language}
    session.add(
        IncidentEvent(
            incident_id=incident.id,
            actor="system:classifier",
            action="classified",
            before=before,
            after=after,
            reason=result.review_reason or None,
        )
    )


def reconcile(
    settings: Settings,
    heap: RedisSemanticHeap,
    publish: Callable[[str], Any],
    now: dt.datetime | None = None,
) -> dict[str, int]:
    """One pass: republish stale unclassified messages whose task is no longer in the broker (through `publish`,
    which hands one to the workers and marks it handed, `app.redis.queueing.mark_handed`), re-queue classified ones
    missing from the heap."""
    now = now or utcnow()
    stale_before = now - dt.timedelta(seconds=settings.outbox_redeliver_s)
    counts = {"republished": 0, "requeued": 0, "in_broker": 0, "rekeyed": 0, "expired_leases": heap.requeue_expired()}
    with session_scope(settings.database_url) as session:
        rows = session.execute(
            select(Outbox, Incident.classified_at).join(Incident).where(Outbox.done_at.is_(None))
        ).all()
        stale = [
            outbox
            for outbox, classified_at in rows
            # Intake hands each message over right after it answers; only a stale one is handed over again.
            if classified_at is None and (outbox.published_at or outbox.created_at) < stale_before
        ]
        # ... and only if its task is no longer in the broker (a backlog is not a loss).
        in_broker = handed(heap.client, heap.prefix, [outbox.incident_id for outbox in stale])
        to_publish = [outbox for outbox in stale if outbox.incident_id not in in_broker]
        counts["in_broker"] = len(in_broker)
        classified = [outbox.incident_id for outbox, classified_at in rows if classified_at is not None]
        for outbox in to_publish:
            try:
                publish(outbox.incident_id)
            except (OSError, KombuError, RedisError) as error:  # the broker is away: the next pass tries again
                log.warning("reconcile: cannot hand %s to the workers: %s", outbox.incident_id, error)
                break
            outbox.published_at = now
            outbox.attempts += 1
            counts["republished"] += 1
    if classified:
        in_heap = heap.items(classified)
        counts["rekeyed"] = rekey_drifted(settings, heap, in_heap)
        missing = [incident_id for incident_id in classified if incident_id not in in_heap]
        # Read the state after seeing the heap: an engine worker commits "done" before it acks the heap.
        served_since = now - dt.timedelta(seconds=settings.engine_lease_s)
        with session_scope(settings.database_url) as session:
            for incident in session.scalars(select(Incident).where(Incident.id.in_(missing))):
                if incident.guidance_state in FINAL_GUIDANCE_STATES or incident.esi_level is None:
                    continue
                if incident.engine_seen_at is not None and incident.engine_seen_at > served_since:
                    continue  # an engine worker is serving it (its lease will be re-created if Redis lost it)
                estimate = incident_remaining_s(
                    settings, heap.client, incident.text, incident.predicted_output_tokens or 0
                )
                facts = call_facts(incident)
                if heap.push(incident.id, incident.esi_level, estimate, arrival_us(incident), incident.source, facts):
                    counts["requeued"] += 1
    return counts


def rekey_drifted(settings: Settings, heap: RedisSemanticHeap, in_heap: dict[str, HeapItem]) -> int:
    """Re-key every call whose level in the heap is not the database's (an override or a raised live reading whose
    propagation failed with Redis away), and tell the engine workers; how many."""
    if not in_heap:
        return 0
    with session_scope(settings.database_url) as session:
        rows = session.execute(select(Incident.id, Incident.esi_level).where(Incident.id.in_(list(in_heap))))
        levels = {incident_id: level for incident_id, level in rows}
    drifted = {
        incident_id: level for incident_id, level in levels.items() if level and level != in_heap[incident_id].esi_level
    }
    for incident_id, level in drifted.items():
        where = heap.override(incident_id, level)
        publish_override(heap.client, heap.prefix, incident_id, level)
        log.info("level_rekeyed incident_id=%s esi_level=%d heap=%s by=reconciler", incident_id, level, where)
    return len(drifted)


def drop_closed(settings: Settings, heap: RedisSemanticHeap) -> list[str]:
    """Closed incidents still in the heap (closed where nothing propagated it, or while Redis was away): taken out,
    and the engine workers told (the one serving it aborts it); their ids."""
    in_heap = heap.incident_ids()
    if not in_heap:
        return []
    with session_scope(settings.database_url) as session:
        closed = list(
            session.scalars(
                select(Incident.id).where(
                    Incident.id.in_(in_heap), Incident.guidance_state == GuidanceState.CANCELLED.value
                )
            )
        )
    for incident_id in closed:
        heap.remove(incident_id)
        publish_closed(heap.client, heap.prefix, incident_id)
        log.info("incident_closed incident_id=%s taken out of the heap by the reconciler", incident_id)
    return closed


def run_reconciler(
    settings: Settings,
    heap: RedisSemanticHeap,
    stop: Any,
    publish: Callable[[str], Any],
    live_sweep: Callable[[], Any] | None = None,
) -> None:
    """Reconcile, then give template guidance to calls the queue would make miss their deadline
    (`app.incidents.overload`), then sweep live calls (`live_sweep`: silent streams ended, unread words handed
    over), every `reconcile_interval_s` until `stop` (a threading.Event) is set; errors are logged."""
    while not stop.wait(settings.reconcile_interval_s):
        started = time.monotonic()
        try:
            counts = reconcile(settings, heap, publish)
            if counts["republished"] or counts["requeued"] or counts["expired_leases"] or counts["rekeyed"]:
                log.info("reconcile: %s in %.2fs", counts, time.monotonic() - started)
            drop_closed(settings, heap)
        # Redis or the database away for a moment, or anything else: the reconciler thread must outlive it.
        except Exception as error:
            log.warning("reconcile failed: %s", error)
        try:
            shed_overdue(settings, heap)
        except Exception as error:
            log.warning("overload sweep failed: %s", error)
        if live_sweep is not None:
            try:
                live_sweep()
            except Exception as error:
                log.warning("live sweep failed: %s", error)
