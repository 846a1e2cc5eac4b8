"""The engine worker grounds the guidance prompt in the incident's protocol card and checks the answer against it:
a refused answer is stored with its reasons, audited and marked on screen; a test model's guidance says it is one.
The engine is scripted (it answers a fixed text) and the tokenizer is one token per character (lossless, unlike the
tiny Llama's); the rest is the product's."""

from __future__ import annotations

import asyncio
import html
import itertools
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.api.main import create_app
from app.console.render import Viewer, guidance_box_label, render_incident
from app.console.service import incident_detail
from app.db.migrate import upgrade
from app.db.models import Guidance, IncidentEvent
from app.db.session import session_scope
from app.engine_worker.loop import EngineWorker, _Serving
from app.guidance.prompt import GROUNDED_PROMPT_VERSION
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.redis.queueing import settings_heap
from app.settings import Settings
from scheduler.engines.base import Engine, EngineHealth, EngineRequest, EngineStats, TokenChunk
from tests.app.api.test_card_actions_api import ARREST_TEXT, arrest_result
from tests.app.triage_stub import classify_with

_prefixes = itertools.count()
CONTRADICTING = (
    "SUMMARY: Adult collapsed, not breathing.\nKEY FACTS: unresponsive.\nSUGGESTED RESOURCES: ALS.\n"
    "PRE-ARRIVAL INSTRUCTIONS:\n1. Stop pushing every minute to check for a pulse.\n"
)
AGREEING = (
    "SUMMARY: Adult collapsed, not breathing.\nKEY FACTS: unresponsive.\nSUGGESTED RESOURCES: ALS.\n"
    "PRE-ARRIVAL INSTRUCTIONS:\nNone needed beyond the card.\n"
)


class ScriptedEngine(Engine):
    """Answers every request with `answer`'s tokens in one chunk, and keeps the prompts it was given."""

    name = "scripted"

    def __init__(self, tokenizer: Any, answer: str) -> None:
        self.timings = {}
        self.tokens = tuple(tokenizer(answer, add_special_tokens=False)["input_ids"])
        self.prompts: list[tuple[int, ...]] = []

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def submit(self, request: EngineRequest) -> AsyncIterator[TokenChunk]:
        self.prompts.append(request.prompt_token_ids)

        async def stream() -> AsyncIterator[TokenChunk]:
            yield TokenChunk(request.request_id, self.tokens, 1.0, finished=True)

        return stream()

    def abort(self, request_id: str) -> None: ...

    def override(self, request_id: str, esi_level: int) -> None: ...

    def stats(self) -> EngineStats:
        raise NotImplementedError

    def health(self) -> EngineHealth:
        raise NotImplementedError


class CharTokenizer:
    """One token per character (its code point): what the worker asks of a tokenizer without a chat template."""

    all_special_tokens: tuple[str, ...] = ()

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict[str, list[int]]:
        return {"input_ids": [ord(char) for char in text]}

    def decode(self, token_ids: list[int] | tuple[int, ...], skip_special_tokens: bool = False) -> str:
        return "".join(chr(token) for token in token_ids)


@pytest.fixture
def tokenizer() -> CharTokenizer:
    return CharTokenizer()


@pytest.fixture
def settings(tmp_path: Path, redis_url: str) -> Settings:
    url = f"sqlite:///{tmp_path / 'grounded.db'}"
    upgrade(url)
    return Settings(database_url=url, redis_url=redis_url, queue_prefix=f"grounded-{next(_prefixes)}")


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    open_settings = settings.model_copy(update={"dev_open_api": True, "redis_url": None})
    with TestClient(create_app(open_settings, reconciler=False, console=False)) as test_client:
        yield test_client


def served(settings: Settings, monkeypatch: pytest.MonkeyPatch, engine: ScriptedEngine, tokenizer: Any) -> str:
    """An arrest call classified with its card, queued, then served once by an engine worker on `engine`."""
    with session_scope(settings.database_url) as session:
        incident_id, _ = store_message(session, "cad", f"w-{uuid.uuid4()}", IntakeMessage(text=ARREST_TEXT))
    classify_with(monkeypatch, settings.database_url, incident_id, arrest_result())
    heap = settings_heap(settings)
    heap.push(incident_id, 1, 5.0, 1)
    worker = EngineWorker(settings, engine, tokenizer, "builtin:tiny-llama")
    item = heap.pop_lease(worker.consumer, 30.0)
    assert item is not None and item.incident_id == incident_id
    asyncio.run(worker._generate(_Serving(item)))
    return incident_id


def test_the_prompt_carries_the_card_and_a_contradicting_answer_is_refused_with_its_reason(
    settings: Settings, client: TestClient, monkeypatch: pytest.MonkeyPatch, tokenizer: Any
) -> None:
    engine = ScriptedEngine(tokenizer, CONTRADICTING)
    incident_id = served(settings, monkeypatch, engine, tokenizer)
    [prompt] = engine.prompts
    text = tokenizer.decode(prompt, skip_special_tokens=True)
    assert "protocol card to the caller (cpr-adult, version 2026.11.1)" in text
    assert "Adult cardiac arrest: hands-only CPR" in text
    reason = (
        "checker: contradicts the card: says 'stop pushing', which contradicts card cpr-adult; contradicts the card: "
        "says 'check for a pulse', which contradicts card cpr-adult"
    )
    with session_scope(settings.database_url) as session:
        guidance = session.get(Guidance, incident_id)
        assert guidance is not None
        assert (guidance.prompt_version, guidance.check_passed) == (GROUNDED_PROMPT_VERSION, False)
        assert [item["kind"] for item in guidance.check_failures or []] == ["contradiction", "contradiction"]
        event = session.scalars(select(IncidentEvent).where(IncidentEvent.action == "guidance_check")).one()
        assert (event.actor, event.after, event.reason) == (
            "system:checker",
            {"check": "refused", "failures": ["contradiction", "contradiction"]},
            reason,
        )
        detail = incident_detail(session, incident_id)
    body = client.get(f"/v1/incidents/{incident_id}").json()
    assert (body["guidance_state"], body["guidance"]["check_passed"], body["guidance"]["check"]) == (
        "done",
        False,
        reason,
    )
    assert body["guidance"]["label"] == body["outcome"]["label"] == "test model: not real guidance"
    assert body["protocol_card"]["id"] == "cpr-adult"  # the card stands alone
    # The floor reads one line and no refused text; a supervisor reads the checker's reasons and the text.
    view, text, history = render_incident(detail)
    assert (
        '<p class="checker-refused" role="alert">Guidance refused by the checker: read the protocol card alone</p>'
    ) in view
    assert text == "" and reason not in view
    assert '<p class="test-model" role="note">test model: not real guidance</p>' in view
    supervisor_view, supervisor_text, _ = render_incident(detail, viewer=Viewer(can_act=True, supervisor=True))
    assert f'<p class="checker-refused" role="alert">{html.escape(reason)}</p>' in supervisor_view
    assert detail is not None and detail.guidance is not None and supervisor_text == detail.guidance.text != ""
    assert guidance_box_label(detail) == "Guidance refused by the checker: read the protocol card alone"
    assert "guidance refused by the checker" in history and "guidance checker" in history


def test_an_answer_that_keeps_to_the_card_passes_and_writes_no_event(
    settings: Settings, client: TestClient, monkeypatch: pytest.MonkeyPatch, tokenizer: Any
) -> None:
    incident_id = served(settings, monkeypatch, ScriptedEngine(tokenizer, AGREEING), tokenizer)
    body = client.get(f"/v1/incidents/{incident_id}").json()
    assert (body["guidance"]["check_passed"], body["guidance"]["check"]) == (True, "checker: passed")
    with session_scope(settings.database_url) as session:
        assert session.scalars(select(IncidentEvent).where(IncidentEvent.action == "guidance_check")).all() == []
        detail = incident_detail(session, incident_id)
    assert guidance_box_label(detail) == "Guidance (test model: not real guidance)"
