"""The queue's stream: the whole view first, then only what changed (never the wait clocks), to signed-in users."""

from __future__ import annotations

import base64
import datetime as dt
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.api.main import create_app
from app.auth.accounts import add_user
from app.auth.users import disable_user
from app.console import queue_stream
from app.console.queue_stream import QUEUE_SHELL, STREAM_PATH, QueueView, queue_patch, read_view
from app.console.sessions import end_sessions
from app.db.migrate import upgrade
from app.db.models import Incident, User, utcnow
from app.db.session import session_scope
from app.intake.limits import SourceCounts
from app.intake.signatures import signed_headers
from app.redis.shared_value import SharedValue
from app.settings import Settings
from app.status.engine import EngineStatus

NOW = dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def url(tmp_path: Path) -> str:
    database_url = f"sqlite:///{tmp_path / 'stream.db'}"
    upgrade(database_url)
    with session_scope(database_url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
        for index, (level, age_s) in enumerate([(3, 100), (1, 20)]):
            session.add(incident(f"i{index}", level, NOW - dt.timedelta(seconds=age_s)))
    return database_url


def incident(incident_id: str, level: int, accepted: dt.datetime) -> Incident:
    return Incident(
        id=incident_id,
        source="cad",
        webhook_id=incident_id,
        text=f"call {incident_id}",
        chief_complaint=f"call {incident_id}",
        esi_level=level,
        accepted_at=accepted,
        guidance_state="queued",
    )


class FixedEngine:
    def __init__(self, status: EngineStatus) -> None:
        self.status = status

    def get(self) -> EngineStatus:
        return self.status


def test_the_first_patch_is_the_whole_view_and_a_clock_tick_alone_sends_nothing(url: str) -> None:
    first = read_view(url, None, now_s=NOW.timestamp())
    patch = queue_patch(None, first)
    assert patch is not None
    assert (patch["shell"], patch["order"], patch["urgent"], patch["banner"]) == (QUEUE_SHELL, ["i1", "i0"], ["i1"], "")
    assert f'data-since="{(NOW - dt.timedelta(seconds=20)).timestamp():.3f}">0:20</td>' in patch["rows"]["i1"]
    later = read_view(url, None, now_s=NOW.timestamp() + 45)  # i1 turns amber, i0's clock moves on: no change
    assert 'class="wait-late"' in later.rows["i1"] and later.rows != first.rows
    assert queue_patch(first, later) is None


def test_a_new_call_a_change_and_a_close_send_those_rows_and_the_order_only(url: str) -> None:
    before = read_view(url, None, now_s=NOW.timestamp())
    with session_scope(url) as session:
        session.add(incident("i2", 2, NOW))
        session.get(Incident, "i0").guidance_state = "generating"  # type: ignore[union-attr]
        session.get(Incident, "i1").status = "closed"  # type: ignore[union-attr]
    after = read_view(url, None, now_s=NOW.timestamp() + 1)
    patch = queue_patch(before, after)
    assert patch is not None
    assert sorted(patch) == ["now", "order", "removed", "rows", "urgent"]
    assert sorted(patch["rows"]) == ["i0", "i2"] and ">generating</td>" in patch["rows"]["i0"]
    assert (patch["removed"], patch["order"], patch["urgent"]) == (["i1"], ["i2", "i0"], ["i2"])


def test_the_banner_is_sent_when_guidance_goes_down_and_queued_rows_say_so(url: str) -> None:
    engine = FixedEngine(EngineStatus(True, "serving", engines=1))
    before = read_view(url, engine, now_s=NOW.timestamp())  # type: ignore[arg-type]
    engine.status = EngineStatus(False, "unavailable", "model m cannot be downloaded", 1)
    after = read_view(url, engine, now_s=NOW.timestamp())  # type: ignore[arg-type]
    patch = queue_patch(before, after)
    assert patch is not None and patch["banner"].startswith('<div class="engine-banner down"')
    down_cell = (
        '<td class="engine-unavailable" title="guidance unavailable: read the protocol card">guidance unavailable</td>'
    )
    assert all(down_cell in row for row in patch["rows"].values()) and len(patch["rows"]) == 2
    assert "model m" not in patch["banner"]  # the cause is for supervisors
    supervisors = queue_patch(before, after, supervisor=True)
    assert supervisors is not None and "Cause: model m cannot be downloaded." in supervisors["banner"]


def test_one_read_serves_every_console_within_a_tick(url: str) -> None:
    reads: list[float] = []
    now = [0.0]

    def read() -> QueueView:
        reads.append(now[0])
        return read_view(url, None, now_s=NOW.timestamp())

    shared = SharedValue(read, ttl_s=1.0, clock=lambda: now[0])
    assert shared.get() is shared.get()
    now[0] = 0.99
    shared.get()
    now[0] = 1.0
    shared.get()
    assert reads == [0.0, 1.0]


@pytest.fixture
def client(url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=url), reconciler=False)) as test_client:
        yield test_client


def events(client: TestClient, count: int) -> list[dict[str, object]]:
    """The first `count` queue events of one stream, then the stream is closed."""
    found = []
    with client.stream("GET", STREAM_PATH) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data: "):
                found.append(json.loads(line[len("data: ") :]))
                if len(found) == count:
                    break
                with session_scope(client.app.state.settings.database_url) as session:  # type: ignore[attr-defined]
                    session.add(incident("i9", 1, utcnow()))
    return found


def test_the_stream_needs_a_session_and_pushes_the_view_then_the_change(client: TestClient) -> None:
    assert client.get(STREAM_PATH).status_code == 401
    client.post("/login", data={"username": "dana", "password": "dispatch-pass"}, follow_redirects=False)
    first, second = events(client, 2)
    assert first["order"] == ["i1", "i0"] and "shell" in first
    assert second["order"] == ["i1", "i9", "i0"] and list(second["rows"]) == ["i9"]  # type: ignore[call-overload]
    assert "shell" not in second


def test_supervisors_see_a_banner_while_a_source_is_over_its_limit_and_others_do_not(url: str) -> None:
    flooding = {"cad": SourceCounts("120 per 1 minute, 30 per 10 second", 30, 57)}
    calm = read_view(url, None, now_s=NOW.timestamp(), over_limit=dict)
    over = read_view(url, None, now_s=NOW.timestamp(), over_limit=lambda: flooding)
    patch = queue_patch(calm, over, supervisor=True)
    assert patch is not None
    assert patch["banner"] == (
        '<div class="engine-banner intake" role="alert"><b>Intake flood:</b> source <b>cad</b> is over its limit '
        "(120 per 1 minute, 30 per 10 second): 57 calls refused in the last minute. Each refused call was told to "
        "retry (429) and nothing was stored; other sources are served in turn. "
        "<code>triage-dispatch sources suspend cad</code> stops it.</div>"
    )
    assert queue_patch(calm, over, supervisor=False) is None
    assert queue_patch(over, calm, supervisor=True) == {"banner": "", "now": NOW.timestamp()}


def test_a_supervisors_stream_names_the_source_refused_by_intake(url: str) -> None:
    secret = "whsec_" + base64.b64encode(b"cad-vendor-secret-32-random-byte").decode()
    settings = Settings(database_url=url, webhook_secrets={"cad": [secret]}, intake_limits={"cad": "1/minute"})
    with session_scope(url) as session:
        add_user(session, "sam", "supervisor", "supervise-pass")
    with TestClient(create_app(settings, reconciler=False)) as client:
        for n in range(3):
            body = json.dumps({"text": f"call {n}"}).encode()
            client.post("/v1/intake/cad", content=body, headers=signed_headers(secret, f"m{n}", body))
        client.post("/login", data={"username": "sam", "password": "supervise-pass"}, follow_redirects=False)
        (first,) = events(client, 1)
    assert "source <b>cad</b> is over its limit (1 per 1 minute): 2 calls refused" in str(first["banner"])


def end_dana_sessions(url: str) -> None:
    with session_scope(url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None
        assert end_sessions(session, dana) == 1


def disable_dana(url: str) -> None:
    with session_scope(url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None
        disable_user(session, dana)


def make_dana_a_call_taker(url: str) -> None:
    with session_scope(url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None
        dana.role = "call-taker"


@pytest.mark.parametrize("revoke", [end_dana_sessions, disable_dana, make_dana_a_call_taker])
def test_an_open_stream_ends_within_seconds_of_a_revocation_or_a_role_change(
    client: TestClient, url: str, revoke: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_stream, "STREAM_LIFETIME_S", 30.0)  # how long the stream would otherwise last
    client.post(
        "/login", data={"username": "dana", "password": "dispatch-pass"}, headers={"Origin": "http://testserver"}
    )
    lines_after: list[str] = []
    with client.stream("GET", STREAM_PATH) as response:
        lines = response.iter_lines()
        assert next(line for line in lines if line.startswith("data: "))  # the whole view: the stream is open
        revoke(url)
        revoked_at = time.monotonic()
        lines_after.extend(lines)  # until the server ends the stream
        ended_after_s = time.monotonic() - revoked_at
    assert ended_after_s < 10.0, f"the stream went on {ended_after_s:.1f} s after the revocation"
    assert [line for line in lines_after if line.startswith("data: ")] == []
    assert client.get(STREAM_PATH).status_code == (200 if revoke is make_dana_a_call_taker else 401)
