"""SharedValue: read once per ttl; `peek` gives the fresh value without reading or blocking."""

from __future__ import annotations

from app.redis.shared_value import SharedValue


def test_peek_gives_the_value_only_while_fresh_and_never_reads() -> None:
    now, reads = [0.0], []

    def read() -> int:
        reads.append(now[0])
        return len(reads)

    shared = SharedValue(read, ttl_s=5.0, clock=lambda: now[0])
    assert shared.peek() is None
    assert shared.get() == 1
    now[0] = 4.9
    assert (shared.peek(), shared.get()) == (1, 1)
    now[0] = 5.0
    assert shared.peek() is None
    assert shared.get() == 2
    assert shared.peek() == 2
    assert reads == [0.0, 5.0]
