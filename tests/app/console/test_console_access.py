"""Console sign-in and what a signed-out visitor gets (no browser: HTTP only)."""

from __future__ import annotations

import asyncio
import base64
import re
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.api.main import create_app
from app.auth.accounts import add_user, issue_token, verify_password
from app.auth.signin_throttle import throttle_for
from app.auth.users import disable_user
from app.console import sessions
from app.console.sessions import COOKIE
from app.db.migrate import upgrade
from app.db.models import User
from app.db.session import session_scope
from app.settings import Settings

SAME_ORIGIN = {"Origin": "http://testserver"}
"""What a browser sends with the console's own POSTs (`app.api.origins` refuses a session's POST without it)."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'console.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
    with TestClient(create_app(Settings(database_url=url), reconciler=False), headers=SAME_ORIGIN) as test_client:
        yield test_client


def sign_in(client: TestClient, password: str = "dispatch-pass") -> None:
    response = client.post(
        "/login", data={"username": "dana", "password": password, "next": "/console/"}, follow_redirects=False
    )
    assert response.status_code == 303


def test_signed_out_visitors_are_sent_to_sign_in_and_the_event_endpoints_refuse(client: TestClient) -> None:
    response = client.get("/console/", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/login?next=/console/"
    assert client.get("/console/config").status_code == 401
    assert client.post("/console/gradio_api/queue/join", json={}).status_code == 401
    assert client.get("/console/gradio_api/info").status_code == 401
    assert client.get("/v1/incidents").status_code == 401


def test_a_wrong_password_gets_no_session_and_a_right_one_does_until_sign_out(client: TestClient) -> None:
    response = client.post("/login", data={"username": "dana", "password": "nope"}, follow_redirects=False)
    assert response.status_code == 303 and "error=" in response.headers["location"]
    assert COOKIE not in client.cookies
    sign_in(client)
    assert client.get("/console/", follow_redirects=False).status_code == 200
    assert client.get("/console/config").status_code == 200
    assert client.get("/v1/incidents").status_code == 200  # the console's session also reads the API
    token = client.cookies[COOKIE]
    assert client.get("/logout").status_code == 200  # a page with a button: a GET changes nothing
    assert client.get("/console/config").status_code == 200
    assert client.post("/logout", follow_redirects=False).status_code == 303
    client.cookies.set(COOKIE, token)  # the old cookie, replayed: the session ended on the server
    assert client.get("/console/config").status_code == 401
    assert client.get("/v1/incidents").status_code == 401


def test_the_sign_in_page_never_redirects_off_site(client: TestClient) -> None:
    response = client.post(
        "/login",
        data={"username": "dana", "password": "dispatch-pass", "next": "//evil.example/"},
        follow_redirects=False,
    )
    assert response.headers["location"] == "/console/"


def test_the_console_refuses_uploads(client: TestClient) -> None:
    sign_in(client)
    response = client.post("/console/gradio_api/upload", files={"files": ("notes.txt", b"hello")})
    assert response.status_code == 403


@pytest.fixture
def audited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """A supervisor (sue), a dispatcher (dana) and one incident; temporary files under tmp_path."""
    import tempfile

    from app.incidents.pipeline import store_message
    from app.intake.schemas import IntakeMessage

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
        add_user(session, "sue", "supervisor", "sue-password")
        store_message(session, "demo", "audit-1", IntakeMessage(text="Chest pain"))
    with TestClient(create_app(Settings(database_url=url), reconciler=False), headers=SAME_ORIGIN) as test_client:
        yield test_client


def export_link(client: TestClient) -> str:
    """Search the audit as the signed-in user over Gradio's API; the export's download path from the link."""
    started = client.post("/console/gradio_api/call/search_audit", json={"data": ["", "", "", 0]})
    assert started.status_code == 200
    stream = client.get(f"/console/gradio_api/call/search_audit/{started.json()['event_id']}")
    assert stream.status_code == 200 and "event: complete" in stream.text
    found = re.search(r'href=\\"(/console/exports/[A-Za-z0-9_-]+)\\"', stream.text)
    assert found is not None, stream.text
    return found.group(1)


def test_an_audit_export_is_private_to_its_supervisor_and_deleted_after_one_download(
    audited: TestClient, tmp_path: Path
) -> None:
    client = audited
    client.post("/login", data={"username": "sue", "password": "sue-password"}, follow_redirects=False)
    link = export_link(client)
    [file] = tmp_path.glob(f"triage-exports-*/{link.rsplit('/', 1)[1]}.csv")
    assert stat.S_IMODE(file.stat().st_mode) == 0o600 and stat.S_IMODE(file.parent.stat().st_mode) == 0o700
    assert client.get(f"/console/gradio_api/file={file}").status_code == 403  # not through Gradio's file route
    sign_in(client)  # dana, a signed-in dispatcher, with sue's link
    assert client.get(link).status_code == 404
    assert client.get(f"/console/gradio_api/file={file}").status_code == 403
    client.cookies.clear()
    assert client.get(link).status_code == 401
    client.post("/login", data={"username": "sue", "password": "sue-password"}, follow_redirects=False)
    response = client.get(link)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert (
        response.text.splitlines()[0]
        == "when,incident,who,what,change,reason,incident id,recorded before,recorded after"
    )
    assert ",intake (demo),call received," in response.text
    assert not file.exists()
    assert client.get(link).status_code == 404  # once only
    second, third = export_link(client), export_link(client)
    assert client.get(second).status_code == 404  # a new search replaces the previous export
    assert client.get(third).status_code == 200


def _app(client: TestClient) -> FastAPI:
    app = client.app
    assert isinstance(app, FastAPI)
    return app


def test_the_right_password_after_ten_wrong_ones_within_a_minute_gets_429(client: TestClient) -> None:
    settings: Settings = _app(client).state.settings
    _app(client).state.signin_throttle = throttle_for(settings, clock=lambda: 1_000.0)  # the default limits
    for _ in range(10):
        response = client.post("/login", data={"username": "dana", "password": "nope"}, follow_redirects=False)
        assert response.status_code == 303 and "error=credentials" in response.headers["location"]
    response = client.post(
        "/login", data={"username": "dana", "password": "dispatch-pass", "next": "/console/"}, follow_redirects=False
    )
    assert (response.status_code, response.headers["retry-after"]) == (429, "60")
    assert "Too many failed sign-ins: try again in 60 s." in response.text
    assert COOKIE not in client.cookies


def test_a_sign_in_hashes_in_a_worker_thread_while_the_event_loop_serves_healthz(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    hashing, released = threading.Event(), threading.Event()
    outcome: list[bool] = []

    def slow_verify(password: str, stored: str) -> bool:
        hashing.set()
        # Only the test releases it, after /healthz answered; if the hash held the event loop, /healthz could not
        # be served and the wait would end by its timeout instead (a deadlock breaker, not a measurement).
        outcome.append(released.wait(timeout=30))
        return verify_password(password, stored)

    monkeypatch.setattr(sessions, "verify_password", slow_verify)

    async def scenario() -> tuple[int, int]:
        transport = httpx.ASGITransport(app=_app(client))
        async with httpx.AsyncClient(transport=transport, base_url="http://console") as http:
            login = asyncio.create_task(
                http.post("/login", data={"username": "dana", "password": "dispatch-pass"}, follow_redirects=False)
            )
            assert await asyncio.to_thread(hashing.wait, 30)
            health = await http.get("/healthz")
            released.set()
            return health.status_code, (await login).status_code

    assert asyncio.run(scenario()) == (200, 303)
    assert outcome == [True]  # /healthz answered while the hash was in progress


def test_a_disabled_user_can_no_longer_sign_in_nor_use_a_session_or_token(client: TestClient) -> None:
    sign_in(client)
    settings: Settings = _app(client).state.settings
    with session_scope(settings.database_url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None
        api_token = issue_token(session, dana)
    bearer = {"Authorization": f"Bearer {api_token}"}
    assert client.get("/v1/incidents", headers=bearer).status_code == 200
    assert client.get("/console/config").status_code == 200
    with session_scope(settings.database_url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None
        done = disable_user(session, dana)
    assert (done.tokens_revoked, done.sessions_ended) == (1, 1)
    assert client.get("/console/config").status_code == 401
    assert client.get("/v1/incidents", headers=bearer).status_code == 401
    client.cookies.clear()
    response = client.post("/login", data={"username": "dana", "password": "dispatch-pass"}, follow_redirects=False)
    assert response.status_code == 303 and "error=credentials" in response.headers["location"]


@pytest.mark.parametrize(
    ("env", "cookie_secure", "name", "secure"),
    [
        ("development", None, "triage_session", False),  # plain http on a laptop: a Secure cookie would not stick
        ("development", True, "__Host-triage_session", True),
        ("production", None, "__Host-triage_session", True),
        ("production", False, "triage_session", False),  # a pilot served over plain HTTP (docs/deploy.md)
    ],
)
def test_the_session_cookie_is_a_host_cookie_whenever_it_is_secure(
    tmp_path: Path, env: str, cookie_secure: bool | None, name: str, secure: bool
) -> None:
    """`__Host-`: Secure, `Path=/`, no `Domain`, so a sibling subdomain or a plain-http page cannot set or shadow it."""
    url = f"sqlite:///{tmp_path / 'cookie.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
    settings = Settings(
        database_url=url,
        env=env,
        cookie_secure=cookie_secure,
        webhook_secrets={"cad": ["whsec_" + base64.b64encode(b"cookie-test-secret-32-random-byt").decode()]},
        redis_url="redis://127.0.0.1:1/0",  # production asks for one; nothing here reaches it
        allowed_hosts=("testserver",),
    )
    assert settings.session_cookie_secure is secure
    with TestClient(create_app(settings, reconciler=False), base_url="https://testserver") as client:
        response = client.post("/login", data={"username": "dana", "password": "dispatch-pass"}, follow_redirects=False)
        cookie = response.headers["set-cookie"]
        assert cookie.startswith(f"{name}=") and "HttpOnly" in cookie and "Path=/" in cookie
        assert "Domain" not in cookie and ("Secure" in cookie) is secure
        assert client.get("/console/config").status_code == 200
        out = client.post("/logout", headers={"Origin": "https://testserver"}, follow_redirects=False)
        cleared = out.headers["set-cookie"]
        assert cleared.startswith(f'{name}=""') and ("Secure" in cleared) is secure and "Path=/" in cleared


def test_a_plain_cookie_beside_the_host_cookie_is_ignored(tmp_path: Path) -> None:
    """With the `__Host-` cookie in use, a `triage_session` cookie (which a sibling subdomain could toss in) is no
    session, even a live one's token."""
    url = f"sqlite:///{tmp_path / 'tossed.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
    settings = Settings(database_url=url, cookie_secure=True)
    with TestClient(create_app(settings, reconciler=False), base_url="https://testserver") as client:
        client.post("/login", data={"username": "dana", "password": "dispatch-pass"}, follow_redirects=False)
        token = client.cookies["__Host-triage_session"]
        client.cookies.clear()
        client.cookies.set("triage_session", token)
        assert client.get("/console/config").status_code == 401
        assert client.get("/v1/incidents").status_code == 401
