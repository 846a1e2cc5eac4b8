"""Security headers on every response: the API, intake, the sign-in page, the console and the refusals."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.headers import CONTENT_SECURITY_POLICY, with_security_headers
from app.api.main import create_app
from app.auth.accounts import add_user
from app.db.migrate import upgrade
from app.db.session import session_scope
from app.settings import Settings

EXPECTED = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'headers.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
    with TestClient(create_app(Settings(database_url=url, redis_url=None), reconciler=False)) as test_client:
        yield test_client


def security_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {name: headers.get(name, "") for name in EXPECTED}


def test_the_api_intake_and_sign_in_answers_carry_the_security_headers(client: TestClient) -> None:
    answers = [
        (client.get("/healthz"), 200),
        (client.get("/v1/incidents"), 401),
        (client.post("/v1/intake/nobody", content=b"{}"), 404),
        (client.post("/v1/intake/demo", content=b"{}"), 401),
        (client.post("/v1/incidents/x/notes", content=b"x" * 70_000), 413),
        (client.get("/login"), 200),
    ]
    for response, status in answers:
        assert response.status_code == status, response.request.url
        assert security_headers(response.headers) == EXPECTED, response.request.url


def test_the_console_carries_the_security_headers_signed_out_and_in(client: TestClient) -> None:
    signed_out = client.get("/console/", follow_redirects=False)
    assert signed_out.status_code == 303 and security_headers(signed_out.headers) == EXPECTED
    assert security_headers(client.get("/console/config").headers) == EXPECTED  # Gradio's own 401
    response = client.post("/login", data={"username": "dana", "password": "dispatch-pass"}, follow_redirects=False)
    assert response.status_code == 303 and security_headers(response.headers) == EXPECTED
    page = client.get("/console/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert security_headers(page.headers) == EXPECTED
    config = client.get("/console/config")
    assert config.status_code == 200 and security_headers(config.headers) == EXPECTED
    assert page.headers.get_list("x-frame-options") == ["DENY"]  # set once, whoever else might set it


def test_a_header_the_response_set_itself_is_kept_and_not_repeated() -> None:
    own = [(b"Content-Type", b"text/plain"), (b"X-Frame-Options", b"SAMEORIGIN")]
    headers = with_security_headers(own)
    assert headers[:2] == own
    assert [name for name, _ in headers[2:]] == [
        b"content-security-policy",
        b"referrer-policy",
        b"x-content-type-options",
    ]


@pytest.mark.parametrize("path", ["/console/config", "/console/gradio_api/info", "/v1/incidents", "/login"])
def test_no_other_origin_is_allowed_to_read_or_drive_the_console_or_the_api(client: TestClient, path: str) -> None:
    # Gradio's own CORS reflects any Origin, with credentials, when the host is not localhost: a page on another
    # port or a sibling subdomain could then act as the signed-in dispatcher.
    evil = {"Origin": "http://evil.example"}
    simple = client.get(path, headers=evil)
    assert "access-control-allow-origin" not in simple.headers
    preflight = client.options(path, headers={**evil, "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in preflight.headers
    assert preflight.status_code == 400
