"""Body limits before authentication: the API's and the console's, declared and streamed, and what still passes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send

from app.api.limits import CONSOLE_MAX_BODY_BYTES, BodyLimitMiddleware, limit_for
from app.api.main import create_app
from app.auth.accounts import add_user, issue_token
from app.db.migrate import upgrade
from app.db.session import session_scope
from app.settings import Settings

NOTES = "/v1/incidents/no-such-incident/notes"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    url = f"sqlite:///{tmp_path / 'limits.db'}"
    upgrade(url)
    return Settings(database_url=url, redis_url=None)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, reconciler=False)) as test_client:
        yield test_client


@pytest.fixture
def token(settings: Settings) -> dict[str, str]:
    with session_scope(settings.database_url) as session:
        user = add_user(session, "dana", "dispatcher", "dispatch-pass")
        return {"authorization": f"Bearer {issue_token(session, user, 'tests')}"}


def test_a_30_mb_json_body_without_a_token_is_refused_with_413_before_authentication(client: TestClient) -> None:
    body = json.dumps({"note": "x" * 30_000_000}).encode()
    response = client.post(NOTES, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"detail": "body over 65536 bytes"}


def test_a_streamed_body_without_content_length_is_refused_past_the_limit(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"note": "'
        for _ in range(10):
            yield b"x" * 10_000
        yield b'"}'

    response = client.post(NOTES, content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"detail": "body over 65536 bytes"}


def test_a_body_within_the_limit_reaches_the_route_and_its_authentication(
    client: TestClient, token: dict[str, str]
) -> None:
    body = json.dumps({"note": "x" * 60_000}).encode()
    headers = {"content-type": "application/json"}
    assert client.post(NOTES, content=body, headers=headers).status_code == 401
    response = client.post(NOTES, content=body, headers={**headers, **token})
    assert response.status_code == 404  # past authentication: the route looked for the incident
    assert client.get("/v1/incidents", headers=token).status_code == 200


def test_the_console_has_its_own_bounded_limit(client: TestClient) -> None:
    join = "/console/gradio_api/queue/join"
    medium = {"data": ["x" * 100_000], "fn_index": 0, "session_hash": "s"}  # over the API's limit, not the console's
    assert client.post(join, json=medium).status_code == 401  # the session check answers
    large = b"x" * (CONSOLE_MAX_BODY_BYTES + 1)
    response = client.post(join, content=large, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"detail": f"body over {CONSOLE_MAX_BODY_BYTES} bytes"}
    assert client.post("/login", content=b"x" * 70_000).status_code == 413  # the sign-in form: the API's limit


def test_limit_for_takes_the_first_matching_prefix_and_none_leaves_it_to_the_route() -> None:
    limits = [("/console/", 1000), ("/v1/intake/", None)]
    assert limit_for("/console", limits, 10) == 1000
    assert limit_for("/console/gradio_api/upload", limits, 10) == 1000
    assert limit_for("/consoles", limits, 10) == 10
    assert limit_for("/v1/intake/cad", limits, 10) is None
    assert limit_for("/v1/incidents", limits, 10) == 10


def run_asgi(app: BodyLimitMiddleware, chunks: list[bytes]) -> list[Message]:
    """One POST through the middleware, its body in `chunks` (no Content-Length); the messages sent back."""
    scope: Scope = {"type": "http", "method": "POST", "path": "/", "headers": [], "query_string": b""}
    pending = [
        {"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1}
        for index, chunk in enumerate(chunks)
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return pending.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent


def test_an_app_that_swallows_the_error_still_answers_413() -> None:
    async def forgiving(scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await Request(scope, receive).body()
            response = JSONResponse({"read": True})
        except Exception:  # the case under test: an app that answers whatever happens
            response = JSONResponse({"detail": "bad body"}, status_code=400)
        await response(scope, receive, send)

    middleware = BodyLimitMiddleware(forgiving, default=100)
    sent = run_asgi(middleware, [b"x" * 60, b"x" * 60, b"x" * 60])
    assert [message["type"] for message in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"]) == {"detail": "body over 100 bytes"}
    sent = run_asgi(middleware, [b"x" * 50, b"x" * 50])
    assert sent[0]["status"] == 200 and json.loads(sent[1]["body"]) == {"read": True}


def test_only_the_clients_time_counts_against_the_body_deadline() -> None:
    """A server slow to read a call (a busy machine, a full thread pool) never refuses it for its own delay; a client
    slow to send is refused once its own waiting passes the deadline."""

    async def busy(scope: Scope, receive: Receive, send: Send) -> None:
        await asyncio.sleep(2.0)  # the app reads the body late: the server's delay, not the client's
        body = await Request(scope, receive).body()
        await JSONResponse({"read": len(body)})(scope, receive, send)

    sent = run_asgi(BodyLimitMiddleware(busy, default=100, timeout_s=1.0), [b"x" * 10])
    assert sent[0]["status"] == 200 and json.loads(sent[1]["body"]) == {"read": 10}

    async def trickle(scope: Scope, receive: Receive, send: Send) -> None:
        body = await Request(scope, receive).body()
        await JSONResponse({"read": len(body)})(scope, receive, send)

    async def slow_client() -> list[Message]:
        chunks = [b"x", b"x", b"x"]
        sent: list[Message] = []

        async def receive() -> Message:
            await asyncio.sleep(0.6)  # the client: a byte now and then
            chunk = chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

        async def send(message: Message) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/v1/intake/cad", "headers": []}
        await BodyLimitMiddleware(trickle, default=100, timeout_s=1.0)(scope, receive, send)
        return sent

    slow = asyncio.run(slow_client())
    assert slow[0]["status"] == 408 and json.loads(slow[1]["body"]) == {"detail": "body not received within 1 s"}
