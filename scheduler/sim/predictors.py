"""Simulated urgency and length predictors: the paper's error injection, latency and batching modes."""

from __future__ import annotations

import enum
import random
from collections.abc import Sequence
from dataclasses import dataclass

from scheduler.sim.workload import SimRequest


class PredictorMode(enum.Enum):
    """Immediate: predict whatever has arrived as soon as the predictor is free. Full: wait for a full batch."""

    IMMEDIATE = "immediate"
    FULL = "full"


@dataclass(frozen=True, slots=True)
class PredictorSpec:
    """Predictor quality and speed; error rate r = that share mispredicted, by an average distance r."""

    urgency_error_rate: float = 0.0
    length_error_rate: float = 0.0
    length_buckets: int = 10
    latency_s: float = 0.0
    """Time for one predictor batch, whatever its size (the model runs a batch at once)."""
    batch_size: int = 64
    mode: PredictorMode = PredictorMode.IMMEDIATE

    def __post_init__(self) -> None:
        for name in ("urgency_error_rate", "length_error_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be within 0..1")
        if self.length_buckets < 1 or self.batch_size < 1:
            raise ValueError("length_buckets and batch_size must be >= 1")
        if self.latency_s < 0:
            raise ValueError("latency_s must be >= 0")


@dataclass(frozen=True, slots=True)
class Prediction:
    """What the scheduler is told about a request, and when it is told."""

    esi_level: int
    output_tokens: int
    ready_s: float


def _stochastic_round(value: float, rng: random.Random) -> int:
    whole = int(value)
    return whole + (1 if rng.random() < value - whole else 0)


def predict_urgency(requests: Sequence[SimRequest], error_rate: float, rng: random.Random) -> list[int]:
    """True levels, with round(N*r) of them moved by a distance averaging 5*r levels (at least one).

    The direction is random; a move that would leave 1..5 goes the other way, and a move too large for
    either way lands on the level farthest from the truth, so every chosen request really is mispredicted.
    """
    levels = [request.esi_level for request in requests]
    wrong = rng.sample(range(len(requests)), round(len(requests) * error_rate))
    for index in wrong:
        distance = max(1, _stochastic_round(5 * error_rate, rng))
        sign = rng.choice((-1, 1))
        level = levels[index] + sign * distance
        if not 1 <= level <= 5:
            level = levels[index] - sign * distance
        if not 1 <= level <= 5:
            level = 1 if levels[index] >= 3 else 5
        levels[index] = level
    return levels


def predict_lengths(
    requests: Sequence[SimRequest], error_rate: float, max_output_tokens: int, buckets: int, rng: random.Random
) -> list[int]:
    """Bucketed length predictions (bucket midpoints); round(N*r) requests shifted by r*max tokens first."""
    width = max_output_tokens / buckets
    predictions = []
    wrong = set(rng.sample(range(len(requests)), round(len(requests) * error_rate)))
    for index, request in enumerate(requests):
        length = request.output_tokens
        if index in wrong:
            shift = max(1, round(error_rate * max_output_tokens)) * rng.choice((-1, 1))
            length = min(max_output_tokens, max(1, length + shift))
        bucket = min(buckets - 1, int((length - 1) // width))
        predictions.append(max(1, round((bucket + 0.5) * width)))
    return predictions


def ready_times(arrivals: Sequence[float], spec: PredictorSpec) -> list[float]:
    """When each request's prediction is done; arrivals must be sorted. One predictor, batches in order."""
    ready = [0.0] * len(arrivals)
    free_at = 0.0
    start = 0
    total = len(arrivals)
    while start < total:
        if spec.mode is PredictorMode.IMMEDIATE:
            begin = max(free_at, arrivals[start])
            end = start
            while end < total and end - start < spec.batch_size and arrivals[end] <= begin:
                end += 1
        else:
            end = min(total, start + spec.batch_size)
            # A full batch waits for its last member; the final partial batch is flushed at the last arrival.
            begin = max(free_at, arrivals[end - 1])
        done = begin + spec.latency_s
        for index in range(start, end):
            ready[index] = done
        free_at = done
        start = end
    return ready


def predict(requests: Sequence[SimRequest], spec: PredictorSpec, max_output_tokens: int, seed: int) -> list[Prediction]:
    """Predictions for a workload, reproducible from the seed."""
    rng = random.Random(seed * 7919 + 17)
    levels = predict_urgency(requests, spec.urgency_error_rate, rng)
    lengths = predict_lengths(requests, spec.length_error_rate, max_output_tokens, spec.length_buckets, rng)
    times = ready_times([request.arrival_s for request in requests], spec)
    return [
        Prediction(esi_level=level, output_tokens=length, ready_s=ready)
        for level, length, ready in zip(levels, lengths, times, strict=True)
    ]
