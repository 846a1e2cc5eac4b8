"""`bench overload`: a sustained arrival rate several times what the engine can serve, semantic with shedding vs
without, side by side on the same simulated calls, plus the limit (the ESI 1-2 calls alone)."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scheduler.cost_model import get_profile
from scheduler.policy import ESI_LEVELS, PolicyOptions
from scheduler.shedding import OVERLOAD_CALM_S, SheddingOptions
from scheduler.sim.config import SchedulerConfig
from scheduler.sim.experiments import DEFAULT_KV_CAPACITY_TOKENS
from scheduler.sim.metrics import Outcome, percentile
from scheduler.sim.predictors import PredictorSpec, predict
from scheduler.sim.simulator import SimShedding, run_requests
from scheduler.sim.workload import SimRequest

RUNS = ("shedding", "shedding-without-overload-mode", "no-shedding", "shedding-strict-esi2", "limit")
"""The product's default: template guidance for ESI 4-5 that would miss their deadline, and ESI 2 strictly after
ESI 1 while a miss is projected (`PolicyOptions.overload_strict_max_level`); shedding alone, without the overload
mode; semantic with neither; shedding with ESI 2 always strict (`strict_max_level` 2); the ESI 1-2 calls alone
under semantic (their limit)."""
KTAS_LEVEL_MIX = (0.02, 0.17, 0.38, 0.36, 0.07)
"""The share of each level among the 1267 KTAS records in ../shared/data (experts' levels, rounded)."""
URGENT = (1, 2)


@dataclass(frozen=True, slots=True)
class OverloadSpec:
    """The engine, the arrival rate as a multiple of what it serves, and the clocks' scale."""

    load: float = 3.0
    """Arrival rate as a multiple of the engine's measured capacity (calls per second with a backlog)."""
    duration_s: float = 240.0
    """How long calls keep arriving (simulated seconds); the runs then serve what is left."""
    time_scale: float = 0.1
    """The product's deadlines, aging interval and deadline window times this, so that a run covers twice the
    longest deadline in a minute of CPU. The same as the product's own clocks on an engine 1/time_scale times
    slower than the profile (a CPU engine: about 25 s for a 256-token answer), with arrivals scaled alike."""
    profile: str = "a100-qwen1.5-4b"
    batch_size: int = 16
    prompt_tokens: tuple[int, int] = (250, 600)
    """The guidance prompt: about 250 tokens of instructions and the call's text."""
    answer_tokens: tuple[int, int] = (64, 256)
    level_mix: tuple[float, ...] = KTAS_LEVEL_MIX
    urgency_error_rate: float = 0.0
    length_error_rate: float = 0.2
    seed: int = 0
    repeats: int = 2
    sweep_interval_s: float = 2.0
    """How often the product's reconciler sweeps the heap for calls to shed (not scaled: it is a real interval)."""

    def __post_init__(self) -> None:
        if self.load <= 0 or self.duration_s <= 0 or self.time_scale <= 0 or self.sweep_interval_s <= 0:
            raise ValueError("load, duration_s, time_scale and sweep_interval_s must be > 0")
        if self.repeats < 1 or self.batch_size < 1:
            raise ValueError("repeats and batch_size must be >= 1")

    def options(self) -> PolicyOptions:
        """The product's policy options with every clock scaled."""
        base = PolicyOptions()
        aging = None if base.aging_interval_s is None else base.aging_interval_s * self.time_scale
        return dataclasses.replace(
            base,
            aging_interval_s=aging,
            deadline_window_s=base.deadline_window_s * self.time_scale,
            level_deadlines_s=self.deadlines_s(),  # type: ignore[arg-type]
        )

    def deadlines_s(self) -> tuple[float | None, ...]:
        return tuple(None if d is None else d * self.time_scale for d in PolicyOptions().level_deadlines_s)

    def config(self, strict_max_level: int = 1, overload_strict_max_level: int = 2) -> SchedulerConfig:
        return SchedulerConfig(
            kv_capacity_tokens=DEFAULT_KV_CAPACITY_TOKENS.get(self.profile, 37_728),
            max_batch_size=self.batch_size,
            mixed_steps=True,
            options=dataclasses.replace(
                self.options(), strict_max_level=strict_max_level, overload_strict_max_level=overload_strict_max_level
            ),
        )


def draw_calls(spec: OverloadSpec, seed: int, rate_per_s: float | None) -> list[SimRequest]:
    """Calls with the level mix and lengths; Poisson arrivals at `rate_per_s` for `duration_s` (None: 200 calls all
    at once, the backlog that measures capacity)."""
    rng = random.Random(seed)
    arrivals: list[float] = []
    if rate_per_s is None:
        arrivals = [0.0] * 200
    else:
        now = rng.expovariate(rate_per_s)
        while now < spec.duration_s:
            arrivals.append(now)
            now += rng.expovariate(rate_per_s)
    return [
        SimRequest(
            request_id=f"c{index:05d}",
            arrival_s=arrival,
            esi_level=rng.choices(ESI_LEVELS, weights=spec.level_mix)[0],
            prompt_tokens=rng.randint(*spec.prompt_tokens),
            output_tokens=rng.randint(*spec.answer_tokens),
        )
        for index, arrival in enumerate(arrivals)
    ]


def _predictor(spec: OverloadSpec) -> PredictorSpec:
    return PredictorSpec(urgency_error_rate=spec.urgency_error_rate, length_error_rate=spec.length_error_rate)


def measure_capacity(spec: OverloadSpec, seed: int) -> float:
    """Calls per second the engine serves with a backlog (semantic, no shedding)."""
    calls = draw_calls(spec, seed, None)
    predictions = predict(calls, _predictor(spec), spec.answer_tokens[1], seed)
    run = run_requests("semantic", calls, predictions, spec.config(), get_profile(spec.profile))
    makespan = max(outcome.finish_s for outcome in run.outcomes)
    return len(calls) / makespan


@dataclass(frozen=True, slots=True)
class LevelFigures:
    """One level's figures in one run: TTFT (first token, or the template) and the share within its deadline."""

    calls: int
    shed: int
    ttft_p50_s: float
    ttft_p99_s: float
    within_deadline: float | None
    """Share whose guidance (the engine's or the template) was finished within the level's deadline; None for a
    level without one (ESI 1)."""

    def to_json(self) -> dict[str, Any]:
        def clean(value: float | None) -> float | None:
            return None if value is None or math.isnan(value) else value

        return {
            "calls": self.calls,
            "shed": self.shed,
            "ttft_p50_s": clean(self.ttft_p50_s),
            "ttft_p99_s": clean(self.ttft_p99_s),
            "within_deadline": clean(self.within_deadline),
        }


def level_figures(outcomes: Sequence[Outcome], deadlines_s: Sequence[float | None]) -> dict[int, LevelFigures]:
    """Per true ESI level."""
    figures = {}
    for level in ESI_LEVELS:
        mine = [o for o in outcomes if o.esi_level == level]
        ttft = [o.first_token_s - o.arrival_s for o in mine]
        deadline = deadlines_s[level - 1]
        within = None
        if deadline is not None and mine:
            within = sum(1 for o in mine if o.finish_s - o.arrival_s <= deadline) / len(mine)
        figures[level] = LevelFigures(
            len(mine), sum(o.shed for o in mine), percentile(ttft, 0.5), percentile(ttft, 0.99), within
        )
    return figures


def _mean_figures(runs: Sequence[dict[int, LevelFigures]]) -> dict[int, LevelFigures]:
    def mean(values: list[float | None]) -> float | None:
        kept = [v for v in values if v is not None and not math.isnan(v)]
        return sum(kept) / len(kept) if kept else None

    def mean_or_nan(values: list[float]) -> float:
        found = mean(list(values))
        return math.nan if found is None else found

    merged = {}
    for level in ESI_LEVELS:
        items = [run[level] for run in runs]
        merged[level] = LevelFigures(
            sum(i.calls for i in items),
            sum(i.shed for i in items),
            mean_or_nan([i.ttft_p50_s for i in items]),
            mean_or_nan([i.ttft_p99_s for i in items]),
            mean([i.within_deadline for i in items]),
        )
    return merged


@dataclass(frozen=True, slots=True)
class OverloadResult:
    """Each run's per-level figures (mean over seeds), the measured capacity and the arrival rate."""

    spec: OverloadSpec
    capacity_per_s: float
    rate_per_s: float
    runs: dict[str, dict[int, LevelFigures]]

    def urgent_ttft_p99_s(self, run: str) -> float:
        """The worst of ESI 1-2's TTFT p99 in a run."""
        return max(self.runs[run][level].ttft_p99_s for level in URGENT)

    def to_json(self) -> dict[str, Any]:
        shed, alone, kept, strict, limit = (self.urgent_ttft_p99_s(run) for run in RUNS)
        return {
            "spec": dataclasses.asdict(self.spec),
            "capacity_calls_per_s": self.capacity_per_s,
            "arrival_calls_per_s": self.rate_per_s,
            "runs": {run: {str(k): v.to_json() for k, v in levels.items()} for run, levels in self.runs.items()},
            "urgent_ttft_p99_s": {run: self.urgent_ttft_p99_s(run) for run in RUNS},
            "urgent_ttft_p99_shedding_vs_no_shedding": shed / kept if kept > 0 else None,
            "urgent_ttft_p99_shedding_vs_limit": shed / limit if limit > 0 else None,
            "urgent_ttft_p99_without_overload_mode_vs_limit": alone / limit if limit > 0 else None,
            "urgent_ttft_p99_strict_esi2_vs_limit": strict / limit if limit > 0 else None,
        }


def run_overload(spec: OverloadSpec) -> OverloadResult:
    """Measure capacity, then run every seed's calls in each of `RUNS`."""
    capacity = sum(measure_capacity(spec, seed) for seed in _seeds(spec)) / spec.repeats
    rate = spec.load * capacity
    config, cost_model = spec.config(), get_profile(spec.profile)
    no_mode, strict = spec.config(overload_strict_max_level=1), spec.config(strict_max_level=2)
    calm_s = OVERLOAD_CALM_S * spec.time_scale
    shedding = SimShedding(SheddingOptions(), spec.deadlines_s(), spec.sweep_interval_s, calm_s=calm_s)
    per_run: dict[str, list[dict[int, LevelFigures]]] = {run: [] for run in RUNS}
    for seed in _seeds(spec):
        calls = draw_calls(spec, seed, rate)
        predictions = predict(calls, _predictor(spec), spec.answer_tokens[1], seed)
        urgent = [i for i, call in enumerate(calls) if call.esi_level in URGENT]
        workloads = {
            "shedding": (calls, predictions, shedding, config),
            "shedding-without-overload-mode": (calls, predictions, shedding, no_mode),
            "no-shedding": (calls, predictions, None, config),
            "shedding-strict-esi2": (calls, predictions, shedding, strict),
            "limit": ([calls[i] for i in urgent], [predictions[i] for i in urgent], None, config),
        }
        for run, (run_calls, run_predictions, run_shedding, run_config) in workloads.items():
            result = run_requests("semantic", run_calls, run_predictions, run_config, cost_model, shedding=run_shedding)
            per_run[run].append(level_figures(result.outcomes, spec.deadlines_s()))
    return OverloadResult(spec, capacity, rate, {run: _mean_figures(items) for run, items in per_run.items()})


def _seeds(spec: OverloadSpec) -> range:
    return range(spec.seed, spec.seed + spec.repeats)
