"""Live-call test helpers: an app on a migrated SQLite database and a real redis-server, and senders that sign as
Twilio (the `twilio` package's own signature) and as a Standard Webhooks segment sender."""

from __future__ import annotations

import base64
import datetime as dt
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from httpx import Response
from standardwebhooks.webhooks import Webhook
from twilio.request_validator import RequestValidator

from app.api.main import create_app
from app.db.migrate import upgrade
from app.live.handover import hand_over_to
from app.settings import Settings

TWILIO_TOKEN = "twilio-auth-token-0123456789abcdef"
SECRET = "whsec_" + base64.b64encode(b"live-segments-secret-32-randomby").decode()
CALL_SID = "CA" + "0" * 31 + "1"


@pytest.fixture
def prefix() -> str:
    return f"live-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def live_settings(tmp_path: Path, redis_url: str, prefix: str, small_model_dir: Path) -> Settings:
    url = f"sqlite:///{tmp_path / 'triage.db'}"
    upgrade(url)
    return Settings(
        database_url=url,
        redis_url=redis_url,
        queue_prefix=prefix,
        webhook_secrets={"cad": [SECRET]},
        twilio_auth_tokens={"phones": TWILIO_TOKEN},
        intake_limits={"phones": "3/minute", "cad": "3/minute"},
        live_call_limit="20/minute",
        model_dir=small_model_dir,
    )


@pytest.fixture
def handed_over() -> list[str]:
    """The re-triage tasks the web app sent (incident ids, in order): the tests run them themselves."""
    return []


def live_app(settings: Settings, handed_over: list[str]) -> Any:
    """The web app, its re-triage tasks sent to `handed_over` instead of a broker (coalesced in the real Redis)."""
    app = create_app(settings, reconciler=False, console=False)
    client, prefix = redis.Redis.from_url(str(settings.redis_url)), settings.queue_prefix
    app.state.live_writer.after_commit = hand_over_to(
        client, prefix, lambda incident_id, _: handed_over.append(incident_id)
    )
    return app


@pytest.fixture
def live_client(live_settings: Settings, handed_over: list[str]) -> Iterator[TestClient]:
    with TestClient(live_app(live_settings, handed_over)) as client:
        yield client


def at(seconds_ago: float) -> str:
    """A Twilio Timestamp `seconds_ago` before now."""
    return (dt.datetime.now(dt.UTC) - dt.timedelta(seconds=seconds_ago)).isoformat().replace("+00:00", "Z")


def twilio_params(
    kind: str, sequence: int, seconds_ago: float, call_sid: str = CALL_SID, **more: str
) -> dict[str, str]:
    params = {
        "AccountSid": "AC" + "1" * 32,
        "CallSid": call_sid,
        "TranscriptionSid": "GT" + "2" * 32,
        "TranscriptionEvent": f"transcription-{kind}",
        "SequenceId": str(sequence),
        "Timestamp": at(seconds_ago),
    }
    return {**params, **more}


def content(
    sequence: int, seconds_ago: float, text: str, *, track: str = "inbound_track", final: bool = True, **more: str
) -> dict[str, str]:
    data = json.dumps({"transcript": text, "confidence": 0.91})
    return twilio_params(
        "content",
        sequence,
        seconds_ago,
        Track=track,
        TranscriptionData=data,
        Final="true" if final else "false",
        LanguageCode="en-US",
        **more,
    )


def post_twilio(
    client: TestClient,
    params: dict[str, str],
    *,
    source: str = "phones",
    token: str = TWILIO_TOKEN,
    signed_url: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """POST as Twilio does: form-encoded, `X-Twilio-Signature` over the URL and the sorted parameters."""
    path = f"/v1/intake/twilio/{source}/transcription"
    url = signed_url or f"http://testserver{path}"
    signature = RequestValidator(token).compute_signature(url, params)
    return client.post(path, data=params, headers={"X-Twilio-Signature": signature, **(headers or {})})


def post_segment(client: TestClient, body: dict[str, Any], msg_id: str | None = None) -> Response:
    raw = json.dumps(body)
    msg_id = msg_id or f"seg-{body['call_id']}-{body['sequence']}"
    now = dt.datetime.now(dt.UTC)
    headers = {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(SECRET).sign(msg_id, now, raw),
        "content-type": "application/json",
    }
    return client.post("/v1/intake/cad/segments", content=raw, headers=headers)
