"""`triage-dispatch sources ...` through the real Typer app, and what intake then answers: list, suspend, resume,
rotate-secret (a new secret accepted beside the old one for the grace, then alone)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from typer.testing import CliRunner

from app.api.main import create_app
from app.cli.main import cli
from app.db.migrate import upgrade
from app.db.models import Incident, IntakeSource, SourceSecret
from app.db.session import session_scope
from app.intake.limits import source_limits_for
from app.intake.signatures import signed_headers
from app.redis.queueing import redis_client
from app.settings import Settings, get_settings
from tests.app.cli_output import contains

runner = CliRunner()
CAD_SECRET = "whsec_" + base64.b64encode(b"cad-vendor-secret-32-random-byte").decode()
PAGER_SECRET = "whsec_" + base64.b64encode(b"pager-gateway-secret-32-random!!").decode()


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    url = f"sqlite:///{tmp_path / 'sources.db'}"
    upgrade(url)
    monkeypatch.setenv("TRIAGE_DATABASE_URL", url)
    monkeypatch.setenv("TRIAGE_WEBHOOK_SECRETS", json.dumps({"cad": [CAD_SECRET], "pager": [PAGER_SECRET]}))
    monkeypatch.setenv("TRIAGE_INTAKE_LIMITS", json.dumps({"pager": "10/minute"}))
    monkeypatch.delenv("TRIAGE_REDIS_URL", raising=False)
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(cli, ["sources", *args])
    return result.exit_code, result.output


def post(client: TestClient, source: str, secret: str, text: str = "Chest pain, sweating") -> int:
    body = json.dumps({"text": text}).encode()
    response = client.post(f"/v1/intake/{source}", content=body, headers=signed_headers(secret, uuid.uuid4().hex, body))
    return response.status_code


def stored(settings: Settings) -> int:
    with session_scope(settings.database_url) as session:
        return session.scalar(select(func.count()).select_from(Incident)) or 0


def test_list_shows_each_sources_limit_state_and_secret_count_never_a_secret(settings: Settings) -> None:
    assert invoke("suspend", "pager", "--reason", "flooding") == (0, "source pager suspended\n")
    code, output = invoke("list")
    assert code == 0
    lines = output.splitlines()
    assert lines[0].split() == ["SOURCE", "LIMIT", "STATE", "CALLS", "REFUSED/MIN", "SECRETS"]
    assert lines[1].split() == [
        "cad",
        "120",
        "per",
        "1",
        "minute,",
        "30",
        "per",
        "10",
        "second",
        "active",
        "-",
        "-",
        "1",
    ]
    assert lines[2].split()[:6] == ["pager", "10", "per", "1", "minute", "suspended"]
    assert lines[2].split()[-4:] == ["(flooding)", "-", "-", "1"]
    assert "whsec_" not in output


def test_a_suspended_source_is_refused_with_503_and_the_reason_until_resumed(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.intake.sources.STATE_TTL_S", 0.0)  # every request reads the state
    with TestClient(create_app(settings, reconciler=False, console=False)) as client:
        assert invoke("suspend", "pager", "--reason", "flooding the queue") == (0, "source pager suspended\n")
        assert invoke("suspend", "pager") == (0, "source pager was already suspended\n")
        body = json.dumps({"text": "Fall, hip pain"}).encode()
        refused = client.post("/v1/intake/pager", content=body, headers=signed_headers(PAGER_SECRET, "p-1", body))
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "60"
        assert refused.json() == {
            "detail": "source 'pager' is suspended by a supervisor: flooding the queue; nothing was stored: send the "
            "same message again after Retry-After, it is accepted once the source is resumed"
        }
        assert post(client, "cad", CAD_SECRET) == 202  # another source is not held back
        assert stored(settings) == 1
        assert invoke("resume", "pager") == (0, "source pager resumed\n")
        assert invoke("resume", "pager") == (0, "source pager was not suspended\n")
        retried = client.post("/v1/intake/pager", content=body, headers=signed_headers(PAGER_SECRET, "p-1", body))
        metrics = client.get("/metrics").text
    assert retried.status_code == 202 and stored(settings) == 2
    assert 'triage_intake_source_refused_total{reason="suspended",source="pager"} 1.0' in metrics


def test_rotate_secret_prints_a_new_secret_accepted_beside_the_old_one_until_the_grace_ends(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.intake.sources.STATE_TTL_S", 0.0)
    code, output = invoke("rotate-secret", "cad", "--grace-hours", "1")
    assert code == 0
    new = output.strip()
    assert new.startswith("whsec_") and len(base64.b64decode(new.removeprefix("whsec_"))) == 32
    with TestClient(create_app(settings, reconciler=False, console=False)) as client:
        assert [post(client, "cad", new), post(client, "cad", CAD_SECRET)] == [202, 202]
        assert post(client, "cad", PAGER_SECRET) == 401
        newer = invoke("rotate-secret", "cad")[1].strip()  # the default grace: TRIAGE_SECRET_GRACE_S, a day
        assert [post(client, "cad", secret) for secret in (newer, new, CAD_SECRET)] == [202, 202, 202]
        with session_scope(settings.database_url) as session:  # the day is over
            past = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
            for row in session.scalars(select(SourceSecret).where(SourceSecret.retired_at.is_not(None))):
                row.retired_at = past
            source = session.get(IntakeSource, "cad")
            assert source is not None
            source.configured_secrets_until = past
        assert [post(client, "cad", secret) for secret in (newer, new, CAD_SECRET)] == [202, 401, 401]
    assert invoke("list")[1].splitlines()[1].split()[-1] == "1"


def test_rotate_secret_takes_the_sender_s_own_secret_unless_another_source_holds_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some senders make the secret themselves (`--secret`); one another source holds, configured or rotated, is
    refused with the reason and changes nothing, and a call to one source never verifies with another's secret."""
    monkeypatch.setattr("app.intake.sources.STATE_TTL_S", 0.0)
    code, output = invoke("rotate-secret", "cad", "--secret", PAGER_SECRET)
    assert code == 2
    assert contains(output, "this secret is already a secret of source 'pager'; a secret belongs to one source only")
    assert PAGER_SECRET.removeprefix("whsec_")[:12] not in output
    senders = "whsec_" + base64.b64encode(b"cad-sender-made-secret-32-bytes!").decode()
    assert invoke("rotate-secret", "cad", "--secret", senders) == (0, senders + "\n")
    code, output = invoke("rotate-secret", "pager", "--secret", senders)  # cad's rotated secret, now
    assert code == 2 and contains(output, "this secret is already a secret of source 'cad'")
    code, output = invoke("rotate-secret", "pager", "--secret", "whsec_" + base64.b64encode(b"short").decode())
    assert code == 2 and contains(output, "a secret needs at least 24 random bytes")
    with TestClient(create_app(settings, reconciler=False, console=False)) as client:
        assert [post(client, "cad", senders), post(client, "pager", senders)] == [202, 401]
        assert [post(client, "pager", PAGER_SECRET), post(client, "cad", PAGER_SECRET)] == [202, 401]
    with session_scope(settings.database_url) as session:
        assert session.scalars(select(SourceSecret.source)).all() == ["cad"]


def test_an_unknown_source_is_a_usage_error_naming_the_known_ones(settings: Settings) -> None:
    code, output = invoke("suspend", "fax")
    assert code == 2
    assert contains(output, "no source 'fax' in TRIAGE_WEBHOOK_SECRETS (sources: cad, pager)")


def test_list_shows_the_calls_and_refusals_counted_in_redis(
    settings: Settings, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = f"sources-{uuid.uuid4().hex}"
    monkeypatch.setenv("TRIAGE_REDIS_URL", redis_url)
    monkeypatch.setenv("TRIAGE_QUEUE_PREFIX", prefix)
    monkeypatch.setenv("TRIAGE_INTAKE_LIMITS", json.dumps({"pager": "2/minute"}))
    get_settings.cache_clear()
    limits = source_limits_for({"pager": "2/minute"}, "120/minute", redis_client(redis_url), prefix)
    assert [limits.hit("pager") is None for _ in range(5)] == [True, True, False, False, False]
    assert limits.hit("cad") is None
    code, output = invoke("list")
    assert code == 0
    assert [line.split()[-3:] for line in output.splitlines()[1:]] == [["1", "0", "1"], ["2", "3", "1"]]
