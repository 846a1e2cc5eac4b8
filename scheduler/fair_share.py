"""Fair share by source inside an ESI level: which waiting call the Redis heap takes next, as a pure function.

The heap's order (the policy's encoded key, then arrival) picks the band and the ESI level of the next call: the
head's. Among the calls of that level in that band, each source offers its own best one, and the source served
least often at that level goes first (ties: the better key). A source that starts sending again starts at the
level's clock (the count of the source served last), so an idle spell earns no burst, while a burst earns no
more than one call per round: sources interleave round-robin within a level, and nothing moves across levels or
bands. With one source the order is the policy's order, unchanged. The Redis heap's Lua pop does the same
(`scheduler.redis_heap`); `take_order` is its specification and the heap's snapshot.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scheduler.policy import PRIORITY_SCALE

HALF_BAND = PRIORITY_SCALE // 2
"""Bands are multiples of one half (1, 1.5, 2, 3 ...): an encoded score's band is `score // HALF_BAND`."""


@dataclass(frozen=True, slots=True, order=True)
class Waiting:
    """A waiting call as the heap orders it: its score and member (the heap's order), its source."""

    score: int
    member: str
    incident_id: str
    source: str

    @property
    def level(self) -> int:
        return self.score % 10

    @property
    def band(self) -> int:
        return self.score // HALF_BAND


def served_key(esi_level: int, source: str) -> str:
    """The field of a source's served count at a level (in the heap's `served` hash)."""
    return f"{esi_level}|{source}"


def next_call(waiting: Sequence[Waiting], served: Mapping[str, int]) -> Waiting:
    """The call taken next from `waiting` (in the heap's order, not empty) given the served counts."""
    head = waiting[0]
    offers: dict[str, Waiting] = {}
    for call in waiting:
        if call.level == head.level and call.band == head.band and call.source not in offers:
            offers[call.source] = call
    return min(offers.values(), key=lambda call: (served.get(served_key(call.level, call.source), 0), call))


def take_order(waiting: Sequence[Waiting], served: Mapping[str, int]) -> list[str]:
    """The ids in the order the heap takes them, if nothing arrives meanwhile: `next_call` again and again, with
    the calls kept per (band, level) and source so that each step looks at the sources' heads only."""
    groups: dict[tuple[int, int], dict[str, deque[Waiting]]] = {}
    for call in sorted(waiting):
        groups.setdefault((call.band, call.level), {}).setdefault(call.source, deque()).append(call)
    counts = dict(served)
    order = []
    while groups:
        head = min(groups, key=lambda group: min(queue[0] for queue in groups[group].values()))
        offers = groups[head]
        source = min(offers, key=lambda name: (counts.get(served_key(head[1], name), 0), offers[name][0]))
        call = offers[source].popleft()
        if not offers[source]:
            del offers[source]
            if not offers:
                del groups[head]
        key = served_key(call.level, call.source)
        counts[key] = counts.get(key, 0) + 1
        order.append(call.incident_id)
    return order
