"""The guidance bench's figures from followed calls: percentiles, counts and the checker's pass rate (the runs
themselves start `serve` and are exercised by `triage-dispatch bench guidance`)."""

from __future__ import annotations

from app.bench.guidance import GuidanceBenchResult, _Call, _figures, _server_seconds, percentile


def test_figures_count_only_what_was_seen_and_take_nearest_rank_percentiles() -> None:
    calls = [
        _Call(0.0, "a", card_s=0.4, first_token_s=2.0, check_passed=False, post_s=0.05, classified_s=0.3),
        _Call(0.0, "b", card_s=0.2, first_token_s=1.0, check_passed=True, post_s=0.1, classified_s=0.1),
        _Call(0.0, "c", card_s=0.3),
        _Call(0.0, "d"),
    ]
    figures = _figures("engine healthy", calls, background=7)
    assert (figures.urgent_calls, figures.background_calls, figures.carded, figures.first_token) == (4, 7, 3, 2)
    assert (figures.card_p50_s, figures.card_p99_s) == (0.3, 0.4)
    assert (figures.first_token_p50_s, figures.first_token_p99_s) == (1.0, 2.0)  # round(0.5) of 1 is 0: the lower
    assert (figures.checked, figures.check_passed) == (2, 1)
    assert (figures.post_p99_s, figures.classified_p99_s) == (0.1, 0.3)
    down = _figures("engine down", [_Call(0.0, "e", card_s=0.5)], background=0)
    assert (down.first_token_p50_s, down.checked) == (None, 0)
    result = GuidanceBenchResult("builtin:tiny-llama", 3.0, 1.5, (figures, down))
    assert result.check_pass_rate == 0.5
    assert result.to_json()["scenarios"][1]["card_p50_s"] == 0.5
    assert percentile([], 0.5) is None


def test_the_server_time_to_classification_is_read_from_the_incidents_history() -> None:
    received = {"action": "received", "at": "2026-11-24T08:00:00.250000+00:00"}
    classified = {"action": "classified", "at": "2026-11-24T08:00:01+00:00"}
    again = {"action": "classified", "at": "2026-11-24T08:09:00+00:00"}  # a later model's: not the card's time
    assert _server_seconds({"events": [received, classified, again]}) == 0.75
    assert _server_seconds({"events": [received]}) is None
