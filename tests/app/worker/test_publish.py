"""Handing a stored message to the workers marks it handed over in Redis (what the reconciler reads)."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from app.redis.queueing import handed
from app.settings import Settings
from app.worker import publish, tasks


def test_a_task_sent_to_the_broker_is_marked_and_one_that_cannot_be_sent_is_not(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(redis_url=redis_url, queue_prefix="publish-test", outbox_redeliver_s=12)
    monkeypatch.setattr(publish, "get_settings", lambda: settings)
    sent: list[list[str]] = []

    def to_the_broker(args: list[str], retry: bool, **_: Any) -> None:
        if args == ["broker-away"]:
            raise ConnectionError("broker unavailable")
        sent.append(args)

    monkeypatch.setattr(tasks.classify, "apply_async", to_the_broker)
    client = redis.Redis.from_url(redis_url)
    publish.publish_classify("sent")
    publish.try_hand_over("broker-away")  # logged; the reconciler sends it later
    assert sent == [["sent"]]
    assert handed(client, "publish-test", ["sent", "broker-away"]) == {"sent"}
    assert client.ttl("publish-test:classify:handed:sent") == 120  # 10 x TRIAGE_OUTBOX_REDELIVER_S


@pytest.mark.parametrize(
    ("text", "priority"),
    [
        ("my husband is not breathing", publish.URGENT_PRIORITY),
        ("mi esposo no respira y no responde", publish.URGENT_PRIORITY),
        ("Chồng tôi không thở được", publish.URGENT_PRIORITY),  # not read: it will be ESI 2 for an interpreter
        (None, publish.URGENT_PRIORITY),  # a re-send: the words are not at hand
        ("I need a refill of my blood pressure pills", publish.ROUTINE_PRIORITY),
        ("me torcí el tobillo jugando fútbol", publish.ROUTINE_PRIORITY),
    ],
)
def test_a_call_is_classified_routine_only_when_its_words_hold_no_red_flag(text: str | None, priority: int) -> None:
    assert publish.classify_priority(text) == priority


def test_the_broker_hands_out_an_urgent_classification_before_earlier_routine_ones(redis_url: str) -> None:
    from app.worker.celery_app import make_celery

    celery = make_celery(Settings(redis_url=redis_url))
    queue_name = "priority-test"
    for incident_id, text in (
        ("r1", "she has had a sore throat for two days"),
        ("r2", "I stubbed my toe on the couch"),
        ("u1", "he is not breathing"),
    ):
        celery.send_task(
            "triage.classify", args=[incident_id], queue=queue_name, priority=publish.classify_priority(text)
        )
    with celery.connection_for_read() as connection:
        queue = connection.SimpleQueue(queue_name)
        order = []
        for _ in range(3):
            message = queue.get(timeout=5)
            order.append(message.payload[0][0])
            message.ack()
        queue.close()
    assert order == ["u1", "r1", "r2"]
