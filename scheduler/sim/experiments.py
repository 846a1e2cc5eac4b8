"""The paper's simulated experiments: parameter points, sweeps, and running every policy on one workload."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scheduler.cost_model import CostModel, get_profile
from scheduler.policy import POLICIES
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.limits import level_limits, limits_to_json, mean_limits
from scheduler.sim.metrics import PolicySummary, mean_summary
from scheduler.sim.predictors import Prediction, PredictorMode, PredictorSpec, predict
from scheduler.sim.simulator import simulate
from scheduler.sim.workload import SimRequest, WorkloadSpec, generate_workload

# Device KV capacity per profile, in tokens. A100 figures are the authors' simulator's (block size 32); the
# A5000/7B one is ours (24 GB card, fp16 7B weights, 0.5 MiB of KV per token), theirs fails its own check.
DEFAULT_KV_CAPACITY_TOKENS: dict[str, int] = {
    "a100-qwen1.5-4b": 37_728,
    "a100-qwen1.5-7b": 4_896,
    "a5000-qwen1.5-7b": 8_192,
}

BASELINES = ("semantic-strict", "fcfs", "sjf", "hpjf", "vllm-priority")
"""What `semantic` is compared with: the paper's strict policy (Algorithms 1-5) and the paper's baselines."""
LIMIT_POLICY = "semantic"
"""The policy whose per-level limit every report shows (`scheduler.sim.limits`)."""


@dataclass(frozen=True, slots=True)
class PointParams:
    """Everything that defines one simulated run, apart from the policy."""

    profile: str = "a100-qwen1.5-4b"
    gap_s: float = 0.1
    concurrency: int = 100
    bursts: int = 20
    seed: int = 0
    repeats: int = 1
    """Run seeds seed..seed+repeats-1 and report the mean of each figure over them."""
    urgency_error_rate: float = 0.0
    length_error_rate: float = 0.0
    predictor_latency_s: float = 0.0015
    predictor_batch_size: int = 5
    predictor_mode: str = "immediate"
    batch_size: int = 16
    block_size: int = 32
    kv_capacity_tokens: int | None = None
    max_output_tokens: int = 500
    mixed_steps: bool = False
    """False: the paper's engine (a step with prefills runs only them). True: prefill and decode share a step."""

    def kv_capacity(self) -> int:
        return self.kv_capacity_tokens or DEFAULT_KV_CAPACITY_TOKENS[self.profile]

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["kv_capacity_tokens"] = self.kv_capacity()
        return data


@dataclass(frozen=True, slots=True)
class Experiment:
    """A named study: its headline parameters and the values its sweep visits."""

    name: str
    description: str
    defaults: dict[str, Any]
    sweep: list[dict[str, Any]]


_MODES = ("immediate", "full")
EXPERIMENTS: dict[str, Experiment] = {
    "spikes": Experiment(
        "spikes",
        "Bursts of up to N requests every gap seconds (paper Fig. 2c-d)",
        {"gap_s": 0.1, "concurrency": 100},
        [{"concurrency": n} for n in (5, 10, 20, 50, 100)],
    ),
    "urgency-error": Experiment(
        "urgency-error",
        "Urgency predictor error rate 0.1..0.9 (paper Fig. 2a)",
        {"concurrency": 5, "urgency_error_rate": 0.5},
        [{"urgency_error_rate": r} for r in (0.1, 0.3, 0.5, 0.7, 0.9)],
    ),
    "length-error": Experiment(
        "length-error",
        "Length predictor error rate 0.1..0.9 (paper Fig. 2b)",
        {"concurrency": 5, "length_error_rate": 0.5},
        [{"length_error_rate": r} for r in (0.1, 0.3, 0.5, 0.7, 0.9)],
    ),
    "predictor-latency": Experiment(
        "predictor-latency",
        "Predictor latency 0.001..1 s, batch 64, immediate vs full batching (paper Table 1)",
        {"concurrency": 5, "predictor_batch_size": 64, "predictor_latency_s": 0.01},
        [
            {"predictor_latency_s": latency, "predictor_mode": mode}
            for mode in _MODES
            for latency in (0.001, 0.01, 0.1, 1.0)
        ],
    ),
    "batch-size": Experiment(
        "batch-size",
        "Predictor batch size 4..64 at 0.01 s, immediate vs full batching (paper Table 2)",
        {"concurrency": 5, "predictor_batch_size": 64, "predictor_latency_s": 0.01},
        [{"predictor_batch_size": size, "predictor_mode": mode} for mode in _MODES for size in (4, 16, 32, 64)],
    ),
}


def get_experiment(name: str) -> Experiment:
    """The named experiment; an unknown name is an error that lists the known ones."""
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise ValueError(f"unknown experiment {name!r}; known experiments: {', '.join(EXPERIMENTS)}") from None


@dataclass(slots=True)
class PointResult:
    """Every policy's summary on one parameter point, and the limit policy's wait per level (empty: not run)."""

    params: PointParams
    summaries: dict[str, PolicySummary]
    limits: dict[int, float] = field(default_factory=dict)

    def ratios_to_semantic(self, policy: str) -> dict[str, float]:
        """A policy's mean normalized wait divided by semantic's, per level ('1'..'5') and 'overall'."""
        mine, ours = self.summaries[policy], self.summaries["semantic"]
        ratios = {str(level): _ratio(mine.per_level[level], ours.per_level[level]) for level in mine.per_level}
        ratios["overall"] = _ratio(mine.overall, ours.overall)
        return ratios

    def ratios_to_limit(self, policy: str) -> dict[str, float]:
        """A policy's mean normalized wait divided by the level's limit, per level ('1'..'5'); NaN without one."""
        mine = self.summaries[policy]
        return {str(level): _ratio(mine.per_level[level], self.limits.get(level, math.nan)) for level in mine.per_level}

    def to_json(self) -> dict[str, Any]:
        policies: dict[str, Any] = {}
        for name, summary in self.summaries.items():
            policies[name] = summary.to_json()
            if name != "semantic" and "semantic" in self.summaries:
                policies[name]["ratio_to_semantic"] = self.ratios_to_semantic(name)
            if self.limits:
                policies[name]["ratio_to_limit"] = _nulls(self.ratios_to_limit(name))
        data: dict[str, Any] = {"params": self.params.to_json(), "policies": policies}
        if self.limits:
            data["limits"] = limits_to_json(self.limits)
        return data


def _ratio(value: float, reference: float) -> float:
    if math.isnan(value) or math.isnan(reference) or reference == 0:
        return math.nan
    return value / reference


def _nulls(values: dict[str, float]) -> dict[str, float | None]:
    return {key: (None if math.isnan(value) else value) for key, value in values.items()}


@dataclass(slots=True)
class ExperimentResult:
    """The headline point and, when swept, every point of the sweep."""

    experiment: str
    headline: PointResult
    points: list[PointResult] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        headline = self.headline.to_json()
        data: dict[str, Any] = {"experiment": self.experiment, "params": headline["params"]}
        data["policies"] = headline["policies"]
        if "limits" in headline:
            data["limits"] = headline["limits"]
        if self.points:
            data["points"] = [point.to_json() for point in self.points]
        return data


ProgressCallback = Callable[[str], None]


def run_point(
    params: PointParams,
    policies: Sequence[str],
    progress: ProgressCallback | None = None,
    limit_policy: str | None = LIMIT_POLICY,
) -> PointResult:
    """Run each policy on the same workloads and predictions (one per seed) and average over the seeds.

    With a `limit_policy` the point also gets that policy's limit per ESI level (`scheduler.sim.limits`),
    on the same workloads and predictions, averaged over the seeds likewise.
    """
    for name in (*policies, *([limit_policy] if limit_policy else [])):
        if name not in POLICIES:
            raise ValueError(f"unknown scheduling policy {name!r}; known policies: {', '.join(POLICIES)}")
    if params.repeats < 1:
        raise ValueError("repeats must be >= 1")
    runs: dict[str, list[PolicySummary]] = {name: [] for name in policies}
    limits: list[dict[int, float]] = []
    config, cost_model = _engine(params)
    for seed in range(params.seed, params.seed + params.repeats):
        requests, predictions = _seed_workload(params, seed)
        for name in policies:
            runs[name].append(simulate(name, requests, predictions, config, cost_model))
            if progress is not None:
                progress(name)
        if limit_policy is not None:
            full_run = runs[limit_policy][-1] if limit_policy in runs else None
            limits.append(
                level_limits(
                    requests, predictions, policy=limit_policy, config=config, cost_model=cost_model, full_run=full_run
                )
            )
            if progress is not None:
                progress("limit")
    summaries = {name: mean_summary(items) for name, items in runs.items()}
    return PointResult(params=params, summaries=summaries, limits=mean_limits(limits) if limits else {})


def _seed_workload(params: PointParams, seed: int) -> tuple[list[SimRequest], list[Prediction]]:
    workload = WorkloadSpec(
        gap_s=params.gap_s,
        max_concurrent=params.concurrency,
        bursts=params.bursts,
        max_output_tokens=params.max_output_tokens,
        seed=seed,
    )
    requests = generate_workload(workload)
    predictor = PredictorSpec(
        urgency_error_rate=params.urgency_error_rate,
        length_error_rate=params.length_error_rate,
        latency_s=params.predictor_latency_s,
        batch_size=params.predictor_batch_size,
        mode=PredictorMode(params.predictor_mode),
    )
    return requests, predict(requests, predictor, params.max_output_tokens, seed)


def _engine(params: PointParams) -> tuple[SchedulerConfig, CostModel]:
    config = SchedulerConfig(
        kv_capacity_tokens=params.kv_capacity(),
        max_batch_size=params.batch_size,
        block_size=params.block_size,
        mixed_steps=params.mixed_steps,
    )
    return config, get_profile(params.profile)


def experiment_points(name: str, overrides: dict[str, Any], sweep: bool) -> tuple[PointParams, list[PointParams]]:
    """The headline point (experiment defaults, then the caller's overrides) and the sweep's points."""
    experiment = get_experiment(name)
    headline = PointParams(**{**experiment.defaults, **overrides})
    points = [dataclasses.replace(headline, **values) for values in experiment.sweep] if sweep else []
    return headline, points


def run_experiment(
    name: str,
    overrides: dict[str, Any],
    *,
    sweep: bool = False,
    policies: Sequence[str] = ("semantic", *BASELINES),
    progress: ProgressCallback | None = None,
    limit_policy: str | None = LIMIT_POLICY,
) -> ExperimentResult:
    """Run the headline point, and the sweep when asked (a sweep point equal to the headline is reused)."""
    headline_params, sweep_params = experiment_points(name, overrides, sweep)
    headline = run_point(headline_params, policies, progress, limit_policy)
    points = [
        headline if params == headline_params else run_point(params, policies, progress, limit_policy)
        for params in sweep_params
    ]
    return ExperimentResult(experiment=name, headline=headline, points=points)
