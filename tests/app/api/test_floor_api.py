"""The floor through the API: units dispatched and moved on (timed, audited, stale changes refused), one owner per
call (409 naming the holder, a take-over with a reason), actions checked against the state they were offered in,
the close confirmation for an ESI 1-2 call no unit reached, and the limits on free text and notes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.db.migrate import upgrade
from app.db.models import Unit
from app.db.session import session_scope
from app.settings import Settings
from tests.app.api.test_incident_actions_api import Api, running_api

LIMITS = {"note_max_chars": 200, "reason_max_chars": 100, "incident_note_limit": 3, "user_note_limit": 4}


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    url = f"sqlite:///{tmp_path / 'floor.db'}"
    upgrade(url)
    with running_api(url, Settings(database_url=url, redis_url=None, **LIMITS)) as running:
        with session_scope(url) as session:
            session.add(Unit(name="E4", kind="engine", station="Station 1"))
        yield running


def detail(api: Api, incident_id: str) -> dict[str, object]:
    body: dict[str, object] = api.client.get(f"/v1/incidents/{incident_id}", headers=api.tokens["dispatcher"]).json()
    return body


def move(api: Api, unit: str, status: str, expected: str | None = None, role: str = "supervisor") -> object:
    body = {"status": status, **({"expected_status": expected} if expected else {})}
    return api.client.post(f"/v1/units/{unit}/status", json=body, headers=api.tokens[role])


def test_units_are_dispatched_moved_on_and_timed(api: Api) -> None:
    incident_id = api.new_incident()
    listed = api.client.get("/v1/units", headers=api.tokens["call-taker"]).json()["units"]
    assert [(unit["name"], unit["status"]) for unit in listed] == [("E4", "available"), ("M12", "available")]
    assert api.post(incident_id, "dispatch", body={"units": []}).json() == {
        "detail": "choose at least one unit to dispatch"
    }
    assert api.post(incident_id, "dispatch", body={"units": ["M99"]}).status_code == 422
    assert api.post(incident_id, "dispatch", body={"units": ["M12", "E4"]}).status_code == 200
    busy = api.post(api.new_incident(), "dispatch", body={"units": ["M12"]})
    assert (busy.status_code, busy.json()["detail"]) == (
        409,
        f"M12 is dispatched on incident {incident_id[:8]}: choose an available unit",
    )
    assert move(api, "M12", "en route", role="call-taker").status_code == 403
    assert move(api, "M12", "en route", expected="dispatched").json()["status"] == "en route"
    stale = move(api, "M12", "on scene", expected="dispatched")  # another console still showed "dispatched"
    assert (stale.status_code, stale.json()["detail"]) == (
        409,
        "M12 is now en route (you saw dispatched): nothing was changed",
    )
    backwards = move(api, "M12", "dispatched")
    assert backwards.status_code == 422
    assert move(api, "M99", "en route").status_code == 404
    assert move(api, "M12", "on scene").status_code == 200
    assert move(api, "E4", "back in service").json()["status"] == "available"
    body = detail(api, incident_id)
    units = {unit["name"]: unit for unit in body["units"]}  # type: ignore[attr-defined]
    assert (units["M12"]["status"], units["E4"]["status"]) == ("on scene", "back in service")
    assert units["M12"]["en_route_at"] is not None and units["E4"]["cleared_at"] is not None
    floor = body["floor"]
    assert all(floor[name] is not None for name in ("answer_to_dispatch_s", "dispatch_to_en_route_s"))  # type: ignore[index]
    assert floor["en_route_to_on_scene_s"] is not None  # type: ignore[index]
    assert [event[1:4] for event in api.events(incident_id)[1:]] == [
        (
            "dispatch",
            {"status": "new", "claimed_by": None},
            {"status": "dispatched", "units": ["M12", "E4"], "claimed_by": api.user_ids["dispatcher"]},
        ),
        ("unit_status", {"unit": "M12", "unit_status": "dispatched"}, {"unit": "M12", "unit_status": "en route"}),
        ("unit_status", {"unit": "M12", "unit_status": "en route"}, {"unit": "M12", "unit_status": "on scene"}),
        ("unit_status", {"unit": "E4", "unit_status": "dispatched"}, {"unit": "E4", "unit_status": "back in service"}),
    ]


def test_one_owner_per_call_and_a_take_over_needs_a_reason(api: Api) -> None:
    incident_id = api.new_incident()
    assert api.post(incident_id, "claim").status_code == 200
    refused = api.post(incident_id, "claim", role="supervisor")
    assert (refused.status_code, refused.json()["detail"]) == (
        409,
        "dana holds this call: take it over with a reason, or leave it to them",
    )
    for action, body in (("override", {"esi_level": 1, "reason": "x"}), ("close", {"disposition": "other"})):
        assert api.post(incident_id, action, role="supervisor", body=body).status_code == 409, action
    no_reason = api.post(incident_id, "claim", role="supervisor", body={"take_over_reason": " "})
    assert no_reason.status_code == 422
    taken = api.post(incident_id, "claim", role="supervisor", body={"take_over_reason": "dana is on a CPR call"})
    assert taken.status_code == 200
    assert api.events(incident_id)[-1][1:] == (
        "take_over",
        {"claimed_by": api.user_ids["dispatcher"]},
        {"claimed_by": api.user_ids["supervisor"]},
        "dana is on a CPR call",
    )
    assert detail(api, incident_id)["claimed_by"] == "sue"


def test_an_action_offered_in_another_state_is_refused(api: Api) -> None:
    incident_id = api.new_incident()
    offered = detail(api, incident_id)["state"]
    assert api.post(incident_id, "claim", role="supervisor", body={"expected_state": offered}).status_code == 200
    stale = api.post(incident_id, "override", body={"esi_level": 1, "reason": "worse", "expected_state": offered})
    assert (stale.status_code, stale.json()["detail"]) == (
        409,
        "the call changed since you saw it: now claimed (you saw new); held by sue (you saw nobody). Nothing was "
        "done; look again.",
    )
    current = detail(api, incident_id)["state"]
    assert current != offered
    body = {"esi_level": 2, "reason": "worse", "expected_state": current}
    assert api.post(incident_id, "override", role="supervisor", body=body).status_code == 200


def test_an_urgent_call_no_unit_reached_closes_only_with_a_reason(api: Api) -> None:
    incident_id = api.new_incident()
    assert api.post(incident_id, "override", body={"esi_level": 2, "reason": "chest pain"}).status_code == 200
    refused = api.post(incident_id, "close", body={"disposition": "transported"})
    assert (refused.status_code, refused.json()["detail"]) == (
        422,
        "ESI 2 and no unit reached the scene: confirm closing it without one and say why",
    )
    assert api.post(incident_id, "dispatch", body={"units": ["M12"]}).status_code == 200
    assert move(api, "M12", "on scene").status_code == 200
    assert api.post(incident_id, "close", body={"disposition": "transported"}).status_code == 200
    other = api.new_incident()
    api.post(other, "override", body={"esi_level": 1, "reason": "arrest"})
    body = {"disposition": "refused care", "no_unit_reason": "caller says the patient walked to hospital"}
    assert api.post(other, "close", body=body).status_code == 200
    assert api.events(other)[-1][3]["no_unit_on_scene"] is True


def test_free_text_and_notes_are_limited_with_a_reason(api: Api) -> None:
    incident_id = api.new_incident()
    long = api.post(incident_id, "notes", body={"note": "x" * 201})
    assert (long.status_code, long.json()["detail"]) == (422, "the note is 201 characters; 200 at most")
    reason = api.post(incident_id, "override", body={"esi_level": 2, "reason": "y" * 101})
    assert (reason.status_code, reason.json()["detail"]) == (422, "the override reason is 101 characters; 100 at most")
    for number in range(3):
        assert api.post(incident_id, "notes", body={"note": f"note {number}"}).status_code == 201
    full = api.post(incident_id, "notes", body={"note": "one more"})
    assert full.status_code == 422 and full.json()["detail"].startswith("this incident holds 3 notes, the most it")
    other = api.new_incident()
    assert api.post(other, "notes", body={"note": "fourth in the minute"}).status_code == 201
    fast = api.post(other, "notes", body={"note": "fifth in the minute"})
    assert fast.status_code == 429
    assert fast.json()["detail"].startswith("4 notes in 60 s is the most one user may add: try again in ")
    assert 1 <= int(fast.headers["retry-after"]) <= 60
    assert api.post(other, "notes", role="call-taker", body={"note": "carl's own count"}).status_code == 201
