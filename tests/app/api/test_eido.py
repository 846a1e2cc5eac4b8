"""GET /v1/incidents/{id}/eido: the incident as a NENA EIDO JSON document, validated against NENA's published schema
(NENA911/EIDO-JSON, vendored in eido_schema/), on incidents made by the real intake, classification, action and
engine-worker functions, on SQLite and PostgreSQL."""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry
from referencing.jsonschema import DRAFT202012
from sqlalchemy import select

from app.db.migrate import upgrade
from app.db.models import IncidentEvent
from app.db.session import session_scope
from app.engine_worker.outcomes import Served, record_finished, when_accepted, write_guidance
from app.guidance.prompt import GUIDANCE_PROMPT_VERSION
from app.incidents.eido import build_eido
from app.incidents.pipeline import store_message
from app.incidents.reading import ALL_HISTORY, read_incident
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from app.units.roster import UnitSpec, add_units
from scheduler.redis_heap import HeapItem
from tests.app.api.test_incident_actions_api import Api, running_api
from tests.app.triage_stub import REVIEW_REASON, REVIEW_TEXT, classify_with, fresh_database, plain_result, review_result

SCHEMA_DIR = Path(__file__).parent / "eido_schema"
SCHEMAS = {
    # file: the commit it was extracted from (see eido_schema/README.md)
    "eido-sta-021.1b.json": "c3b8d2063be63d27ff7e2d3c353c597c71817a1b",
    "eido-sta-021.1.1-draft.json": "7f62055d30609b4a931c797a740b4eb7e2c33dbf",
}
AGENCY = "psap.invalid"
GUIDANCE = "Check breathing.\nStart CPR if not breathing: push hard & fast <100-120/min>."
LOCATION = "12 Oak St & 3rd Ave <rear entrance>"
CALL_ID = "urn:emergency:uid:callid:a56e556d871:bcf.state.pa.us"
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def rfc3339_date_time(value: object) -> bool:
    """JSON Schema's date-time (RFC 3339): a date, a time and a UTC offset (jsonschema checks it only with an
    optional package, so the tests bring their own)."""
    if not isinstance(value, str):
        return True
    if not RFC3339.match(value):
        return False
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).tzinfo is not None


def strict(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every component closed (`unevaluatedProperties: false`): a member the schema does not define
    fails. PrologueType is left open: it is only ever a part (`allOf`) of the other components."""
    closed = copy.deepcopy(schema)
    for name, component in closed["components"]["schemas"].items():
        if name != "PrologueType" and ("allOf" in component or "properties" in component):
            component["unevaluatedProperties"] = False
    return closed


@cache
def validator(name: str, closed: bool) -> Draft202012Validator:
    """A validator for EmergencyIncidentDataObjectType in a vendored schema, with date-time checked; `closed`: no
    member beyond those the schema defines. The schema's `$ref`s resolve through a `referencing` registry at the
    upstream file's address (its NIEM references would resolve beside it and are not vendored: nothing here uses
    them)."""
    schema = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    uri = f"https://raw.githubusercontent.com/NENA911/EIDO-JSON/{SCHEMAS[name]}/Schema/openapi.yaml"
    registry: Registry[Any] = Registry().with_resource(
        uri, DRAFT202012.create_resource(strict(schema) if closed else schema)
    )
    checker = FormatChecker()
    checker.checks("date-time", raises=ValueError)(rfc3339_date_time)
    root = {"$ref": f"{uri}#/components/schemas/EmergencyIncidentDataObjectType"}
    return Draft202012Validator(root, registry=registry, format_checker=checker)


def problems(document: Any, name: str, closed: bool = True) -> list[str]:
    errors = validator(name, closed).iter_errors(document)
    return sorted(f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in errors)


def assert_valid(document: dict[str, Any]) -> None:
    """Valid against every vendored schema, closed; every `$id` unique and every `$ref` naming one of them."""
    for name in SCHEMAS:
        assert problems(document, name) == [], name
    ids: list[str] = []
    refs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "$id" in node:
                ids.append(node["$id"])
            if set(node) == {"$ref"}:
                refs.append(node["$ref"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)
    assert len(ids) == len(set(ids))
    assert set(refs) <= set(ids), set(refs) - set(ids)


@pytest.fixture(params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Api]:
    url = fresh_database(request, tmp_path, request.param)
    with running_api(url, Settings(database_url=url, redis_url=None)) as running:
        yield running


def store(api: Api, message: IntakeMessage) -> str:
    with session_scope(api.url) as session:
        incident_id, _ = store_message(session, "cad", f"w-{uuid.uuid4()}", message)
    return incident_id


def eido(api: Api, incident_id: str, role: str = "call-taker") -> dict[str, Any]:
    response = api.client.get(f"/v1/incidents/{incident_id}/eido", headers=api.tokens[role])
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body: dict[str, Any] = response.json()
    return body


def component_id(incident_id: str, kind: str) -> str:
    return f"urn:emergency:uid:eidodatacomponent:{incident_id.replace('-', '')}{kind}:{AGENCY}"


def notes_by_id(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {note["$id"]: note for note in document["notesComponent"]}


def stored_events(api: Api, incident_id: str) -> list[tuple[int, str, str, str]]:
    """(id, action, actor, time) of the incident's audit events, in order, read from the database."""
    with session_scope(api.url) as session:
        rows = session.scalars(
            select(IncidentEvent).where(IncidentEvent.incident_id == incident_id).order_by(IncidentEvent.id)
        ).all()
        return [(row.id, row.action, row.actor, row.created_at.isoformat()) for row in rows]


def a_full_incident(api: Api, monkeypatch: pytest.MonkeyPatch) -> str:
    """An incident taken through the whole product: intake, a review-flagged ESI 2 classification, an override to
    ESI 1, claim, guidance streamed and finished by the engine worker's functions, a note, a unit dispatched, en route
    and on scene (moved by another dispatcher, as the crew radios in), and close."""
    received_at = dt.datetime(2026, 3, 1, 6, 0, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    message = IntakeMessage(text=REVIEW_TEXT, caller="Ann <Lee>", location=LOCATION, call_id=CALL_ID)
    incident_id = store(api, message.model_copy(update={"received_at": received_at}))
    assert classify_with(monkeypatch, api.url, incident_id, review_result()) == "classified"
    assert api.post(incident_id, "override", body={"esi_level": 1, "reason": "now unresponsive"}).status_code == 200
    assert api.post(incident_id, "claim").status_code == 200
    write_guidance(api.url, incident_id, GUIDANCE[:20], 5, "qwen-test")
    write_guidance(api.url, incident_id, GUIDANCE, 42, "qwen-test")
    item = HeapItem(incident_id, 1, 2.0, 0, deliveries=1)
    served = Served("vllm", "qwen-test", queue_wait_s=0.5, ttft_s=0.1, tokens=42)
    assert record_finished(api.url, incident_id, item, served, when_accepted(api.url, incident_id)) == 1
    note = {"note": "caller says <3 min> since collapse"}
    assert api.post(incident_id, "notes", role="call-taker", body=note).status_code == 201
    with session_scope(api.url) as session:
        add_units(session, [UnitSpec("M7", "ambulance", "Station 7")], "test")
    assert api.post(incident_id, "dispatch", body={"units": ["M7"]}).status_code == 200
    for status in ("en route", "on scene"):
        moved = api.client.post("/v1/units/M7/status", json={"status": status}, headers=api.tokens["supervisor"])
        assert moved.status_code == 200
    assert api.post(incident_id, "close", body={"disposition": "transported"}).status_code == 200
    return incident_id


def test_a_full_incident_is_a_valid_eido_with_its_acuity_guidance_and_history(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = a_full_incident(api, monkeypatch)
    document = eido(api, incident_id)
    assert_valid(document)
    unique = incident_id.replace("-", "")
    assert document["$id"] == f"urn:emergency:uid:incidentid:{unique}:{AGENCY}"
    assert (document["eidoVersion"], document["issuingElementIdentification"]) == ("1.0", f"triage-dispatch.{AGENCY}")
    assert document["updatedByAgentReference"] == {"$ref": f"dana@{AGENCY}"}  # the close was the last change
    incident = document["incidentComponent"]
    links = {"agentReference", "locationReference", "personReference", "notesReference", "dispositionComponent"}
    assert set(incident) >= links
    assert {key: value for key, value in incident.items() if key not in links} == {
        "$id": component_id(incident_id, "incident"),
        "lastUpdateTimeStamp": document["lastUpdateTimeStamp"],
        "updatedByAgencyReference": {"$ref": AGENCY},
        "updatedByAgentReference": {"$ref": f"dana@{AGENCY}"},
        "incidentTypeCommonRegistryText": "SICK",
        # the chief complaint: the clause holding the red flag (app.incidents.complaint), not the whole message
        "incidentTypeInternalText": "Fell off a ladder, wrist swollen, chest pain now",
        "incidentStatusInternalText": ["closed", "guidance:done"],
        "incidentStatusCommonRegistryText": ["Closed"],
        "internalIncidentId": incident_id,
        "incidentPriorityInternalText": "ESI 1",
        "incidentCommonPriorityNumber": 10,
    }
    [disposition] = incident["dispositionComponent"]
    assert (disposition["dispositionCommonRegistryCode"], disposition["dispositionDescriptionText"]) == (
        "45",
        "transported",
    )
    notes = notes_by_id(document)
    assert notes[component_id(incident_id, "acuity")]["notesActionComments"] == (
        "<p>Acuity: ESI 1 (dispatcher override)</p>"
        "<p>Model: ESI 2 (stub-1, decision point B, classifier ESI 2)</p>"
        "<p>Override: ESI 1 by dana: now unresponsive</p>"
        f"<p>Needs review (resolved by the override): {REVIEW_REASON}</p>"
    )
    assert notes[component_id(incident_id, "acuity")]["agentReference"] == {"$ref": f"dana@{AGENCY}"}
    assert notes[component_id(incident_id, "guidance")]["notesActionComments"] == (
        f"<p>Guidance (done; model qwen-test, prompt {GUIDANCE_PROMPT_VERSION}, 42 tokens)</p>"
        "<p>Check breathing.<br>Start CPR if not breathing: push hard &amp; fast &lt;100-120/min&gt;.</p>"
    )
    assert notes[component_id(incident_id, "message")]["notesActionComments"] == (
        f"<p>Message as received (call received 2026-03-01T11:00:00+00:00)</p><p>{REVIEW_TEXT}</p>"
    )


def test_the_history_is_every_audit_event_in_order_with_its_actor_and_time(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    incident_id = a_full_incident(api, monkeypatch)
    document = eido(api, incident_id)
    events = stored_events(api, incident_id)
    assert [(action, actor) for _, action, actor, _ in events] == [
        ("received", "system:intake:cad"),
        ("classified", "system:classifier"),
        ("override", "dana"),
        ("claim", "dana"),
        ("note", "carl"),
        ("dispatch", "dana"),
        ("unit_status", "sue"),
        ("unit_status", "sue"),
        ("close", "dana"),
    ]
    history = [note for note in document["notesComponent"] if "event" in note["$id"]]
    assert [note["$id"] for note in history] == [
        component_id(incident_id, f"event{event_id}") for event_id, *_ in events
    ]
    by_and_when = [
        (note["agentReference"], note["updatedByAgentReference"], note["lastUpdateTimeStamp"]) for note in history
    ]
    assert by_and_when == [
        ({"$ref": f"{actor}@{AGENCY}"}, {"$ref": f"{actor}@{AGENCY}"}, at) for _, _, actor, at in events
    ]
    assert all(at.endswith("+00:00") for _, _, _, at in events)
    comments = [note["notesActionComments"] for note in history]
    assert comments[2] == (
        "<p>override by dana</p><p>Reason: now unresponsive</p><p>esi_level: 2 → 1; override_level: null → 1</p>"
    )
    assert comments[3] == '<p>claim by dana</p><p>status: "new" → "claimed"; claimed_by: null → "dana"</p>'
    assert comments[4] == "<p>note by carl</p><p>Reason: caller says &lt;3 min&gt; since collapse</p>"
    assert comments[5] == '<p>dispatch by dana</p><p>status: "claimed" → "dispatched"; units: ["M7"]</p>'
    assert comments[7] == '<p>unit_status by sue</p><p>unit_status: "en route" → "on scene"</p>'
    assert comments[8] == '<p>close by dana</p><p>status: "dispatched" → "closed"; disposition: "transported"</p>'
    assert document["incidentComponent"]["notesReference"] == [
        {"$ref": note["$id"]} for note in document["notesComponent"] if not note["$id"].endswith(f"callernote:{AGENCY}")
    ]
    agents = {agent["$id"]: agent["agentRoleRegistryText"] for agent in document["agentComponent"]}
    assert agents == {
        f"system:intake:cad@{AGENCY}": ["Automaton"],
        f"system:classifier@{AGENCY}": ["Automaton"],
        f"dana@{AGENCY}": ["Dispatching"],
        f"carl@{AGENCY}": ["Call Taking"],
        f"sue@{AGENCY}": ["Supervisor"],
    }


def test_the_caller_and_the_location_are_kept_as_given(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    incident_id = a_full_incident(api, monkeypatch)
    document = eido(api, incident_id)
    [person] = document["personComponent"]
    assert (person["personIncidentRoleRegistryText"], person["callIdentifier"]) == (["Caller"], [CALL_ID])
    [caller_note] = person["notesReference"]
    assert notes_by_id(document)[caller_note["$ref"]]["notesActionComments"] == "<p>Caller: Ann &lt;Lee&gt;</p>"
    [location] = document["locationComponent"]
    assert (location["locationTypeDescriptionRegistryText"], location["locationDescriptionText"]) == (
        "CurrentIncident",
        LOCATION,
    )
    pidf = ET.fromstring(location["locationByValue"])
    civic = "{urn:ietf:params:xml:ns:pidf:geopriv10:civicAddr}"
    assert [element.text for element in pidf.iter(f"{civic}LOC")] == [LOCATION]
    assert document["incidentComponent"]["personReference"] == [{"$ref": person["$id"]}]
    assert document["incidentComponent"]["locationReference"] == [{"$ref": location["$id"]}]


def test_an_incident_without_guidance_yet_is_valid_too(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    incident_id = store(api, IntakeMessage(text="Sore throat for two days, no fever"))
    bare = eido(api, incident_id)
    assert_valid(bare)
    assert [note["$id"] for note in bare["notesComponent"]] == [
        component_id(incident_id, "message"),
        component_id(incident_id, f"event{stored_events(api, incident_id)[0][0]}"),
    ]
    assert bare["notesComponent"][0]["notesActionComments"] == (
        "<p>Message as received</p><p>Sore throat for two days, no fever</p>"
    )
    assert "incidentPriorityInternalText" not in bare["incidentComponent"]
    assert "personComponent" not in bare and "locationComponent" not in bare
    assert bare["incidentComponent"]["incidentStatusInternalText"] == ["new", "guidance:pending"]
    classify_with(monkeypatch, api.url, incident_id, plain_result(4))
    queued = eido(api, incident_id)
    assert_valid(queued)
    incident = queued["incidentComponent"]
    assert (incident["incidentPriorityInternalText"], incident["incidentCommonPriorityNumber"]) == ("ESI 4", 4)
    assert incident["incidentStatusInternalText"] == ["new", "guidance:queued"]
    assert "dispositionComponent" not in incident
    notes = notes_by_id(queued)
    assert component_id(incident_id, "guidance") not in notes
    assert notes[component_id(incident_id, "acuity")]["notesActionComments"] == (
        "<p>Acuity: ESI 4 (model)</p><p>Model: ESI 4 (stub-1, decision point C, classifier ESI 4)</p>"
    )


def test_an_unknown_incident_is_404_and_no_token_is_401(api: Api) -> None:
    incident_id = store(api, IntakeMessage(text="Chest pain, sweating"))
    missing = api.client.get("/v1/incidents/no-such-incident/eido", headers=api.tokens["dispatcher"])
    assert (missing.status_code, missing.json()) == (404, {"detail": "no such incident"})
    assert missing.json() == api.client.get("/v1/incidents/no-such-incident", headers=api.tokens["dispatcher"]).json()
    anonymous = api.client.get(f"/v1/incidents/{incident_id}/eido")
    assert (anonymous.status_code, anonymous.json()) == (
        401,
        {"detail": "authentication required: a bearer API token or a console session"},
    )
    bad_token = api.client.get(f"/v1/incidents/{incident_id}/eido", headers={"authorization": "Bearer nope"})
    assert bad_token.status_code == 401


def test_a_close_without_a_common_code_and_an_actor_without_an_account(tmp_path: Path) -> None:
    """The dev open API acts as `dev-open-api`, who has no user row: an agent of role Unknown. A close as "other" has
    no common disposition code: no Disposition component, the close stays in the history."""
    url = f"sqlite:///{tmp_path / 'triage.db'}"
    upgrade(url)
    settings = Settings(database_url=url, redis_url=None, dev_open_api=True, eido_agency_id="psap.example.org")
    with running_api(url, settings) as api:
        incident_id = store(api, IntakeMessage(text="Chest pain, sweating"))
        closed = api.client.post(f"/v1/incidents/{incident_id}/close", json={"disposition": "other"})
        assert closed.status_code == 200
        document = eido(api, incident_id)
    assert_valid(document)
    assert "dispositionComponent" not in document["incidentComponent"]
    assert document["incidentComponent"]["incidentStatusCommonRegistryText"] == ["Closed"]
    assert document["$id"].endswith(":psap.example.org")  # TRIAGE_EIDO_AGENCY_ID
    assert [(agent["$id"], agent["agentRoleRegistryText"]) for agent in document["agentComponent"]] == [
        ("system:intake:cad@psap.example.org", ["Automaton"]),
        ("dev-open-api@psap.example.org", ["Unknown"]),
    ]
    assert document["notesComponent"][-1]["notesActionComments"] == (
        '<p>close by dev-open-api</p><p>status: "new" → "closed"; guidance_state: "pending" → "cancelled"; '
        'disposition: "other"</p>'
    )


def test_nenas_own_sample_passes_the_same_validation() -> None:
    """The strictness (closed components, RFC 3339 times, resolvable references) accepts NENA's own example."""
    sample = json.loads((SCHEMA_DIR / "sample-call-transfer-eido.json").read_text(encoding="utf-8"))
    assert_valid(sample)


def test_the_validation_can_fail(tmp_path: Path) -> None:
    """The validators refuse a missing required member, a member the schema does not define and a time without a
    UTC offset: a document that passes them is not passing by default."""
    url = f"sqlite:///{tmp_path / 'triage.db'}"
    upgrade(url)
    with session_scope(url) as session:
        incident_id, _ = store_message(session, "cad", "w-1", IntakeMessage(text="Chest pain, sweating", caller="Al"))
        source = read_incident(session, incident_id, ALL_HISTORY)
    assert source is not None
    document = build_eido(source, agency_id="psap.example.org")
    assert_valid(document)
    name = "eido-sta-021.1b.json"
    missing = copy.deepcopy(document)
    del missing["incidentComponent"]["incidentTypeCommonRegistryText"]
    assert problems(missing, name, closed=False) == [
        "incidentComponent: 'incidentTypeCommonRegistryText' is a required property"
    ]
    invented = copy.deepcopy(document)
    invented["incidentComponent"]["esiLevel"] = 2
    assert problems(invented, name, closed=False) == []
    # closed: refused where it is (the enclosing component then fails too, its members no longer evaluated)
    assert "incidentComponent: Unevaluated properties are not allowed ('esiLevel' was unexpected)" in problems(
        invented, name
    )
    naive = copy.deepcopy(document)
    naive["lastUpdateTimeStamp"] = "2026-03-01T06:00:00"
    assert problems(naive, name, closed=False) == ["lastUpdateTimeStamp: '2026-03-01T06:00:00' is not a 'date-time'"]
    bad_version = {**document, "eidoVersion": "2.0"}
    assert problems(bad_version, name, closed=False) == ["eidoVersion: '2.0' is not one of ['1.0']"]


def test_the_protocol_card_is_a_note_with_its_version_language_and_steps_done(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.app.api.test_card_actions_api import ARREST_TEXT, arrest_result

    incident_id = store(api, IntakeMessage(text=ARREST_TEXT))
    assert classify_with(monkeypatch, api.url, incident_id, arrest_result("es")) == "classified"
    for step in (2, 1):
        assert api.post(incident_id, "card/steps", body={"step": step, "done": True}).status_code == 200
    document = eido(api, incident_id)
    assert_valid(document)
    events = stored_events(api, incident_id)
    notes = notes_by_id(document)
    card = notes[component_id(incident_id, "card")]
    assert card["notesActionComments"] == (
        "<p>Protocol card: cpr-adult version 2026.11.1 (es): Paro cardíaco en adulto: RCP solo con las manos</p>"
        "<p>Steps done: 1, 2 (of 11)</p><p>Card not reviewed by a medical director</p>"
    )
    last_step = notes[component_id(incident_id, f"event{events[-1][0]}")]
    assert (card["lastUpdateTimeStamp"], card["agentReference"]) == (
        last_step["lastUpdateTimeStamp"],
        {"$ref": f"dana@{AGENCY}"},
    )  # by whoever last changed it, then
    ids = [note["$id"] for note in document["notesComponent"]]
    assert ids.index(component_id(incident_id, "acuity")) + 1 == ids.index(component_id(incident_id, "card"))
    assert [action for _, action, _, _ in events] == ["received", "classified", "card_step", "card_step"]
    minor = store(api, IntakeMessage(text="Sore throat"))
    classify_with(monkeypatch, api.url, minor, plain_result(5))
    assert component_id(minor, "card") not in notes_by_id(eido(api, minor))
