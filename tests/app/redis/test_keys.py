"""Every Redis key the product uses is named in `app.redis.keys`, and under the queue prefix."""

from __future__ import annotations

import re
from pathlib import Path

from app.redis import keys

APP = Path(__file__).resolve().parents[3] / "app"


def test_each_key_is_under_the_prefix_with_its_documented_name() -> None:
    assert keys.engine_heartbeat("p", "engine-1") == "p:engine:heartbeat:engine-1"
    assert keys.engine_heartbeat_pattern("p") == "p:engine:heartbeat:*"
    assert keys.worker_heartbeat("p", "host") == "p:worker:heartbeat:host"
    assert keys.worker_heartbeat_pattern("p") == "p:worker:heartbeat:*"
    assert keys.override_channel("p") == "p:overrides"
    assert keys.handed("p", "abc") == "p:classify:handed:abc"
    assert keys.metrics_histogram("p", "wait") == "p:metrics:wait"
    assert keys.metrics_engine("p") == "p:metrics:engine"
    assert keys.signin_account("p", "d1") == "p:signin:account:d1"
    assert keys.signin_client("p", "d2") == "p:signin:client:d2"
    assert keys.intake_limits_prefix("p") == "p:intake:limits"
    assert keys.live_call_window("p", "cad|CA1", "LIMITER/3/10/second") == "p:live:limits:cad|CA1:LIMITER/3/10/second"
    assert keys.live_known_call("p", "phones", "CA1") == "p:live:call:phones:CA1"
    assert keys.live_dirty("p", "abc") == "p:live:dirty:abc"
    assert keys.live_scheduled("p", "abc") == "p:live:scheduled:abc"
    assert keys.heap_keys("p") == [
        "p:heap:queue",
        "p:heap:leases",
        "p:heap:items",
        "p:heap:overload",
        "p:heap:sources",
        "p:heap:served",
    ]


def test_no_other_app_module_spells_a_key() -> None:
    spelled = re.compile(r"""f["'][^"']*\{[\w.]*prefix\}:""")
    offenders = [
        f"{path.relative_to(APP.parent)}:{number}"
        for path in sorted(APP.rglob("*.py"))
        if path != APP / "redis" / "keys.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if spelled.search(line)
    ]
    assert offenders == []
