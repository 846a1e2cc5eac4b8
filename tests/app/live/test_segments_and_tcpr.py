"""The vendor-neutral segment webhook (Standard Webhooks), the stream timeout that loses nothing, and the T-CPR clock
and monthly figures of a replayed call whose times are known."""

from __future__ import annotations

import datetime as dt

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.auth.accounts import add_user, issue_token
from app.db.models import CallSegment, LiveCall, Role
from app.db.session import session_scope
from app.live.handover import run_retriage
from app.live.sweep import end_silent_streams
from app.redis.queueing import settings_heap
from app.settings import Settings
from tests.app.live.conftest import post_segment

ANSWERED = "2026-11-20T10:00:00Z"


def segment(call_id: str, sequence: int, offset_s: float, track: str, text: str, **more: object) -> dict[str, object]:
    return {"call_id": call_id, "sequence": sequence, "offset_s": offset_s, "track": track, "text": text,
            "answered_at": ANSWERED, **more}  # fmt: skip


def headers(settings: Settings, name: str, role: Role) -> dict[str, str]:
    with session_scope(settings.database_url) as session:
        user = add_user(session, name, role, None)
        session.flush()
        return {"authorization": f"Bearer {issue_token(session, user)}"}


def test_segments_are_idempotent_by_call_and_sequence_and_refuse_what_is_not_one(
    live_client: TestClient, live_settings: Settings
) -> None:
    first = post_segment(live_client, segment("c-1", 2, 4.0, "caller", "my wife fainted"))
    replayed = post_segment(live_client, segment("c-1", 2, 4.0, "caller", "my wife fainted"), msg_id="another-id")
    earlier = post_segment(live_client, segment("c-1", 1, 1.0, "call_taker", "911, what is your emergency?"))
    no_track = post_segment(live_client, {"call_id": "c-1", "sequence": 3, "text": "hello"})
    naive = post_segment(live_client, segment("c-1", 4, 5.0, "caller", "x", answered_at="2026-11-20T10:00:00"))
    assert [a.status_code for a in (first, replayed, earlier, no_track, naive)] == [200, 200, 200, 422, 422]
    assert [first.json()["duplicate"], replayed.json()["duplicate"], earlier.json()["duplicate"]] == [
        False,
        True,
        False,
    ]
    assert no_track.json()["errors"] == [
        {"field": "body", "reason": "Value error, an utterance needs a track (caller or call_taker) and its text"}
    ]
    with session_scope(live_settings.database_url) as session:
        stored = session.scalars(select(CallSegment).order_by(CallSegment.spoken_at)).all()
        assert [(s.sequence, s.track, s.spoken_at.isoformat()) for s in stored] == [
            (1, "call_taker", "2026-11-20T10:00:01+00:00"),
            (2, "caller", "2026-11-20T10:00:04+00:00"),
        ]


def test_a_stream_that_never_stops_is_ended_after_the_timeout_its_partial_kept(
    live_client: TestClient, live_settings: Settings
) -> None:
    post_segment(live_client, segment("c-2", 1, 1.0, "caller", "he fell down the stairs"))
    post_segment(live_client, segment("c-2", 2, 3.0, "caller", "and he is bleed", final=False))
    now = dt.datetime.now(dt.UTC)
    assert end_silent_streams(live_settings, now + dt.timedelta(seconds=59)) == []
    ended = end_silent_streams(live_settings, now + dt.timedelta(seconds=61))
    assert len(ended) == 1 and end_silent_streams(live_settings, now + dt.timedelta(seconds=120)) == []
    with session_scope(live_settings.database_url) as session:
        call = session.get(LiveCall, ended[0])
        assert call is not None and (call.end_reason, call.finals, call.triaged_finals) == ("stream ended", 2, 0)
        kept = session.scalars(select(CallSegment).order_by(CallSegment.sequence)).all()
        assert [(s.sequence, s.text, s.promoted) for s in kept] == [
            (1, "he fell down the stairs", False),
            (2, "and he is bleed", True),
        ]
    late = post_segment(live_client, segment("c-2", 3, 9.0, "caller", "he is bleeding a lot"))
    assert (late.status_code, late.json()["duplicate"]) == (200, False)  # a late segment is kept too


REPLAYED_CALL = [
    (1, 2.0, "call_taker", "911, what is the address of your emergency?"),
    (2, 6.0, "caller", "It's 88 Birch Road."),
    (3, 11.0, "caller", "My husband just collapsed, he's not breathing."),
    (4, 20.0, "call_taker", "Listen carefully. Put him flat on his back."),
    (5, 47.0, "call_taker", "Push hard and fast in the center of the chest."),
]


def test_the_tcpr_figures_of_a_replayed_call_with_known_times(live_client: TestClient, live_settings: Settings) -> None:
    heap = settings_heap(live_settings)
    incident_id = ""
    for sequence, offset_s, track, text in REPLAYED_CALL:
        answer = post_segment(live_client, segment("arrest-1", sequence, offset_s, track, text))
        incident_id = answer.json()["incident_id"]
        run_retriage(live_settings, heap, incident_id)  # as the words arrive
    not_arrest = post_segment(live_client, segment("fall-1", 1, 4.0, "caller", "I slipped and twisted my ankle"))
    run_retriage(live_settings, heap, not_arrest.json()["incident_id"])
    supervisor = headers(live_settings, "sue", Role.SUPERVISOR)
    dispatcher = headers(live_settings, "dana", Role.DISPATCHER)
    view = live_client.get(f"/v1/incidents/{incident_id}/live", headers=dispatcher).json()
    assert view["tcpr"] == {
        "arrest": True,
        "recognised": True,
        "arrest_rule": "A-NOT-BREATHING",
        "address_s": 6.0,
        "recognised_by_product_s": 11.0,
        "recognised_by_dispatcher_s": None,
        "card_on_screen_s": view["tcpr"]["card_on_screen_s"],  # this server's clock: when the test ran
        "first_compression_s": 47.0,
        "compression_step": 7,
    }
    assert view["address"] == {"value": "88 Birch Road", "offset_s": 6.0, "confirmed_by": None}
    assert live_client.get("/v1/tcpr/report?month=2026-11", headers=dispatcher).status_code == 403
    report = live_client.get("/v1/tcpr/report?month=2026-11", headers=supervisor).json()
    assert report["figures"] == {
        "month": "2026-11",
        "live_calls": 2,
        "arrest_calls": 1,
        "recognised": 1,
        "share_recognised": 1.0,
        "median_answer_to_recognition_s": 11.0,
        "given_tcpr": 1,
        "share_given_tcpr": 1.0,
        "median_answer_to_first_compression_s": 47.0,
    }
    csv = live_client.get("/v1/tcpr/report?month=2026-11&format=csv", headers=supervisor)
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines()[1] == "2026-11,2,1,1,1.0,11.0,1,1.0,47.0"
    assert live_client.get("/v1/tcpr/report?month=November", headers=supervisor).status_code == 422
    # The dispatcher says the fall was an arrest found only after the call: an arrest not recognised.
    late = live_client.post(
        f"/v1/incidents/{not_arrest.json()['incident_id']}/live/arrest",
        json={"arrest": True, "recognised_on_call": False},
        headers=dispatcher,
    )
    assert late.status_code == 200
    figures = live_client.get("/v1/tcpr/report?month=2026-11", headers=supervisor).json()["figures"]
    assert (figures["arrest_calls"], figures["recognised"], figures["share_recognised"]) == (2, 1, 0.5)
