"""Celery tasks: `classify` runs the triage models on a stored message and queues it in the semantic heap."""

from __future__ import annotations

from typing import Any

from app.db.models import LiveCall
from app.db.session import session_scope
from app.incidents.pipeline import classify_incident
from app.live.handover import run_retriage
from app.redis.queueing import clear_handed, settings_heap
from app.settings import get_settings
from app.worker.celery_app import celery_app
from app.worker.unclassifiable import close_unclassifiable
from triage_models.text import InvalidMessageError


@celery_app.task(  # type: ignore[untyped-decorator]
    name="triage.classify",
    bind=True,
    acks_late=True,
    autoretry_for=(Exception,),
    retry_backoff=1,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=None,
)
def classify(self: Any, incident_id: str) -> str:
    """Idempotent by incident id: a second delivery finds the classification and only re-queues if needed.

    Every other error is retried (the database, Redis or the model may be back soon); a message the classifier
    refuses is refused every time, so its incident is closed for a person's review instead."""
    settings = get_settings()
    heap = settings_heap(settings)
    clear_handed(heap.client, heap.prefix, incident_id)  # off the broker: if this worker dies, the reconciler resends
    if _is_live(settings.database_url, incident_id):  # handed again by the reconciler: read the call as it is now
        return run_retriage(settings, heap, incident_id)
    try:
        return classify_incident(settings, heap, incident_id)
    except InvalidMessageError as error:
        close_unclassifiable(settings.database_url, incident_id, str(error))
        return "unclassifiable"


def _is_live(database_url: str, incident_id: str) -> bool:
    with session_scope(database_url) as session:
        return session.get(LiveCall, incident_id) is not None


@celery_app.task(  # type: ignore[untyped-decorator]
    name="triage.retriage_live",
    bind=True,
    acks_late=True,  # a worker that dies mid-reading: the task is delivered again (readings are idempotent)
    autoretry_for=(Exception,),
    retry_backoff=1,
    retry_backoff_max=30,
    retry_jitter=True,
    max_retries=None,
)
def retriage_live(self: Any, incident_id: str) -> str:
    """Read a live call again with every final utterance so far (coalesced: one task per call at a time)."""
    settings = get_settings()
    return run_retriage(settings, settings_heap(settings), incident_id)
