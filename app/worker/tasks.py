"""Celery tasks: `classify` runs the triage models on a stored message and queues it in the semantic heap."""

from __future__ import annotations

from typing import Any

from app.incidents.pipeline import classify_incident
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
    try:
        return classify_incident(settings, heap, incident_id)
    except InvalidMessageError as error:
        close_unclassifiable(settings.database_url, incident_id, str(error))
        return "unclassifiable"
