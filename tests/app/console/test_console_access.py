"""Console sign-in and what a signed-out visitor gets (no browser: HTTP only)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.auth import add_user
from app.console.sessions import COOKIE
from app.db.migrate import upgrade
from app.db.session import session_scope
from app.settings import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'console.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
    with TestClient(create_app(Settings(database_url=url), reconciler=False)) as test_client:
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
