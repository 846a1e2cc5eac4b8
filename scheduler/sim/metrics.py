"""Per-request outcomes and the figures reported per ESI level: normalized waiting time, its p99, TTFT."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scheduler.policy import ESI_LEVELS


@dataclass(frozen=True, slots=True)
class Outcome:
    """One finished request: its true level, when it arrived, got its first token, and finished."""

    request_id: str
    esi_level: int
    arrival_s: float
    first_token_s: float
    finish_s: float
    output_tokens: int
    shed: bool = False
    """Given template guidance at `finish_s` instead of the engine's (overload shedding)."""

    @property
    def normalized_wait_s(self) -> float:
        """The paper's metric: (finish - arrival) / generated tokens."""
        return (self.finish_s - self.arrival_s) / self.output_tokens


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile (share in 0..1); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True, slots=True)
class PolicySummary:
    """The figures of one policy on one workload."""

    per_level: dict[int, float]
    p99_per_level: dict[int, float]
    ttft_per_level: dict[int, float]
    overall: float
    count_per_level: dict[int, int]
    makespan_s: float
    evictions: dict[str, int]
    preemptions: int
    steps: int

    def to_json(self) -> dict[str, object]:
        def levels(values: dict[int, float]) -> dict[str, float | None]:
            return {str(level): (None if math.isnan(value) else value) for level, value in values.items()}

        return {
            "per_level": levels(self.per_level),
            "overall": self.overall,
            "p99_per_level": levels(self.p99_per_level),
            "ttft_mean_per_level": levels(self.ttft_per_level),
            "count_per_level": {str(level): count for level, count in self.count_per_level.items()},
            "makespan_s": self.makespan_s,
            "evictions": self.evictions,
            "preemptions": self.preemptions,
            "steps": self.steps,
        }


def summarize(outcomes: Sequence[Outcome], *, evictions: dict[str, int], preemptions: int, steps: int) -> PolicySummary:
    """Mean and p99 normalized waiting time per true ESI level and overall, plus mean time to first token."""
    by_level: dict[int, list[Outcome]] = {level: [] for level in ESI_LEVELS}
    for outcome in outcomes:
        by_level[outcome.esi_level].append(outcome)
    mean = {
        level: (sum(o.normalized_wait_s for o in items) / len(items) if items else math.nan)
        for level, items in by_level.items()
    }
    p99 = {level: percentile([o.normalized_wait_s for o in items], 0.99) for level, items in by_level.items()}
    ttft = {
        level: (sum(o.first_token_s - o.arrival_s for o in items) / len(items) if items else math.nan)
        for level, items in by_level.items()
    }
    overall = sum(o.normalized_wait_s for o in outcomes) / len(outcomes) if outcomes else math.nan
    return PolicySummary(
        per_level=mean,
        p99_per_level=p99,
        ttft_per_level=ttft,
        overall=overall,
        count_per_level={level: len(items) for level, items in by_level.items()},
        makespan_s=max((o.finish_s for o in outcomes), default=0.0),
        evictions=evictions,
        preemptions=preemptions,
        steps=steps,
    )


def _mean(values: Sequence[float]) -> float:
    finite = [value for value in values if not math.isnan(value)]
    return sum(finite) / len(finite) if finite else math.nan


def mean_summary(summaries: Sequence[PolicySummary]) -> PolicySummary:
    """Average several runs (seeds) of one policy: per-level figures and counters are means over the runs."""
    if not summaries:
        raise ValueError("mean_summary needs at least one summary")
    if len(summaries) == 1:
        return summaries[0]
    levels = summaries[0].per_level.keys()
    kinds = summaries[0].evictions.keys()
    runs = len(summaries)
    return PolicySummary(
        per_level={level: _mean([s.per_level[level] for s in summaries]) for level in levels},
        p99_per_level={level: _mean([s.p99_per_level[level] for s in summaries]) for level in levels},
        ttft_per_level={level: _mean([s.ttft_per_level[level] for s in summaries]) for level in levels},
        overall=_mean([s.overall for s in summaries]),
        count_per_level={level: round(sum(s.count_per_level[level] for s in summaries) / runs) for level in levels},
        makespan_s=_mean([s.makespan_s for s in summaries]),
        evictions={kind: round(sum(s.evictions[kind] for s in summaries) / runs) for kind in kinds},
        preemptions=round(sum(s.preemptions for s in summaries) / runs),
        steps=round(sum(s.steps for s in summaries) / runs),
    )
