"""Classify incidents through `classify_incident` with a chosen triage result (no trained model, no Redis)."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from sqlalchemy import create_engine, make_url, text

from app.db.migrate import upgrade
from app.incidents import pipeline
from app.settings import Settings
from triage_models.pipeline import TriageModel, Triager
from triage_models.result import DecisionPoint, Evidence, Resource, TriageResult

REVIEW_TEXT = "Fell off a ladder, wrist swollen, chest pain now; will need an x-ray and blood work"
REVIEW_REASON = "ESI 2 vs 3 too close to call (0.41 vs 0.38)"


def review_result(model_version: str = "stub-1") -> TriageResult:
    """ESI 2 taken over 3, too close to call: two resources, one red flag (offsets into REVIEW_TEXT)."""
    xray = REVIEW_TEXT.index("x-ray")
    blood = REVIEW_TEXT.index("blood work")
    under_review = TriageResult(
        esi_level=2,
        probabilities={1: 0.05, 2: 0.41, 3: 0.38, 4: 0.1, 5: 0.06},
        classifier_level=2,
        decision_point=DecisionPoint.B,
        predicted_output_tokens=120,
        model_version=model_version,
        backend="stub",
        resources=(
            Resource("imaging", xray, xray + len("x-ray"), "x-ray"),
            Resource("labs", blood, blood + len("blood work"), "blood work"),
        ),
        resource_count=2,
        needs_review=True,
        review_reason=REVIEW_REASON,
    )
    return red_flag_result(
        under_review,
        REVIEW_TEXT,
        "chest pain",
        rule_id="chest_pain",
        decision_point=DecisionPoint.B,
        description="chest pain: consider ESI 2",
        floor=False,
    )


def plain_result(esi_level: int, model_version: str = "stub-1") -> TriageResult:
    """A confident result at `esi_level` (no review, no resources, no evidence)."""
    probabilities = {level: (0.9 if level == esi_level else 0.025) for level in range(1, 6)}
    return TriageResult(
        esi_level=esi_level,
        probabilities=probabilities,
        classifier_level=esi_level,
        decision_point=DecisionPoint.C,
        predicted_output_tokens=80,
        model_version=model_version,
        backend="stub",
    )


def red_flag_result(
    result: TriageResult,
    text: str,
    phrase: str,
    *,
    rule_id: str,
    decision_point: DecisionPoint,
    description: str,
    floor: bool = True,
) -> TriageResult:
    """`result` with one red flag as its evidence: `rule_id` at its ESI level, over the first `phrase` in `text`."""
    start = text.index(phrase)
    evidence = Evidence(
        rule_id=rule_id,
        esi_level=result.esi_level,
        decision_point=decision_point,
        description=description,
        start=start,
        end=start + len(phrase),
        text=phrase,
        floor=floor,
    )
    return dataclasses.replace(result, evidence=(evidence,))


class FakeHeap:
    """What `classify_incident` asks of the Redis heap, remembered."""

    def __init__(self) -> None:
        self.pushed: list[tuple[str, int]] = []
        self.facts: list[object] = []
        """The call facts each push carried (`scheduler.redis_heap.CallFacts`)."""
        self.client = None
        """No Redis: the pipeline scores calls with the configured cost model (no engine has published one)."""

    def push(
        self,
        incident_id: str,
        esi_level: int,
        remaining_s: float,
        arrival_us: int,
        source: str = "",
        facts: object = None,
    ) -> bool:
        self.pushed.append((incident_id, esi_level))
        self.facts.append(facts)
        return True

    def rekey(self, incident_id: str, esi_level: int) -> str:
        return "queued"


@dataclasses.dataclass
class _StubModel:
    version: str


class StubTriager:
    def __init__(self, result: TriageResult) -> None:
        self.result = result
        self.model = _StubModel(result.model_version)

    def classify(self, message: str | bytes) -> TriageResult:
        return self.result


def classify_with(
    monkeypatch: pytest.MonkeyPatch, url: str, incident_id: str, result: TriageResult | None = None
) -> str:
    """Run the real `classify_incident` on the database at `url` with the triager answering `result` (None: the
    knowledge's own reading, `knowledge_triager`)."""
    triager = StubTriager(result) if result is not None else knowledge_triager()
    monkeypatch.setattr(pipeline, "triager_for", lambda *args, **kwargs: triager)
    heap: Any = FakeHeap()
    return pipeline.classify_incident(Settings(database_url=url), heap, incident_id)


class _NoOpinion:
    """A classifier backend that reads every call as calm (ESI 4 most likely): the red-flag rules set the level."""

    name = "no-opinion"

    def predict_one(self, text: str, structured: Mapping[str, float]) -> NDArray[np.float64]:
        return np.array([0.02, 0.03, 0.15, 0.6, 0.2])


class _FixedLength:
    def predict(self, text: str, esi_level: int) -> int:
        return 100


KNOWLEDGE_MODEL_VERSION = "no-opinion-test"


def knowledge_triager() -> Triager:
    """The real triager (the protocols' reading, the red-flag rules, the ESI decision) over a classifier with no
    opinion: what the knowledge reads in a call, protocol and key questions included, with no model trained."""
    model = TriageModel(backend=_NoOpinion(), length=_FixedLength(), meta={"model_version": KNOWLEDGE_MODEL_VERSION})  # type: ignore[arg-type]
    return Triager(model)


def fresh_database(request: pytest.FixtureRequest, tmp_path: Path, backend: str, revision: str = "head") -> str:
    """An empty database migrated to `revision`: a SQLite file, or a new database on the session's PostgreSQL
    server."""
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'triage.db'}"
    else:
        server = make_url(request.getfixturevalue("postgres_url"))
        name = f"t_{uuid.uuid4().hex[:12]}"
        engine = create_engine(server, isolation_level="AUTOCOMMIT")
        with engine.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        engine.dispose()
        url = server.set(database=name).render_as_string(hide_password=False)
    upgrade(url, revision)
    return url
