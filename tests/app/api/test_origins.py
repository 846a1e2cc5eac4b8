"""Cross-origin refusal: a state-changing request with the console's cookie from another origin (another port, a
sibling subdomain, `null`, no Origin at all) gets 403 with the reason and changes nothing; bearer calls pass."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from starlette.datastructures import Headers

from app.api.main import create_app
from app.api.origins import cross_origin_reason, parse_origin
from app.auth.accounts import add_user, issue_token
from app.console.first_run import SetupLink
from app.console.sessions import COOKIE
from app.db.migrate import upgrade
from app.db.models import Incident, IncidentEvent, User
from app.db.session import session_scope
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.settings import Settings

OWN = "http://testserver"
OTHER_PORT = "http://testserver:8001"


@dataclass
class Console:
    client: TestClient
    url: str
    incident_id: str

    def state(self) -> tuple[str, list[str]]:
        """The incident's status and its audit actions."""
        with session_scope(self.url) as session:
            incident = session.get(Incident, self.incident_id)
            assert incident is not None
            actions = session.scalars(
                select(IncidentEvent.action).where(IncidentEvent.incident_id == self.incident_id)
            ).all()
            return incident.status, list(actions)


@pytest.fixture
def console(tmp_path: Path) -> Iterator[Console]:
    url = f"sqlite:///{tmp_path / 'origins.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
        incident_id, _ = store_message(session, "cad", "w-1", IntakeMessage(text="Chest pain, sweating"))
    with TestClient(create_app(Settings(database_url=url), reconciler=False)) as client:
        signed_in = client.post(
            "/login", data={"username": "dana", "password": "dispatch-pass"}, headers={"Origin": OWN}
        )
        assert signed_in.status_code == 200 and COOKIE in client.cookies
        yield Console(client, url, incident_id)


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": OTHER_PORT},  # a page on another port of the same host
        {"Origin": "http://sibling.testserver"},  # a sibling subdomain
        {"Origin": "null"},  # a sandboxed frame, or a page that hides its origin
        {"Referer": f"{OTHER_PORT}/attack.html"},  # no Origin: the Referer decides
        {},  # neither
    ],
    ids=["other-port", "sibling-subdomain", "null", "referer-other-port", "no-origin"],
)
@pytest.mark.parametrize("action", ["claim", "dispatch"])
def test_a_cross_origin_claim_or_dispatch_with_the_session_is_refused_and_changes_nothing(
    console: Console, headers: dict[str, str], action: str
) -> None:
    response = console.client.post(f"/v1/incidents/{console.incident_id}/{action}", headers=headers)
    assert response.status_code == 403
    assert response.json()["detail"].startswith("cross-origin")
    assert console.state() == ("new", ["received"])


def test_the_reason_names_the_origin_sent_and_the_console_s_own(console: Console) -> None:
    response = console.client.post(f"/v1/incidents/{console.incident_id}/claim", headers={"Origin": OTHER_PORT})
    assert response.json() == {
        "detail": "cross-origin request refused: Origin 'http://testserver:8001' is not this console's origin "
        "http://testserver"
    }


def test_a_same_origin_claim_with_the_session_goes_through(console: Console) -> None:
    response = console.client.post(f"/v1/incidents/{console.incident_id}/claim", headers={"Origin": OWN})
    assert response.status_code == 200
    assert console.state() == ("claimed", ["received", "claim"])
    referer = console.client.post(
        f"/v1/incidents/{console.incident_id}/notes",
        json={"note": "by Referer"},
        headers={"Referer": f"{OWN}/console/"},
    )
    assert referer.status_code == 201


def test_a_bearer_token_call_is_not_checked(console: Console) -> None:
    with session_scope(console.url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None
        token = issue_token(session, dana)
    console.client.cookies.clear()
    response = console.client.post(
        f"/v1/incidents/{console.incident_id}/claim",
        headers={"Authorization": f"Bearer {token}", "Origin": OTHER_PORT},
    )
    assert response.status_code == 200


@pytest.mark.parametrize("bearer", ["Bearer tdk_bogus", "bearer ", "Bearer"], ids=["bogus", "empty", "bare"])
def test_a_bearer_header_never_falls_back_to_the_session(console: Console, bearer: str) -> None:
    """Any bearer header used to switch the origin check off and then let the cookie authenticate: a bogus one is a
    401 now, the session cookie beside it ignored, on the API and on Gradio's routes alike, from any origin."""
    header = {"Authorization": bearer}
    assert console.client.get("/v1/incidents", headers=header).status_code == 401
    assert console.client.get("/console/config", headers=header).status_code == 401
    for origin in (OWN, OTHER_PORT):
        claim = console.client.post(f"/v1/incidents/{console.incident_id}/claim", headers={**header, "Origin": origin})
        assert claim.status_code == 401, origin
        gradio = console.client.post(
            "/console/gradio_api/call/action_claim",
            json={"data": [console.incident_id, None, "", None, ""]},
            headers={**header, "Origin": origin},
        )
        assert gradio.status_code == 401, origin
    assert console.state() == ("new", ["received"])
    assert console.client.get("/v1/incidents").status_code == 200  # the session itself still works


def test_a_valid_bearer_token_is_its_own_user_whatever_session_comes_with_it(console: Console) -> None:
    with session_scope(console.url) as session:
        carl = add_user(session, "carl", "call-taker", "carl-password")
        token = issue_token(session, carl)
    # dana's session (a dispatcher) and carl's token (a call-taker): carl's rights only.
    response = console.client.post(
        f"/v1/incidents/{console.incident_id}/claim", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 403
    assert console.state() == ("new", ["received"])


def test_gradio_s_own_routes_refuse_a_cross_origin_call(console: Console) -> None:
    data = {"data": [console.incident_id, None, "", None, ""]}
    for path in ("/console/gradio_api/call/action_claim", "/console/gradio_api/queue/join"):
        response = console.client.post(path, json=data, headers={"Origin": OTHER_PORT})
        assert response.status_code == 403, path
    assert console.state() == ("new", ["received"])
    response = console.client.post("/console/gradio_api/upload", files={"files": ("a.txt", b"")}, headers={})
    assert response.status_code == 403
    same = console.client.post("/console/gradio_api/call/action_claim", json=data, headers={"Origin": OWN})
    assert same.status_code == 200


def test_cross_origin_sign_in_and_sign_out_are_refused(console: Console) -> None:
    out = console.client.post("/logout", headers={"Origin": OTHER_PORT}, follow_redirects=False)
    assert out.status_code == 403
    assert console.client.get("/console/config").status_code == 200  # still signed in
    console.client.cookies.clear()
    login = console.client.post(
        "/login",
        data={"username": "dana", "password": "dispatch-pass"},
        headers={"Origin": "http://sibling.testserver"},
        follow_redirects=False,
    )
    assert login.status_code == 403 and "set-cookie" not in login.headers


def test_a_sign_in_without_a_session_or_an_origin_is_not_a_browser_s_and_passes(console: Console) -> None:
    console.client.cookies.clear()
    login = console.client.post(
        "/login", data={"username": "dana", "password": "dispatch-pass"}, follow_redirects=False
    )
    assert login.status_code == 303 and COOKIE in login.cookies


def test_a_cross_origin_first_run_setup_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'setup.db'}"
    upgrade(url)
    token, link = SetupLink.issue()
    with TestClient(create_app(Settings(database_url=url), reconciler=False, setup_link=link)) as client:
        form = {"token": token, "username": "sue", "password": "a-long-password", "password2": "a-long-password"}
        refused = client.post("/setup", data=form, headers={"Origin": OTHER_PORT}, follow_redirects=False)
        assert refused.status_code == 403
        with session_scope(url) as session:
            assert session.scalars(select(User.name)).all() == []
        done = client.post("/setup", data=form, headers={"Origin": OWN}, follow_redirects=False)
        assert done.status_code == 303


def test_webhooks_are_not_checked(console: Console) -> None:
    response = console.client.post("/v1/intake/demo", content=b"{}", headers={"Origin": OTHER_PORT})
    assert response.status_code == 401  # the signature's refusal, not the origin's


@pytest.mark.parametrize(
    ("value", "origin"),
    [
        ("https://Console.Example.org", ("https", "console.example.org", 443)),
        ("http://127.0.0.1:8000/console/?x=1", ("http", "127.0.0.1", 8000)),
        ("null", None),
        ("/console/", None),
        ("ftp://example.org", None),
        ("http://[::1", None),
    ],
)
def test_origins_are_compared_with_their_default_ports_written_out(
    value: str, origin: tuple[str, str, int] | None
) -> None:
    assert parse_origin(value) == origin


def test_behind_a_tls_proxy_that_is_not_trusted_the_reason_says_what_to_set() -> None:
    headers = Headers({"host": "console.example.org", "origin": "https://console.example.org"})
    reason = cross_origin_reason({"type": "http", "scheme": "http"}, headers)
    assert reason is not None and reason.endswith("list the proxy in TRIAGE_TRUSTED_PROXIES, so the app sees https)")
    assert cross_origin_reason({"type": "http", "scheme": "https"}, headers) is None
