"""Celery tasks: `classify` runs the triage models on a stored message and queues it in the semantic heap."""

from __future__ import annotations

from typing import Any

from app.pipeline import classify_incident
from app.queueing import settings_heap
from app.settings import get_settings
from app.worker.celery_app import celery_app


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
    """Idempotent by incident id: a second delivery finds the classification and only re-queues if needed."""
    settings = get_settings()
    return classify_incident(settings, settings_heap(settings), incident_id)
