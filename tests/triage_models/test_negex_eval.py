"""The context reader on the NegEx annotated test set (read from ../shared/data/negex, never copied here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from triage_models.knowledge_base import load_knowledge
from triage_models.negex_eval import NegexDataError, negex_figures, read_negex_set
from triage_models.store import shared_data_dir

DATA = shared_data_dir()
NEGEX = DATA / "negex" / "negex_annotations.tsv" if DATA is not None else None


@pytest.mark.skipif(NEGEX is None or not NEGEX.is_file(), reason="the shared NegEx set is not beside the checkout")
def test_the_reader_meets_the_negation_and_history_targets_on_the_negex_set() -> None:
    assert NEGEX is not None
    figures = negex_figures(load_knowledge().context, read_negex_set(NEGEX))
    assert figures["n"] == 2365
    assert figures["negation"]["ours"]["f1"] >= 0.95
    assert figures["historical"]["ours"]["f1"] >= 0.66
    assert (figures["negation"]["negex"]["f1"], figures["negation"]["context"]["f1"]) == (0.956, 0.981)


def test_a_file_that_is_not_the_negex_set_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.tsv"
    path.write_text("id\tsentence\n1\tno fever\n", encoding="utf-8")
    with pytest.raises(NegexDataError, match="column 'condition' missing"):
        read_negex_set(path)
