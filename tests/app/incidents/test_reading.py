"""The incident read model: one read of the rows, serialised by the API, rendered by the console and mapped by EIDO,
its history paged from the newest event back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.console.render import DEFAULT_DEADLINES, render_head, render_history
from app.db.session import session_scope
from app.incidents import actions
from app.incidents.eido import build_eido
from app.incidents.read_model import CallFact, TranscriptFacts
from app.incidents.reading import ALL_HISTORY, HistoryWindow, read_incident
from app.settings import Settings
from tests.app.api.test_incident_actions_api import Api, running_api
from tests.app.console.test_service import DISPATCHER


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    from app.db.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'reading.db'}"
    upgrade(url)
    with running_api(url, Settings(database_url=url, redis_url=None)) as running:
        yield running


def noted(api: Api, notes: int) -> tuple[str, list[int]]:
    """An incident with `notes` notes after its "received" event; (its id, every event id in order)."""
    incident_id = api.new_incident()
    with session_scope(api.url) as session:
        for number in range(notes):
            actions.add_note(session, incident_id, DISPATCHER, f"note {number}")
    with session_scope(api.url) as session:
        detail = read_incident(session, incident_id, ALL_HISTORY)
        assert detail is not None
        return incident_id, [event.id for event in detail.events]


def test_read_incident_pages_its_history_from_the_newest_event_back(api: Api) -> None:
    incident_id, ids = noted(api, 6)  # 7 events: received, 6 notes
    with session_scope(api.url) as session:
        newest = read_incident(session, incident_id, HistoryWindow(limit=3))
        assert newest is not None and newest.history is not None
        assert [event.id for event in newest.events] == ids[4:]
        assert (newest.history.total, newest.history.older_than) == (7, ids[4])
        older = read_incident(session, incident_id, HistoryWindow(limit=3, before=ids[4]))
        assert older is not None and older.history is not None
        assert [event.id for event in older.events] == ids[1:4]
        oldest = read_incident(session, incident_id, HistoryWindow(limit=3, before=ids[1]))
        assert oldest is not None and oldest.history is not None
        assert ([event.id for event in oldest.events], oldest.history.older_than) == (ids[:1], None)
        assert read_incident(session, "no-such-incident") is None


def test_get_incident_serialises_the_read_model_with_its_history_page(api: Api) -> None:
    incident_id, ids = noted(api, 4)
    headers = api.tokens["call-taker"]
    body = api.client.get(f"/v1/incidents/{incident_id}?history_limit=2", headers=headers).json()
    assert [event["id"] for event in body["events"]] == ids[3:]
    assert [event["reason"] for event in body["events"]] == ["note 2", "note 3"]
    assert body["history"] == {"total": 5, "older_than": ids[3]}
    back = api.client.get(f"/v1/incidents/{incident_id}?history_limit=2&history_before={ids[3]}", headers=headers)
    assert [event["id"] for event in back.json()["events"]] == ids[1:3]
    assert "user_names" not in body and "actor_roles" not in body  # the read's own lookups stay inside
    with session_scope(api.url) as session:
        detail = read_incident(session, incident_id, HistoryWindow(limit=2))
    assert detail is not None and detail.accepted_at is not None
    assert body["accepted_at"] == body["timings"]["accepted_at"] == detail.accepted_at.isoformat()
    assert body["events"][0]["at"] == detail.events[0].at.isoformat()  # type: ignore[union-attr]
    assert api.client.get(f"/v1/incidents/{incident_id}?history_limit=0", headers=headers).status_code == 422


def test_the_console_and_eido_render_the_same_read(api: Api) -> None:
    incident_id, _ = noted(api, 2)
    with session_scope(api.url) as session:
        actions.claim(session, incident_id, DISPATCHER)
    with session_scope(api.url) as session:
        detail = read_incident(session, incident_id, ALL_HISTORY)
    assert detail is not None and detail.claimed_by == "dana"
    history = render_history(detail.events, detail.user_names)
    assert "claimed by: none → dana" in history
    document = build_eido(detail, "psap.example.org")
    last = document["notesComponent"][-1]["notesActionComments"]
    assert last == '<p>claim by dana</p><p>status: "new" → "claimed"; claimed_by: null → "dana"</p>'
    assert [agent["$id"] for agent in document["agentComponent"]] == [
        "system:intake:cad@psap.example.org",
        "dana@psap.example.org",
    ]
    assert [agent["agentRoleRegistryText"] for agent in document["agentComponent"]] == [["Automaton"], ["Dispatching"]]


def test_a_posted_transcript_shows_the_address_and_number_its_caller_gave_to_confirm(api: Api) -> None:
    incident_id = api.new_incident(
        "CT: 911, what is the address of your emergency? C: 4120 West Maple Avenue. "
        "CT: What's your call back number? C: 602 555 0142. CT: Tell me exactly what happened. C: My dad collapsed."
    )
    plain_id = api.new_incident("My dad collapsed at 4120 West Maple Avenue")
    with session_scope(api.url) as session:
        detail, plain = read_incident(session, incident_id), read_incident(session, plain_id)
    assert detail is not None and plain is not None
    assert detail.transcript_facts == TranscriptFacts(
        address=CallFact(value="4120 West Maple Avenue"), callback_number=CallFact(value="+16025550142")
    )
    assert plain.transcript_facts is None
    head = render_head(detail, None, DEFAULT_DEADLINES)
    assert '<span class="address"><small>address</small> 4120 West Maple Avenue <small class="to-confirm">' in head
    assert "+16025550142 <small" in head
    assert "no address given" in render_head(plain, None, DEFAULT_DEADLINES)
    body = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["call-taker"]).json()
    assert body["transcript_facts"]["address"] == {
        "value": "4120 West Maple Avenue",
        "offset_s": None,
        "confirmed_by": None,
    }
