"""Handing stored messages to the classify workers: the `classify` task, sent through the broker."""

from __future__ import annotations

import logging

from app.redis.queueing import mark_handed, redis_client
from app.settings import get_settings
from triage_models.language import SUPPORTED_LANGUAGES, rule_languages
from triage_models.rules import evaluate_rules, rules_floor

log = logging.getLogger(__name__)


URGENT_PRIORITY = 0
"""Kombu's Redis transport serves priority 0 first (its lists are read in the order of `priority_steps`,
[0, 3, 6, 9]); a message sent with no priority gets 0 too."""
ROUTINE_PRIORITY = 6
"""A call in which the red-flag rules find nothing, in English or Spanish, waits behind every other."""


def classify_priority(text: str | None) -> int:
    """The broker priority of a call's classification: routine only when its words are known to hold no red flag
    (read in English or Spanish, no rule floor); urgent when they do, or when they are not known (a re-send) or not
    read (another language: it will be ESI 2). Classification itself is quick; under a flood of minor calls this is
    what puts an arrest's protocol card on screen first."""
    if text is None or rule_languages(text) == SUPPORTED_LANGUAGES:
        return URGENT_PRIORITY
    return ROUTINE_PRIORITY if rules_floor(evaluate_rules(text)) is None else URGENT_PRIORITY


def publish_classify(incident_id: str, text: str | None = None) -> None:
    """Send the `classify` task for a stored message (the Celery app is built on first use, not on import) at its
    priority (`classify_priority`), and mark it handed over (`app.redis.queueing.mark_handed`; without the mark the
    reconciler only sends it again sooner)."""
    from app.worker.tasks import classify

    classify.apply_async(args=[incident_id], retry=False, priority=classify_priority(text))
    settings = get_settings()
    if settings.redis_url is None:
        return
    try:
        mark_handed(redis_client(settings.redis_url), settings.queue_prefix, incident_id, settings.outbox_redeliver_s)
    except Exception as error:
        log.warning("could not mark %s handed over: %s", incident_id, error)


def try_hand_over(incident_id: str, text: str | None = None) -> None:
    """Hand a stored message to the workers now; if the broker is away, the reconciler does it later."""
    try:
        publish_classify(incident_id, text)
    except Exception as error:
        log.warning("could not hand %s to the workers yet: %s", incident_id, error)


LIVE_PRIORITY = 3
"""A live call's new words with no red flag in them: ahead of routine messages, behind urgent words."""


def publish_retriage(incident_id: str, urgent: bool) -> None:
    """Send the `retriage_live` task for a live call with new words: urgent when they hold a red flag
    (`app.live.handover.urgent_words`), else at the live priority (the sweep's calls too), so that under a backlog the
    words that may raise a call to ESI 1-2 are read first."""
    from app.worker.tasks import retriage_live

    priority = URGENT_PRIORITY if urgent else LIVE_PRIORITY
    retriage_live.apply_async(args=[incident_id], retry=False, priority=priority)
