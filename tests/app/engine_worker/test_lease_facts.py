"""The engine worker builds a prompt from the facts its lease carries (flags, card, language, estimate), reading only
the call's words and state from the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.db.migrate import upgrade
from app.db.models import Incident, utcnow
from app.db.session import session_scope
from app.engine_worker.incident_rows import load_incident
from scheduler.redis_heap import CallFacts


class RecordingPrompt:
    """Records what the prompt is built from."""

    def __init__(self) -> None:
        self.built: list[tuple[Any, ...]] = []

    def build(self, text: str, esi_level: int, flags: list[str], card: Any, language: str) -> list[int]:
        self.built.append((text, esi_level, flags, None if card is None else card.id, language))
        return [1, 2, 3]


def test_the_prompt_comes_from_the_lease_s_facts_not_the_rows(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'facts.db'}"
    upgrade(url)
    with session_scope(url) as session:
        session.add(Incident(id="x", source="cad", webhook_id="w", text="C: no respira", accepted_at=utcnow(),
                             esi_level=1, guidance_state="queued", language="en", card_id=None,
                             predicted_output_tokens=10))  # fmt: skip
    facts = CallFacts(("A-NOT-BREATHING",), "cpr-adult", "es", "es", 140)
    prompt = RecordingPrompt()
    loaded = load_incident(url, "x", 1, prompt, facts)  # type: ignore[arg-type]
    assert loaded is not None
    assert prompt.built == [("C: no respira", 1, ["A-NOT-BREATHING"], "cpr-adult", "es")]
    assert (loaded.predicted_tokens, loaded.language, loaded.card is not None and loaded.card.language) == (
        140,
        "es",
        "es",
    )
    with session_scope(url) as session:
        incident = session.get(Incident, "x")
        assert incident is not None and incident.guidance_state == "prefilling"
