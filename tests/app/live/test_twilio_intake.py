"""Twilio Real-Time Transcription callbacks, signed as Twilio signs them: stored once per call and sequence, partials
kept as the latest per track, forged, stale and malformed ones refused the way Twilio's retries expect."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db.models import CallPartial, CallSegment, Incident, IncidentEvent, LiveCall, Outbox
from app.db.session import session_scope
from app.settings import Settings
from tests.app.live.conftest import CALL_SID, TWILIO_TOKEN, content, post_twilio, twilio_params


def rows(settings: Settings) -> dict[str, object]:
    with session_scope(settings.database_url) as session:
        segments = session.scalars(select(CallSegment).order_by(CallSegment.sequence)).all()
        partials = session.scalars(select(CallPartial).order_by(CallPartial.track)).all()
        return {
            "incidents": session.scalar(select(func.count()).select_from(Incident)),
            "outbox": session.scalar(select(func.count()).select_from(Outbox)),
            "segments": [(s.sequence, s.track, s.text, s.promoted) for s in segments],
            "partials": [(p.track, p.sequence, p.text) for p in partials],
            "calls": [(c.call_id, c.finals, c.end_reason) for c in session.scalars(select(LiveCall))],
        }


def test_a_twilio_call_is_one_incident_its_utterances_stored_once_in_any_order(
    live_client: TestClient, live_settings: Settings
) -> None:
    answers = [
        post_twilio(live_client, twilio_params("started", 1, 30)),
        post_twilio(live_client, content(3, 20, "my husband collapsed")),  # before 2: reordered
        post_twilio(live_client, content(2, 25, "911, what is the address of your emergency?", track="outbound_track")),
        post_twilio(live_client, content(4, 15, "he is not", final=False)),
        post_twilio(live_client, content(3, 20, "my husband collapsed")),  # Twilio's retry: a duplicate
        post_twilio(live_client, content(5, 14, "he is not breathing", final=False)),
        post_twilio(live_client, content(4, 15, "he is not", final=False)),  # a late, older partial
    ]
    assert [answer.status_code for answer in answers] == [200] * 7
    assert [answer.json()["duplicate"] for answer in answers] == [False, False, False, False, True, False, True]
    assert len({answer.json()["incident_id"] for answer in answers}) == 1
    assert rows(live_settings) == {
        "incidents": 1,
        "outbox": 1,  # owed a classification from its first words
        "segments": [
            (2, "call_taker", "911, what is the address of your emergency?", False),
            (3, "caller", "my husband collapsed", False),
        ],
        "partials": [("caller", 5, "he is not breathing")],
        "calls": [(CALL_SID, 2, None)],
    }
    final = post_twilio(live_client, content(6, 13, "he is not breathing at all"))
    stopped = post_twilio(live_client, twilio_params("stopped", 7, 12))
    again = post_twilio(live_client, twilio_params("stopped", 7, 12))
    assert [final.status_code, stopped.status_code, again.status_code] == [200, 200, 200]
    assert again.json()["duplicate"] is True
    state = rows(live_settings)
    assert state["partials"] == []  # the final replaced the partial it became
    assert state["calls"] == [(CALL_SID, 3, "stopped")]
    listed = live_client.get(f"/v1/incidents?call_id={CALL_SID}&status=all")
    assert listed.status_code == 401  # the incident API needs a token (test_retriage finds a call's incident with one)


def test_forged_stale_and_malformed_callbacks_are_refused_as_twilio_expects(
    live_client: TestClient, live_settings: Settings
) -> None:
    forged = post_twilio(live_client, content(1, 5, "hello"), token="another-account-token-000000")
    altered_params = content(1, 5, "hello")
    signature_for_other = post_twilio(
        live_client, altered_params, signed_url="http://testserver/v1/intake/twilio/other/transcription"
    )
    unsigned = live_client.post("/v1/intake/twilio/phones/transcription", data=content(1, 5, "hello"))
    stale = post_twilio(live_client, content(1, 3600, "hello"))
    unknown_event = post_twilio(live_client, twilio_params("paused", 1, 5))
    no_transcript = post_twilio(live_client, twilio_params("content", 1, 5, Track="inbound_track"))
    unknown_source = post_twilio(live_client, content(1, 5, "hello"), source="nobody")
    assert [
        forged.status_code,
        signature_for_other.status_code,
        unsigned.status_code,
        stale.status_code,
        unknown_event.status_code,
        no_transcript.status_code,
        unknown_source.status_code,
    ] == [403, 403, 403, 403, 400, 400, 404]
    assert forged.json()["detail"] == "X-Twilio-Signature does not match this source's Auth Token and URL"
    assert unsigned.json()["detail"] == "missing X-Twilio-Signature"
    assert stale.json()["detail"] == "Timestamp more than 300 s from now: a stale callback"
    assert unknown_event.json()["detail"] == "unknown TranscriptionEvent 'transcription-paused'"
    assert rows(live_settings)["incidents"] == 0


def test_behind_a_proxy_the_signed_url_is_the_configured_public_one(live_settings: Settings) -> None:
    from app.api.main import create_app

    settings = live_settings.model_copy(update={"twilio_public_url": "https://dispatch.example.org"})
    with TestClient(create_app(settings, reconciler=False, console=False)) as client:
        public = "https://dispatch.example.org/v1/intake/twilio/phones/transcription"
        reached = post_twilio(client, content(1, 5, "hello"))
        proxied = post_twilio(client, content(1, 5, "hello"), signed_url=public)
    assert [reached.status_code, proxied.status_code] == [403, 200]


def test_the_source_limit_counts_calls_and_a_runaway_call_is_refused_alone(
    live_client: TestClient, live_settings: Settings
) -> None:
    # phones: 3 calls a minute; each call 20 events a minute.
    busy = [post_twilio(live_client, content(n, 5, f"words {n}", call_sid=f"CA-busy-{n % 3}")) for n in range(1, 13)]
    assert [answer.status_code for answer in busy] == [200] * 12  # 12 events of 3 calls: within the source's 3 calls
    fourth = post_twilio(live_client, content(1, 5, "another call", call_sid="CA-fourth"))
    assert fourth.status_code == 429
    assert fourth.json()["detail"].startswith("source 'phones' is over its intake limit (3 per 1 minute)")
    runaway = [post_twilio(live_client, content(n, 5, f"again {n}", call_sid="CA-busy-0")) for n in range(100, 120)]
    codes = [answer.status_code for answer in runaway]
    assert codes == [200] * 16 + [429] * 4  # 4 + 16 = its 20 events a minute
    assert runaway[-1].headers["retry-after"].isdigit() and 1 <= int(runaway[-1].headers["retry-after"]) <= 60
    other = post_twilio(live_client, content(50, 5, "still fine", call_sid="CA-busy-1"))
    assert other.status_code == 200  # the source's other calls go on
    with session_scope(live_settings.database_url) as session:
        assert session.scalar(select(func.count()).select_from(LiveCall)) == 3
        assert session.scalar(select(func.count()).select_from(CallSegment)) == 12 + 16 + 1
    assert TWILIO_TOKEN  # signed with the source's token throughout
    _ = IncidentEvent
