"""A live call read again as its words arrive: the level rises at once with the words that raised it, never falls by
itself (the lower reading is offered and the dispatcher decides), the card follows, the heap re-keys the call and
the engines are told; the address and call-back number are read; re-triage is coalesced per call."""

from __future__ import annotations

import dataclasses

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.auth.accounts import add_user, issue_token
from app.db.models import Incident, IncidentEvent, LiveCall, Role
from app.db.session import session_scope
from app.live import handover
from app.live.handover import request_retriage, run_retriage, urgent_words
from app.live.retriage import Snapshot, apply_reading
from app.redis import keys
from app.redis.queueing import settings_heap
from app.settings import Settings
from tests.app.live.conftest import post_segment
from triage_models.language import CallLanguage
from triage_models.result import DecisionPoint, TriageResult


def say(client: TestClient, sequence: int, offset_s: float, track: str, text: str) -> str:
    """Post one final utterance and wait for its hand-over to triage (it runs after the answer)."""
    answer = post_segment(client, {"call_id": "call-7", "sequence": sequence, "offset_s": offset_s, "track": track,
                                   "text": text, "answered_at": "2026-11-20T10:00:00Z"})  # fmt: skip
    assert answer.status_code == 200, answer.text
    client.app.state.live_writer.settle()  # type: ignore[attr-defined]
    return str(answer.json()["incident_id"])


def actions_of(settings: Settings, incident_id: str) -> list[tuple[str, dict[str, object] | None]]:
    with session_scope(settings.database_url) as session:
        events = session.scalars(
            select(IncidentEvent).where(IncidentEvent.incident_id == incident_id).order_by(IncidentEvent.id)
        )
        return [(event.action, event.after) for event in events]


def token_for(settings: Settings, role: Role) -> dict[str, str]:
    with session_scope(settings.database_url) as session:
        user = add_user(session, f"user-{role.value}", role, None)
        session.flush()
        token = issue_token(session, user)
    return {"authorization": f"Bearer {token}"}


def test_the_level_rises_at_once_with_its_words_and_the_heap_and_engines_follow(
    live_client: TestClient, live_settings: Settings, handed_over: list[str]
) -> None:
    heap = settings_heap(live_settings)
    listener = redis.Redis.from_url(str(live_settings.redis_url)).pubsub(ignore_subscribe_messages=True)
    listener.subscribe(keys.override_channel(live_settings.queue_prefix))
    incident_id = say(live_client, 1, 2.0, "call_taker", "911, what is the address of your emergency?")
    say(live_client, 2, 5.0, "caller", "It's 1420 Maple Avenue.")
    say(live_client, 3, 8.0, "caller", "My father fell in the kitchen and hurt his wrist.")
    assert handed_over == [incident_id]  # one task for three utterances: the call is dirty, a task is scheduled
    assert run_retriage(live_settings, heap, incident_id) == "read 1 times"
    with session_scope(live_settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        call = session.get(LiveCall, incident_id)
        assert incident is not None and call is not None
        first_level = incident.esi_level
        assert first_level is not None and first_level >= 3
        assert (incident.guidance_state, incident.card_id, call.address) == ("queued", None, "1420 Maple Avenue")
        assert incident.text.splitlines() == [
            "CT: 911, what is the address of your emergency?",
            "C: It's 1420 Maple Avenue.",
            "C: My father fell in the kitchen and hurt his wrist.",
        ]
    assert heap.get(incident_id) is not None and heap.get(incident_id).esi_level == first_level  # type: ignore[union-attr]
    say(live_client, 4, 12.0, "call_taker", "Is he awake? Is he breathing?")
    say(live_client, 5, 15.0, "caller", "He's not breathing, he's not breathing!")
    # the question sent a task at the live priority; the caller's red flag jumps it with an urgent one
    assert handed_over == [incident_id, incident_id, incident_id]
    run_retriage(live_settings, heap, incident_id)
    with session_scope(live_settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        call = session.get(LiveCall, incident_id)
        assert incident is not None and call is not None
        assert (incident.esi_level, incident.card_id, incident.guidance_state) == (1, "cpr-adult", "queued")
        assert call.arrest_rule == "A-NOT-BREATHING"
        assert call.arrest_recognised_at is not None and call.arrest_recognised_at.isoformat() == (
            "2026-11-20T10:00:15+00:00"
        )
    raised = [after for action, after in actions_of(live_settings, incident_id) if action == "level_raised"]
    assert raised == [{"esi_level": 1, "words": ["not breathing"]}]
    assert [action for action, _ in actions_of(live_settings, incident_id)] == [
        "received",
        "classified",
        "address_read",
        "level_raised",
        "card_switched",
        "arrest_recognised",
    ]
    assert heap.get(incident_id).esi_level == 1  # type: ignore[union-attr]
    notices = [listener.get_message(timeout=1) for _ in range(3)]  # the first read takes the subscription's answer
    assert [notice["data"] for notice in notices if notice is not None] == [f"replan {incident_id} 1".encode()]
    listener.close()


def lower(result_level: int) -> TriageResult:
    return TriageResult(
        esi_level=result_level,
        probabilities={1: 0.0, 2: 0.0, 3: 1.0, 4: 0.0, 5: 0.0},
        classifier_level=result_level,
        decision_point=DecisionPoint.C,
        model_version="test-lower",
        language=CallLanguage("en", True, 1.0),
    )


def test_a_lower_reading_is_offered_and_only_the_dispatcher_lowers_the_level(
    live_client: TestClient, live_settings: Settings
) -> None:
    heap = settings_heap(live_settings)
    incident_id = say(live_client, 1, 3.0, "caller", "He collapsed and he's not breathing")
    run_retriage(live_settings, heap, incident_id)
    with session_scope(live_settings.database_url) as session:
        change = apply_reading(session, incident_id, lower(3), Snapshot("C: he is awake now and talking", 1))
    assert change is not None and (change.esi_level, change.raised, change.events) == (
        1,
        False,
        ["lower_reading_offered"],
    )
    dispatcher = token_for(live_settings, Role.DISPATCHER)
    view = live_client.get(f"/v1/incidents/{incident_id}/live", headers=dispatcher).json()
    assert (view["esi_level"], view["lower_reading"]) == (
        1,
        {"esi_level": 3, "words": ["He collapsed and he's not breathing"]},
    )
    refused = live_client.post(
        f"/v1/incidents/{incident_id}/live/lower-reading", json={"accept": True, "reason": " "}, headers=dispatcher
    )
    assert (refused.status_code, refused.json()["detail"]) == (422, "an override needs a reason")
    accepted = live_client.post(
        f"/v1/incidents/{incident_id}/live/lower-reading",
        json={"accept": True, "reason": "awake and talking on the phone"},
        headers=dispatcher,
    )
    assert accepted.status_code == 200
    assert accepted.json() == {"incident_id": incident_id, "esi_level": 3, "heap": "waiting"}
    assert heap.get(incident_id).esi_level == 3  # type: ignore[union-attr]
    levels = live_client.get(f"/v1/incidents/{incident_id}/live", headers=dispatcher).json()["levels"]
    assert [(level["action"], level["from_level"], level["esi_level"]) for level in levels] == [
        ("classified", None, 1),
        ("lower_reading_offered", 1, 3),
        ("override", 1, 3),
    ]
    listed = live_client.get("/v1/incidents?status=all&call_id=call-7", headers=dispatcher).json()["incidents"]
    assert [incident["id"] for incident in listed] == [incident_id]


def test_a_reading_of_fewer_words_than_the_one_recorded_is_not_recorded(
    live_client: TestClient, live_settings: Settings
) -> None:
    """An urgent task and the one it jumped may read one call at once: the reading of less of it, finishing second,
    changes nothing."""
    incident_id = say(live_client, 1, 3.0, "caller", "He collapsed and he's not breathing")
    say(live_client, 2, 6.0, "caller", "He's turning blue")
    run_retriage(live_settings, settings_heap(live_settings), incident_id)
    with session_scope(live_settings.database_url) as session:
        stale = Snapshot("C: He collapsed and he's not breathing", 1)
        assert apply_reading(session, incident_id, lower(3), stale) is None
    with session_scope(live_settings.database_url) as session:
        incident, call = session.get(Incident, incident_id), session.get(LiveCall, incident_id)
        assert incident is not None and call is not None
        assert (incident.esi_level, call.triaged_finals, len(incident.text.splitlines())) == (1, 2, 2)


def test_words_arriving_while_a_task_is_scheduled_send_no_second_task(live_settings: Settings) -> None:
    client = redis.Redis.from_url(str(live_settings.redis_url))
    sent: list[tuple[str, bool]] = []
    prefix = live_settings.queue_prefix

    def publish(incident_id: str, urgent: bool) -> None:
        sent.append((incident_id, urgent))

    assert request_retriage(client, prefix, ["a", "a", "b"], publish) == 2
    assert request_retriage(client, prefix, ["a", "b", "c"], publish) == 1
    assert sent == [("a", False), ("b", False), ("c", False)]
    assert client.exists(keys.live_dirty(prefix, "a")) == 1


def test_urgent_words_jump_a_call_whose_task_waits_at_the_live_priority(live_settings: Settings) -> None:
    """A call whose reading was sent at the live priority gets one urgent task when red-flag words arrive; a call
    already sent urgent, or one with no task, gets exactly one."""
    client = redis.Redis.from_url(str(live_settings.redis_url))
    sent: list[tuple[str, bool]] = []
    prefix = live_settings.queue_prefix

    def publish(incident_id: str, urgent: bool) -> None:
        sent.append((incident_id, urgent))

    assert request_retriage(client, prefix, ["a", "b"], publish, urgent={"b"}) == 2
    assert request_retriage(client, prefix, ["a", "b", "c"], publish, urgent={"a", "b", "c"}) == 2
    assert request_retriage(client, prefix, ["a"], publish, urgent={"a"}) == 0
    client.delete(keys.live_scheduled(prefix, "a"))  # a's tasks ended
    assert request_retriage(client, prefix, ["a"], publish, urgent={"a"}) == 1
    assert sent == [("a", False), ("b", True), ("c", True), ("a", True), ("a", True)]
    assert client.ttl(keys.live_scheduled(prefix, "b")) > 0


@pytest.mark.parametrize(
    ("words", "urgent"),
    [
        ("No, she's gasping, she's not breathing right.", True),
        ("No, no respira, no responde.", True),
        ("We're at 22 Oak Street, apartment 4.", False),
        ("Is she breathing normally?", False),
        ("", False),
    ],
)
def test_urgent_words_are_those_with_a_red_flag_of_esi_1_or_2(words: str, urgent: bool) -> None:
    assert urgent_words(words) is urgent


def test_a_call_raised_after_its_guidance_was_done_is_queued_again_even_while_the_finishing_lease_is_held(
    live_client: TestClient, live_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker commits "done" and then acknowledges its lease: words read in between find the call still leased.
    A worker that never lets go (it died there) has the lease taken back, so the call waits at its new level."""
    heap = settings_heap(live_settings)
    incident_id = say(live_client, 1, 3.0, "caller", "My father fell in the kitchen and hurt his wrist.")
    run_retriage(live_settings, heap, incident_id)
    leased = heap.pop_lease("engine-a", 30.0)
    assert leased is not None and leased.incident_id == incident_id and leased.esi_level >= 3
    with session_scope(live_settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        assert incident is not None
        incident.guidance_state = "done"  # committed by the finish; the acknowledgement never comes
    monkeypatch.setattr(handover, "FINISHED_LEASE_WAIT_S", 0.1)
    say(live_client, 2, 9.0, "caller", "Wait, he's not breathing, he's not breathing!")
    run_retriage(live_settings, heap, incident_id)
    with session_scope(live_settings.database_url) as session:
        incident = session.get(Incident, incident_id)
        assert incident is not None and (incident.esi_level, incident.guidance_state) == (1, "queued")
    waiting = heap.get(incident_id)
    assert waiting is not None and (waiting.esi_level, waiting.consumer, waiting.deliveries) == (1, "", 0)
    assert heap.ack(incident_id, "engine-a") is False  # the lease is no longer its: the call stays queued
    assert heap.pop_lease("engine-b", 30.0) == dataclasses.replace(waiting, consumer="engine-b", deliveries=1)
