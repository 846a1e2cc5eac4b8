"""Gradio's own routes under /console held to the console session, against a real uvicorn: each needs the session,
its streams end with the session (or their lifetime), a session holds a bounded number of them, and one session
cannot read or cancel another's queue results, by session hash or by event id."""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.api.main import create_app
from app.auth.accounts import add_user
from app.console.sessions import end_sessions
from app.db.migrate import upgrade
from app.db.models import User
from app.db.session import session_scope
from app.settings import Settings
from tests.app.live_server import loopback_config, serving

HEARTBEAT_S = "0.2"
"""Gradio's heartbeat interval in these tests (GRADIO_HEARTBEAT_INTERVAL; 15 s by default)."""


@dataclass
class Site:
    console: str
    database_url: str

    def signed_in(self, name: str) -> httpx.Client:
        client = httpx.Client(base_url=self.console, headers={"Origin": self.console}, timeout=10)
        answer = client.post("/login", data={"username": name, "password": f"{name}-password"})
        assert answer.status_code == 303, answer.text
        return client

    def fn_index(self, client: httpx.Client, api_name: str) -> int:
        config = client.get("/console/config").json()
        [index] = [dep["id"] for dep in config["dependencies"] if dep.get("api_name") == api_name]
        return int(index)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('gradio')) / 'gradio.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dana-password")
        add_user(session, "carl", "call-taker", "carl-password")
    config = loopback_config(create_app(Settings(database_url=url), reconciler=False))
    with serving(config):
        yield Site(f"http://127.0.0.1:{config.port}", url)


@pytest.fixture(autouse=True)
def quick_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADIO_HEARTBEAT_INTERVAL", HEARTBEAT_S)


def sign_out_everywhere(site: Site, name: str) -> None:
    with session_scope(site.database_url) as session:
        user = session.scalar(select(User).where(User.name == name))
        assert user is not None
        end_sessions(session, user)


def stream_ends_within(chunks: Iterator[bytes], seconds: float) -> bool:
    """Read the stream until it ends (True) or `seconds` pass (False)."""
    deadline = time.monotonic() + seconds
    for _ in chunks:
        if time.monotonic() > deadline:
            return False
    return time.monotonic() <= deadline


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/console/gradio_api/heartbeat/any-hash", None),
        ("POST", "/console/gradio_api/cancel", {"session_hash": "any-hash", "fn_index": 0, "event_id": "e"}),
        ("POST", "/console/gradio_api/stream/any-event", {"data": []}),
        ("GET", "/console/gradio_api/stream/any-hash/run/1/playlist.m3u8", None),
        ("GET", "/console/gradio_api/startup-events", None),
    ],
)
def test_gradio_routes_that_asked_no_session_now_need_it(site: Site, method: str, path: str, body: object) -> None:
    anonymous = httpx.Client(base_url=site.console, headers={"Origin": site.console}, timeout=10)
    with anonymous, anonymous.stream(method, path, json=body) as response:
        assert response.status_code == 401
        assert json.loads(response.read()) == {"detail": "sign in to the console first"}


@pytest.mark.parametrize("ending", ["session ended", "lifetime over"])
def test_a_heartbeat_ends_with_its_console_session_or_its_lifetime(
    site: Site, monkeypatch: pytest.MonkeyPatch, ending: str
) -> None:
    """The probe held 300 heartbeats past every read deadline: each now lives only as long as its session, and at
    most its lifetime."""
    if ending == "lifetime over":
        monkeypatch.setattr("app.console.gradio_guard.STREAM_LIFETIME_S", 1.0)
    dana = site.signed_in("dana")
    with dana.stream("GET", f"/console/gradio_api/heartbeat/{uuid.uuid4().hex}") as heartbeat:
        assert heartbeat.status_code == 200
        chunks = heartbeat.iter_raw()
        assert next(chunks).startswith(b"data: ALIVE")
        if ending == "session ended":
            sign_out_everywhere(site, "dana")
        assert stream_ends_within(chunks, 6.0), ending
    dana.close()


def test_a_session_holds_a_bounded_number_of_gradio_streams(site: Site) -> None:
    from app.console.gradio_guard import MAX_STREAMS_PER_SESSION

    dana, carl = site.signed_in("dana"), site.signed_in("carl")
    with contextlib.ExitStack() as held:
        opened = [
            held.enter_context(dana.stream("GET", f"/console/gradio_api/heartbeat/{uuid.uuid4().hex}"))
            for _ in range(MAX_STREAMS_PER_SESSION)
        ]
        assert [response.status_code for response in opened] == [200] * MAX_STREAMS_PER_SESSION
        with dana.stream("GET", f"/console/gradio_api/heartbeat/{uuid.uuid4().hex}") as refused:
            assert refused.status_code == 429 and refused.headers["retry-after"] == "30"
            detail = json.loads(refused.read())["detail"]
        assert detail.startswith(f"this console session already holds {MAX_STREAMS_PER_SESSION} of the console's")
        with carl.stream("GET", f"/console/gradio_api/heartbeat/{uuid.uuid4().hex}") as other:
            assert other.status_code == 200  # another session is not held back
    sign_out_everywhere(site, "dana")
    for client in (dana, carl):
        client.close()


def test_another_session_cannot_read_a_session_s_queue_results_by_its_session_hash(site: Site) -> None:
    dana, carl = site.signed_in("dana"), site.signed_in("carl")
    session_hash = uuid.uuid4().hex[:11]  # as Gradio's page makes one
    join = {"data": [], "event_data": None, "fn_index": site.fn_index(dana, "whoami"), "session_hash": session_hash}
    joined = dana.post("/console/gradio_api/queue/join", json=join)
    assert joined.status_code == 200, joined.text
    time.sleep(1.0)  # the event runs; its results wait for their reader
    try:
        stolen = carl.get("/console/gradio_api/queue/data", params={"session_hash": session_hash}).text
    except httpx.RemoteProtocolError:  # Gradio refuses a hash not of this session once its stream has begun: cut off
        stolen = ""
    assert "dana" not in stolen and "process_completed" not in stolen
    own = dana.get("/console/gradio_api/queue/data", params={"session_hash": session_hash})
    assert "process_completed" in own.text and "Signed in as <b>dana</b>" in own.text
    for client in (dana, carl):
        client.close()


def test_another_session_cannot_read_or_cancel_an_event_by_its_id(site: Site) -> None:
    dana, carl = site.signed_in("dana"), site.signed_in("carl")
    started = dana.post("/console/gradio_api/call/whoami", json={"data": []})
    assert started.status_code == 200
    event_id = started.json()["event_id"]
    stolen = carl.get(f"/console/gradio_api/call/whoami/{event_id}")
    assert stolen.status_code == 404 and "dana" not in stolen.text
    cancel = {"session_hash": "any", "fn_index": site.fn_index(carl, "whoami"), "event_id": event_id}
    assert carl.post("/console/gradio_api/cancel", json=cancel).status_code == 404
    own = dana.get(f"/console/gradio_api/call/whoami/{event_id}")
    assert own.status_code == 200 and "event: complete" in own.text and "dana" in own.text
    for client in (dana, carl):
        client.close()
