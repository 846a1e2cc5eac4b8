"""Handing a stored message to the workers marks it handed over in Redis (what the reconciler reads)."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from app.queueing import handed
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
