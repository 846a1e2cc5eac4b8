"""`bench overload` on a short run: what each run sheds, and what shedding does to the levels' deadlines."""

from __future__ import annotations

import itertools
import json

from scheduler.bench.overload_bench import RUNS, OverloadSpec, draw_calls, run_overload

SHORT = OverloadSpec(duration_s=40.0, repeats=1, batch_size=8, seed=3)


def test_arrivals_are_poisson_at_the_asked_rate_and_reproducible() -> None:
    calls = draw_calls(SHORT, 3, 10.0)
    assert calls == draw_calls(SHORT, 3, 10.0)
    assert 300 <= len(calls) <= 500  # 400 expected in 40 s at 10 calls/s
    assert all(a.arrival_s <= b.arrival_s < SHORT.duration_s for a, b in itertools.pairwise(calls))


def test_shedding_sheds_only_esi_4_and_5_and_puts_them_within_their_deadline() -> None:
    result = run_overload(SHORT)
    assert list(result.runs) == list(RUNS)
    assert result.rate_per_s == SHORT.load * result.capacity_per_s
    shed, kept, limit = result.runs["shedding"], result.runs["no-shedding"], result.runs["limit"]
    assert [shed[level].shed for level in (1, 2, 3)] == [0, 0, 0]
    assert shed[4].shed > 0 and sum(kept[level].shed for level in kept) == 0
    assert all(shed[level].calls == kept[level].calls for level in shed)
    assert [limit[level].calls for level in (3, 4, 5)] == [0, 0, 0] and limit[2].calls == kept[2].calls
    assert shed[4].within_deadline == 1.0 and kept[4].within_deadline is not None and kept[4].within_deadline < 0.9
    assert shed[5].within_deadline == 1.0  # a short run: without shedding ESI 5 may make its 120 s too
    data = result.to_json()
    json.dumps(data, allow_nan=False)  # plain JSON, no NaN
    assert data["urgent_ttft_p99_s"]["limit"] == max(limit[1].ttft_p99_s, limit[2].ttft_p99_s)


def test_the_overload_mode_brings_esi_2_near_its_limit_where_shedding_alone_does_not() -> None:
    result = run_overload(SHORT)
    moded, alone, limit = (result.runs[run][2] for run in ("shedding", "shedding-without-overload-mode", "limit"))
    assert moded.ttft_p99_s <= 2 * limit.ttft_p99_s < alone.ttft_p99_s
    assert moded.within_deadline is not None and alone.within_deadline is not None
    assert moded.within_deadline > alone.within_deadline
