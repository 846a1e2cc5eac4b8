"""Context readers side by side: each reader's figures are those of the Triager reading with it."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from triage_models.callsets import call_set_report, outcome, read_call_set
from triage_models.context import CallContext, FindingContext
from triage_models.context_compare import compare_readers
from triage_models.knowledge_base import load_knowledge
from triage_models.lexicon import Token
from triage_models.metrics import triage_metrics
from triage_models.pipeline import TriageModel, Triager
from triage_models.store import LabelledData

CALLS = [
    ("T-1", "plain", "en", "he is not breathing and has no pulse", 1, 1, 1),
    ("T-2", "minor_scary", "en", "what do I do if someone is choking, for my first aid class", 5, 4, 5),
]


class _Denied:
    def of(self, first: int, last: int, own_negations: frozenset[int] = frozenset()) -> FindingContext:
        return FindingContext(negated=True)


class _DeniesEverything:
    """A reader that takes every finding as denied: no red flag ever fires."""

    name = "denies-everything"

    def read(self, text: str, tokens: Sequence[Token], languages: Sequence[str]) -> CallContext:
        return _Denied()


def _call_set(tmp_path: Path) -> Path:
    path = tmp_path / "calls_t.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "kind", "language", "text", "esi_level", "min_level", "max_level", "expect_review"])
        writer.writerows([*row, ""] for row in CALLS)
    return path


def test_each_reader_is_measured_with_its_own_reading(small_model: TriageModel, tmp_path: Path) -> None:
    path = _call_set(tmp_path)
    vignettes = LabelledData(
        ["chest pain radiating to the left arm, sweating", "needs a prescription refill"], [2, 5], None
    )
    denying = _DeniesEverything()
    ours = load_knowledge().context
    figures = compare_readers(small_model, [ours, denying], [path], vignettes)

    assert [figure.reader for figure in figures] == ["context", "denies-everything"]
    for figure, reader in zip(figures, (ours, denying), strict=True):
        triager = Triager(small_model, reader=reader)
        calls = read_call_set(path)
        assert figure.call_sets == {
            "calls_t.csv": call_set_report([outcome(c, triager.classify(c.text)) for c in calls])
        }
        predicted = [triager.classify(text).esi_level for text in vignettes.texts]
        expected = triage_metrics(vignettes.labels, predicted).to_json()
        assert {k: v for k, v in (figure.vignettes or {}).items() if not k.endswith("_ms")} == {
            k: v for k, v in expected.items() if not k.endswith("_ms")
        }
        latency = figure.to_json()["latency_ms"]
        assert latency["n"] == 4 and 0 < latency["p50"] <= latency["p99"]
    # Read by our reader, the cardiac arrest's own words set ESI 1; denied, they set nothing.
    evidence = [Triager(small_model, reader=r).classify(CALLS[0][3]).evidence for r in (ours, denying)]
    assert [sorted(hit.rule_id for hit in hits) for hits in evidence] == [["A-NO-PULSE", "A-NOT-BREATHING"], []]


def test_without_vignettes_only_the_calls_are_timed(small_model: TriageModel, tmp_path: Path) -> None:
    (figure,) = compare_readers(small_model, [load_knowledge().context], [_call_set(tmp_path)], None)
    assert figure.vignettes is None
    assert figure.to_json()["latency_ms"]["n"] == len(CALLS)
