"""The first run: `/` leads to the console, and the one-time setup link creates exactly one first supervisor."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.api.main import create_app
from app.auth.accounts import add_user
from app.console.first_run import SetupLink, needs_setup
from app.console.sessions import COOKIE
from app.db.migrate import upgrade
from app.db.models import User
from app.db.session import session_scope
from app.settings import Settings

SAME_ORIGIN = {"Origin": "http://testserver"}
"""What a browser sends with the console's own POSTs (`app.api.origins` refuses a session's POST without it)."""


@pytest.fixture
def url(tmp_path: Path) -> str:
    database_url = f"sqlite:///{tmp_path / 'first-run.db'}"
    upgrade(database_url)
    return database_url


@pytest.fixture
def first_run(url: str) -> Iterator[tuple[TestClient, str]]:
    token, link = SetupLink.issue()
    with TestClient(
        create_app(Settings(database_url=url), reconciler=False, setup_link=link), headers=SAME_ORIGIN
    ) as client:
        yield client, token


def users(url: str) -> list[tuple[str, str]]:
    with session_scope(url) as session:
        return [(user.name, user.role) for user in session.scalars(select(User))]


def form(token: str, password: str = "first-supervisor", again: str | None = None) -> dict[str, str]:
    return {"token": token, "username": "sue", "password": password, "password2": again or password}


def test_the_link_creates_the_first_supervisor_signed_in_and_then_is_spent(
    first_run: tuple[TestClient, str], url: str
) -> None:
    client, token = first_run
    assert needs_setup(url) is True
    assert client.get("/setup", params={"token": "guessed"}).status_code == 404
    page = client.get("/setup", params={"token": token})
    assert page.status_code == 200 and "Create the first supervisor" in page.text and token in page.text
    short = client.post("/setup", data=form(token, "short"), follow_redirects=False)
    assert short.status_code == 422 and "at least 10 characters" in short.text
    differ = client.post("/setup", data=form(token, "first-supervisor", "first-superviso"), follow_redirects=False)
    assert differ.status_code == 422 and "The two passwords differ." in differ.text
    assert users(url) == []
    created = client.post("/setup", data=form(token), follow_redirects=False)
    assert (created.status_code, created.headers["location"]) == (303, "/console/")
    assert COOKIE in client.cookies and "HttpOnly" in created.headers["set-cookie"]
    assert users(url) == [("sue", "supervisor")]
    assert client.get("/console/", follow_redirects=False).status_code == 200  # signed in as sue
    again = client.post("/setup", data={**form(token), "username": "mallory"}, follow_redirects=False)
    assert again.status_code == 404 and "no longer valid" in again.text
    assert client.get("/setup", params={"token": token}).status_code == 404
    assert users(url) == [("sue", "supervisor")] and needs_setup(url) is False


def test_a_user_added_meanwhile_spends_the_link(first_run: tuple[TestClient, str], url: str) -> None:
    client, token = first_run
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
    assert client.get("/setup", params={"token": token}).status_code == 404
    assert client.post("/setup", data=form(token), follow_redirects=False).status_code == 404
    with session_scope(url) as session:
        assert session.scalar(select(func.count()).select_from(User)) == 1


def test_without_a_link_there_is_no_setup_page_and_the_root_leads_to_the_console(url: str) -> None:
    with TestClient(create_app(Settings(database_url=url), reconciler=False)) as client:
        assert client.get("/setup", params={"token": "x"}).status_code == 404
        assert client.post("/setup", data=form("x"), follow_redirects=False).status_code == 404
        root = client.get("/", follow_redirects=False)
        assert (root.status_code, root.headers["location"]) == (303, "/console/")
        assert client.get("/console/", follow_redirects=False).headers["location"] == "/login?next=/console/"


@pytest.mark.parametrize(
    ("username", "password", "said"),
    [
        ("sue\nroot", "first-supervisor", "A user name is 1 to 64 characters"),
        ("<b>sue</b>", "first-supervisor", "A user name is 1 to 64 characters"),
        ("sue", "sue", "A password needs at least 10 characters."),
        ("supervisor", "Supervisor", "A password cannot be the user name."),
    ],
)
def test_setup_holds_the_rule_users_add_holds(
    first_run: tuple[TestClient, str], url: str, username: str, password: str, said: str
) -> None:
    client, token = first_run
    response = client.post(
        "/setup",
        data={"token": token, "username": username, "password": password, "password2": password},
        follow_redirects=False,
    )
    assert response.status_code == 422 and said in response.text
    assert users(url) == []
