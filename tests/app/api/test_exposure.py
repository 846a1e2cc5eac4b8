"""What the web app shows and to whom: allowed hosts (and no forwarded host in Gradio's root), HSTS behind TLS, the
API docs and /metrics in production, and console uploads."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.auth.accounts import add_user
from app.db.migrate import upgrade
from app.db.session import session_scope
from app.settings import Settings

REAL = "whsec_" + base64.b64encode(b"production-secret-32-random-byte").decode()
OWN = {"Origin": "http://testserver"}


@pytest.fixture
def url(tmp_path: Path) -> str:
    database_url = f"sqlite:///{tmp_path / 'exposure.db'}"
    upgrade(database_url)
    with session_scope(database_url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
    return database_url


def production(url: str, redis_url: str, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "env": "production",
        "database_url": url,
        "redis_url": redis_url,
        "webhook_secrets": {"cad": [REAL]},
        "allowed_hosts": ("testserver",),
        **overrides,
    }
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture
def signed_in(url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=url), reconciler=False), headers=OWN) as client:
        client.post("/login", data={"username": "dana", "password": "dispatch-pass"})
        yield client


def test_a_host_that_is_not_allowed_is_refused(url: str) -> None:
    settings = Settings(database_url=url, allowed_hosts=("console.example.org", "127.0.0.1"))
    with TestClient(create_app(settings, reconciler=False), base_url="http://console.example.org") as client:
        assert client.get("/healthz").status_code == 200
        assert client.get("/healthz", headers={"Host": "127.0.0.1:8000"}).status_code == 200
        evil = client.get("/login", headers={"Host": "evil.example"})
        assert (evil.status_code, evil.text) == (400, "Invalid host header")


def test_a_forwarded_host_never_becomes_the_console_s_root(signed_in: TestClient) -> None:
    forged = {"X-Forwarded-Host": "evil.example", "X-Gradio-Server": "http://evil.example/"}
    config = signed_in.get("/console/config", headers=forged)
    assert config.status_code == 200
    assert config.json()["root"] == "http://testserver/console"


def test_hsts_is_sent_when_the_cookie_is_secure_only(url: str) -> None:
    with TestClient(create_app(Settings(database_url=url, cookie_secure=True), reconciler=False)) as client:
        assert client.get("/healthz").headers["strict-transport-security"] == "max-age=31536000"
    with TestClient(create_app(Settings(database_url=url), reconciler=False)) as client:
        assert "strict-transport-security" not in client.get("/healthz").headers


def test_the_api_docs_are_off_in_production(url: str, redis_url: str) -> None:
    with TestClient(create_app(production(url, redis_url), reconciler=False, console=False)) as client:
        assert [client.get(path).status_code for path in ("/docs", "/redoc", "/openapi.json")] == [404, 404, 404]
    with TestClient(create_app(Settings(database_url=url), reconciler=False, console=False)) as client:
        assert [client.get(path).status_code for path in ("/docs", "/redoc", "/openapi.json")] == [200, 200, 200]


def test_metrics_need_the_token_or_are_off_in_production(url: str, redis_url: str) -> None:
    with TestClient(create_app(production(url, redis_url), reconciler=False, console=False)) as client:
        assert client.get("/metrics").status_code == 404
    token = "metrics-token-0123456789abcdef"
    settings = production(url, redis_url, metrics_token=token)
    with TestClient(create_app(settings, reconciler=False, console=False)) as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
        answer = client.get("/metrics", headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200 and "triage_intake" in answer.text
    with TestClient(create_app(Settings(database_url=url), reconciler=False, console=False)) as client:
        assert client.get("/metrics").status_code == 200  # development: open unless a token is set


@pytest.mark.parametrize("content", [b"", b"hello"])
def test_the_console_refuses_every_upload_whatever_its_size(signed_in: TestClient, content: bytes) -> None:
    for path in ("/console/gradio_api/upload", "/console/upload"):
        response = signed_in.post(path, files={"files": ("notes.txt", content)})
        assert (response.status_code, response.json()) == (403, {"detail": "the console takes no files"}), path


def test_production_refuses_any_host_and_a_short_metrics_token(url: str, redis_url: str) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="TRIAGE_ALLOWED_HOSTS"):
        production(url, redis_url, allowed_hosts=("*",))
    with pytest.raises(ValidationError, match="TRIAGE_METRICS_TOKEN"):
        production(url, redis_url, metrics_token="short")
