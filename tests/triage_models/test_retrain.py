"""Learning from overrides without a database: time hold-out, weighting, comparison, the promotion gate, install."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from triage_models import retrain as retrain_module
from triage_models.pipeline import GENERATED_SOURCE
from triage_models.resources import RESOURCES_VERSION
from triage_models.retrain import (
    OVERRIDE_WEIGHT,
    Figures,
    OverrideLabel,
    figures,
    fixed_validation_data,
    install_model,
    overrides_since,
    previous_dir,
    promotion_gate,
    retrain,
    split_by_time,
    with_overrides,
)
from triage_models.rules import RULES_VERSION
from triage_models.store import LabelledData, stale_versions

START = dt.datetime(2026, 11, 1, 8, 0, tzinfo=dt.UTC)


def _overrides(count: int, esi_level: int = 2) -> list[OverrideLabel]:
    return [OverrideLabel(f"message {i}", esi_level, START + dt.timedelta(hours=i)) for i in range(count)]


def test_the_newest_fifth_is_held_out_and_none_below_five_overrides() -> None:
    assert split_by_time(_overrides(4)) == (_overrides(4), [])
    kept, held_out = split_by_time(list(reversed(_overrides(5))))
    assert [o.text for o in held_out] == ["message 4"] and [o.text for o in kept] == [f"message {i}" for i in range(4)]
    kept, held_out = split_by_time(_overrides(12))
    assert [o.text for o in held_out] == ["message 10", "message 11"] and len(kept) == 10
    assert len(split_by_time(_overrides(20))[1]) == 4


def test_since_keeps_overrides_at_or_after_the_date_and_reads_a_naive_date_as_utc() -> None:
    overrides = _overrides(6)
    assert overrides_since(overrides, None) == overrides
    kept = overrides_since(overrides, dt.datetime(2026, 11, 1, 10, 0))
    assert [o.text for o in kept] == ["message 2", "message 3", "message 4", "message 5"]
    later = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))  # 10:00 UTC
    assert overrides_since(overrides, later) == kept


def test_each_override_label_is_repeated_on_top_of_the_base_data() -> None:
    base = LabelledData(["a", "b"], [3, 4], [100, 200], ["ktas", "generated"])
    data = with_overrides(base, _overrides(2, esi_level=1))
    assert data.sources == ["ktas", "generated", *[GENERATED_SOURCE] * (2 * OVERRIDE_WEIGHT)]  # never tuned on
    assert data.texts == ["a", "b", *["message 0"] * OVERRIDE_WEIGHT, *["message 1"] * OVERRIDE_WEIGHT]
    assert data.labels == [3, 4, *[1] * (2 * OVERRIDE_WEIGHT)]
    assert data.answer_tokens is None and OVERRIDE_WEIGHT == 5


def test_figures_give_no_recall_without_esi_1_2_and_count_over_triage() -> None:
    assert figures([3, 4, 5, 4], [3, 3, 5, 5]) == Figures(4, 0.5, 1.0, None, 0.25)
    assert figures([1, 2, 4], [2, 3, 4]).esi12_recall == 0.5


def test_the_fixed_validation_set_is_fixed_and_differs_from_training_seed() -> None:
    first, second = fixed_validation_data(50), fixed_validation_data(50)
    assert first == second and set(first.labels) <= {1, 2, 3, 4, 5}
    assert first.texts != fixed_validation_data(50, seed=0).texts


Memory = dict[str, int]


def _fit(data: LabelledData) -> Memory:
    """A fake model that remembers its training labels (ESI 4 for anything it never saw)."""
    return dict(zip(data.texts, data.labels, strict=True))


def _predict(model: Memory, texts: Sequence[str]) -> list[int]:
    return [model.get(text, 4) for text in texts]


def test_retrain_reports_the_held_out_fit_and_writes_the_fit_on_all_overrides() -> None:
    base = LabelledData(["calm", "urgent"], [5, 1], None)
    validation = LabelledData(["calm", "urgent", "message 0"], [5, 1, 2], None)
    serving = _fit(base)
    fits: list[LabelledData] = []

    def fit(data: LabelledData) -> Memory:
        fits.append(data)
        return _fit(data)

    result = retrain(base, list(reversed(_overrides(10))), serving, validation, fit, _predict)
    assert len(fits) == 2 and len(fits[0].texts) == 2 + 10 * OVERRIDE_WEIGHT  # the candidate: every override
    assert "message 8" not in fits[1].texts and "message 9" not in fits[1].texts  # the held-out fit
    assert result.candidate["message 9"] == 2
    assert result.held_out is not None
    assert result.held_out.candidate.exact == 0.0 and result.held_out.serving.exact == 0.0  # never trained on
    assert result.validation.candidate.exact == 1.0 and result.validation.serving.esi12_recall == 0.5
    report = result.report()
    json.dumps(report)
    assert report["overrides"] == {
        "used": 10,
        "weight": 5,
        "held_out": 2,
        "held_out_from": (START + dt.timedelta(hours=8)).isoformat(),
    }
    assert "time-held-out fit" in report["held_out_overrides"]["candidate_fit"]
    assert "refit on all 10 overrides" in report["validation"]["candidate_fit"]


def test_retrain_with_few_overrides_fits_once_and_holds_nothing_out() -> None:
    base = LabelledData(["calm"], [5], None)
    fits: list[LabelledData] = []

    def fit(data: LabelledData) -> Memory:
        fits.append(data)
        return _fit(data)

    result = retrain(base, _overrides(3), _fit(base), base, fit, _predict)
    assert len(fits) == 1 and result.held_out is None and result.report()["held_out_overrides"] is None
    with pytest.raises(ValueError, match="no overrides"):
        retrain(base, [], _fit(base), base, fit, _predict)


def test_the_gate_refuses_a_lower_esi_1_2_recall_and_names_both() -> None:
    serving = Figures(100, 0.6, 0.9, 0.9, 0.2)
    refused = promotion_gate(serving, Figures(100, 0.7, 0.95, 0.85, 0.1))
    assert not refused.promote and "0.850" in refused.reason and "0.900" in refused.reason
    assert promotion_gate(serving, Figures(100, 0.5, 0.8, 0.9, 0.3)).promote  # equal recall: not worse
    assert promotion_gate(serving, Figures(100, 0.5, 0.8, 0.95, 0.3)).promote
    undefined = promotion_gate(Figures(3, 1.0, 1.0, None, 0.0), Figures(3, 1.0, 1.0, None, 0.0))
    assert not undefined.promote and "no ESI 1-2" in undefined.reason


def test_a_model_built_for_other_rules_is_stale() -> None:
    current = {"rules_version": RULES_VERSION, "resources_version": RESOURCES_VERSION}
    assert stale_versions(current) == []
    assert stale_versions({**current, "rules_version": "rules-2020.1.1"}) == [
        f"rules_version rules-2020.1.1 (now {RULES_VERSION})"
    ]


def _model_dir(path: Path, version: str) -> Path:
    path.mkdir(parents=True)
    (path / "meta.json").write_text(json.dumps({"model_version": version}))
    (path / "classifier.bin").write_text(version)
    os.utime(path / "meta.json", (1_000_000, 1_000_000))
    return path


def _version(path: Path) -> str:
    return str(json.loads((path / "meta.json").read_text())["model_version"])


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
def test_install_swaps_in_the_candidate_and_keeps_the_previous(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exchange: bool
) -> None:
    if not exchange:
        monkeypatch.setattr(retrain_module, "_exchange", lambda first, second: False)
    serving = tmp_path / "models" / "serving"
    install_model(_model_dir(tmp_path / "first", "v1"), serving)  # nothing served yet
    assert _version(serving) == "v1" and not previous_dir(serving).exists()
    assert (serving / "meta.json").stat().st_mtime > 1_000_000  # workers see a new mtime
    install_model(_model_dir(tmp_path / "second", "v2"), serving)
    install_model(_model_dir(tmp_path / "third", "v3"), serving)
    assert _version(serving) == "v3" and (serving / "classifier.bin").read_text() == "v3"
    assert _version(previous_dir(serving)) == "v2"
    assert sorted(p.name for p in serving.parent.iterdir()) == ["serving", "serving.previous"]
    assert _version(tmp_path / "third") == "v3"  # the candidate stays where it was
