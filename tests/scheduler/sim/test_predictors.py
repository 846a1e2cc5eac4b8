"""Tests for the simulated predictors: error injection, bucketing, latency and batching modes."""

from __future__ import annotations

import random

import pytest

from scheduler.sim.predictors import PredictorMode, PredictorSpec, predict_lengths, predict_urgency, ready_times
from scheduler.sim.workload import SimRequest


def requests_of(levels: list[int], outputs: list[int] | None = None) -> list[SimRequest]:
    outputs = outputs or [100] * len(levels)
    return [
        SimRequest(f"r{index}", 0.0, level, 10, output)
        for index, (level, output) in enumerate(zip(levels, outputs, strict=True))
    ]


@pytest.mark.parametrize("rate", [0.1, 0.3, 0.5, 0.9])
def test_urgency_error_mispredicts_exactly_that_share(rate: float) -> None:
    requests = requests_of([1, 2, 3, 4, 5] * 40)
    predicted = predict_urgency(requests, rate, random.Random(0))
    wrong = [p != r.esi_level for p, r in zip(predicted, requests, strict=True)]
    assert sum(wrong) == round(200 * rate)
    assert all(1 <= level <= 5 for level in predicted)


def test_urgency_error_distance_grows_with_the_rate() -> None:
    requests = requests_of([1, 2, 3, 4, 5] * 40)

    def mean_distance(rate: float) -> float:
        predicted = predict_urgency(requests, rate, random.Random(1))
        distances = [abs(p - r.esi_level) for p, r in zip(predicted, requests, strict=True) if p != r.esi_level]
        return sum(distances) / len(distances)

    assert mean_distance(0.1) == 1.0
    assert mean_distance(0.9) > mean_distance(0.5) > 1.0


def test_error_free_lengths_are_bucket_midpoints() -> None:
    requests = requests_of([3] * 5, outputs=[1, 50, 51, 499, 250])
    assert predict_lengths(requests, 0.0, 500, 10, random.Random(0)) == [25, 25, 75, 475, 225]


def test_length_error_shifts_that_share_of_requests() -> None:
    requests = requests_of([3] * 100, outputs=[250] * 100)
    predicted = predict_lengths(requests, 0.4, 500, 10, random.Random(0))
    assert sum(1 for p in predicted if p != 225) == 40
    assert set(predicted) == {25, 225, 425}


def test_immediate_mode_predicts_whatever_arrived_when_the_predictor_frees_up() -> None:
    spec = PredictorSpec(latency_s=1.0, batch_size=2, mode=PredictorMode.IMMEDIATE)
    assert ready_times([0.0, 0.0, 0.0, 0.5, 3.0], spec) == [1.0, 1.0, 2.0, 2.0, 4.0]


def test_full_batching_waits_for_a_full_batch_and_flushes_the_last() -> None:
    spec = PredictorSpec(latency_s=1.0, batch_size=2, mode=PredictorMode.FULL)
    assert ready_times([0.0, 0.5, 0.6, 3.0, 3.5], spec) == [1.5, 1.5, 4.0, 4.0, 5.0]


def test_invalid_rates_are_refused() -> None:
    with pytest.raises(ValueError, match="urgency_error_rate"):
        PredictorSpec(urgency_error_rate=1.5)
