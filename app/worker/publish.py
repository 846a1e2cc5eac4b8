"""Handing stored messages to the classify workers: the `classify` task, sent through the broker."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def publish_classify(incident_id: str) -> None:
    """Send the `classify` task for a stored message (the Celery app is built on first use, not on import)."""
    from app.worker.tasks import classify

    classify.apply_async(args=[incident_id], retry=False)


def try_hand_over(incident_id: str) -> None:
    """Hand a stored message to the workers now; if the broker is away, the reconciler does it later."""
    try:
        publish_classify(incident_id)
    except Exception as error:
        log.warning("could not hand %s to the workers yet: %s", incident_id, error)
