"""Batch selection for one engine step (Algorithm 2): merge candidates with ongoing requests, stage-aware."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from scheduler.indexed_heap import SortKey


@dataclass(frozen=True, slots=True)
class BatchEntry:
    """A request as batch selection sees it: its key, whether it needs a prefill, whether it may be displaced."""

    key: SortKey
    request_id: str
    needs_prefill: bool
    pinned: bool = False


@dataclass(slots=True)
class BatchSelection:
    """The requests to run this step (most urgent first) and those that go back to the waiting heap."""

    batch: list[BatchEntry] = field(default_factory=list)
    returned: list[BatchEntry] = field(default_factory=list)
    held_for_stage: list[str] = field(default_factory=list)
    stage_hold_level: float | None = None


def _sorted(entries: Sequence[BatchEntry]) -> list[BatchEntry]:
    return sorted(entries, key=lambda entry: (entry.key, entry.request_id))


def select_batch(
    candidates: Sequence[BatchEntry],
    ongoing: Sequence[BatchEntry],
    max_batch_size: int,
    *,
    stage_aware: bool,
    waiting_preempts_running: bool,
) -> BatchSelection:
    """Choose the next batch from the top-b candidates and the ongoing requests.

    Stage awareness (the paper's fix for priority inversion): when the most urgent request among
    candidates and ongoing is decoding, prefilling requests of a less urgent level stay out of this
    step (candidates, and ongoing chunked prefills), because the engine runs a step's prefills before
    its decodes and they would delay that urgent decode. Prefills of p*'s own level join: within a
    level the key order already serves the mean wait (docs/scheduling.md says why).
    Pinned ongoing requests (limited preemption, preemption cap) always stay in the batch.
    Without `waiting_preempts_running` (vLLM's stock priority policy) ongoing requests keep their
    slots and candidates only fill the free ones.
    """
    selection = BatchSelection()
    if not waiting_preempts_running:
        kept = _sorted(ongoing)[:max_batch_size]
        ranked = _sorted(candidates)
        free = max_batch_size - len(kept)
        selection.batch = kept + ranked[:free]
        selection.returned = _sorted(list(ongoing)[len(kept) :]) + ranked[free:]
        return selection

    pool_candidates = list(candidates)
    if stage_aware and (candidates or ongoing):
        most_urgent = min((*candidates, *ongoing), key=lambda entry: (entry.key, entry.request_id))
        if not most_urgent.needs_prefill:
            level = most_urgent.key[0]

            def hold(entry: BatchEntry) -> bool:
                return entry.needs_prefill and entry.key[0] > level and not entry.pinned

            # Ongoing chunked prefills of a less urgent level wait too (they keep their KV).
            held = [entry for entry in (*candidates, *ongoing) if hold(entry)]
            pool_candidates = [entry for entry in candidates if not hold(entry)]
            ongoing = [entry for entry in ongoing if not hold(entry)]
            selection.returned.extend(held)
            selection.held_for_stage = [entry.request_id for entry in held]
            selection.stage_hold_level = level

    pinned = [entry for entry in ongoing if entry.pinned][:max_batch_size]
    others = _sorted([*pool_candidates, *(entry for entry in ongoing if not entry.pinned)])
    free = max_batch_size - len(pinned)
    selection.batch = _sorted(pinned + others[:free])
    selection.returned.extend(others[free:])
    return selection
