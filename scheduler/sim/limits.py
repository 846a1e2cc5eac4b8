"""The limit of each ESI level: a policy's wait for level k on the same workload holding only levels 1..k."""

from __future__ import annotations

import math
from collections.abc import Sequence

from scheduler.cost_model import CostModel
from scheduler.policy import ESI_LEVELS, Policy
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.metrics import PolicySummary
from scheduler.sim.predictors import Prediction
from scheduler.sim.simulator import simulate
from scheduler.sim.workload import SimRequest


def requests_up_to(
    requests: Sequence[SimRequest], predictions: Sequence[Prediction], esi_level: int
) -> tuple[list[SimRequest], list[Prediction]]:
    """The requests of true ESI levels 1..esi_level, each with its own prediction, in workload order.

    Arrivals, lengths and predictions (predicted level, predicted length, when the prediction is ready)
    stay those of the full workload: only the less urgent requests are removed.
    """
    if len(requests) != len(predictions):
        raise ValueError("requests and predictions must have the same length")
    kept = [index for index, request in enumerate(requests) if request.esi_level <= esi_level]
    return [requests[index] for index in kept], [predictions[index] for index in kept]


def level_limits(
    requests: Sequence[SimRequest],
    predictions: Sequence[Prediction],
    *,
    policy: Policy | str,
    config: SchedulerConfig,
    cost_model: CostModel,
    full_run: PolicySummary | None = None,
) -> dict[int, float]:
    """Per ESI level k, the policy's mean normalized wait of level k on `requests_up_to(k)` (NaN: no request).

    No less urgent work competes with level k in that run, so the ratio of a full run's level-k figure
    to it measures the interference from less urgent requests. `full_run`, the same policy's summary on
    the whole workload, is reused where the filtered workload is the whole one (always for ESI 5).
    """
    limits: dict[int, float] = {}
    for esi_level in ESI_LEVELS:
        kept, kept_predictions = requests_up_to(requests, predictions, esi_level)
        if not any(request.esi_level == esi_level for request in kept):
            limits[esi_level] = math.nan
        elif full_run is not None and len(kept) == len(requests):
            limits[esi_level] = full_run.per_level[esi_level]
        else:
            summary = simulate(policy, kept, kept_predictions, config, cost_model)
            limits[esi_level] = summary.per_level[esi_level]
    return limits


def mean_limits(runs: Sequence[dict[int, float]]) -> dict[int, float]:
    """Average the limits of several runs (seeds) per level, ignoring runs where a level had no request."""
    means: dict[int, float] = {}
    for esi_level in ESI_LEVELS:
        finite = [run[esi_level] for run in runs if esi_level in run and not math.isnan(run[esi_level])]
        means[esi_level] = sum(finite) / len(finite) if finite else math.nan
    return means


def limits_to_json(limits: dict[int, float]) -> dict[str, float | None]:
    """Levels as strings '1'..'5'; a level without requests is null."""
    return {str(esi_level): (None if math.isnan(value) else value) for esi_level, value in limits.items()}
