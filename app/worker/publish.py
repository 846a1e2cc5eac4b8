"""Handing stored messages to the classify workers: the `classify` task, sent through the broker."""

from __future__ import annotations

import logging

from app.queueing import mark_handed, redis_client
from app.settings import get_settings

log = logging.getLogger(__name__)


def publish_classify(incident_id: str) -> None:
    """Send the `classify` task for a stored message (the Celery app is built on first use, not on import), and mark
    it handed over (`app.queueing.mark_handed`; without the mark the reconciler only sends it again sooner)."""
    from app.worker.tasks import classify

    classify.apply_async(args=[incident_id], retry=False)
    settings = get_settings()
    if settings.redis_url is None:
        return
    try:
        mark_handed(redis_client(settings.redis_url), settings.queue_prefix, incident_id, settings.outbox_redeliver_s)
    except Exception as error:
        log.warning("could not mark %s handed over: %s", incident_id, error)


def try_hand_over(incident_id: str) -> None:
    """Hand a stored message to the workers now; if the broker is away, the reconciler does it later."""
    try:
        publish_classify(incident_id)
    except Exception as error:
        log.warning("could not hand %s to the workers yet: %s", incident_id, error)
