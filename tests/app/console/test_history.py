"""Audit events in a dispatcher's words, on events as the product stores them."""

from __future__ import annotations

import datetime as dt

from app.console.history import action_choices, action_label, actor_label, claimed_by_ids, describe_change
from app.console.render import guidance_box_label, render_arrival
from tests.app.console.details import detail, guidance

DANA_ID = "5f0c2a9e-8d1b-4c3e-9a7f-0b1c2d3e4f50"
NAMES = {DANA_ID: "dana"}


def test_each_kind_of_stored_event_reads_as_plain_before_and_after() -> None:
    received = describe_change({}, {"webhook_id": "w-1", "call_id": "CAD-7"}, NAMES)
    assert received == "call id: CAD-7"  # the webhook id stays in the audit log and its CSV
    classified = describe_change({"esi_level": None}, {"esi_level": 2, "model_version": "linear-3"}, NAMES)
    assert classified == "ESI level: none → 2; triage model: linear-3"
    claim = describe_change({"status": "new", "claimed_by": None}, {"status": "claimed", "claimed_by": DANA_ID}, NAMES)
    assert claim == "status: new → claimed; claimed by: none → dana"
    override = describe_change({"esi_level": 3}, {"esi_level": 1, "override_level": 1}, NAMES)
    assert override == "ESI level: 3 → 1"
    close = describe_change({"status": "dispatched"}, {"status": "closed", "disposition": "treated on scene"}, NAMES)
    assert close == "status: dispatched → closed; disposition: treated on scene"
    assert describe_change({}, {}, NAMES) == ""  # a note: its text is the reason
    assert describe_change({}, {"webhook_id": "w-2", "call_id": None}, NAMES) == ""  # no call id given
    gone = describe_change({"claimed_by": None}, {"claimed_by": "0000"}, NAMES)
    assert gone == "claimed by: none → a removed user"
    review = describe_change({"guidance_state": "pending"}, {"guidance_state": "failed", "needs_review": True}, {})
    assert review == "guidance: pending → failed; needs review: yes"


def test_actors_and_actions_in_words_and_the_ids_to_look_up() -> None:
    assert [actor_label(a) for a in ("system:intake:cad", "system:classifier", "system:overload", "dana")] == [
        "intake (cad)",
        "classifier",
        "overload shedding",
        "dana",
    ]
    assert [action_label(a) for a in ("received", "claim", "template_guidance", "something_new")] == [
        "call received",
        "claimed",
        "template guidance (queue overloaded)",
        "something new",
    ]
    assert action_choices()[:3] == [("any", ""), ("call received", "received"), ("triaged", "classified")]
    events = [{"before": {"claimed_by": None}, "after": {"claimed_by": DANA_ID}}, {"before": None, "after": {}}]
    assert claimed_by_ids(events) == {DANA_ID}


def test_the_incident_head_shows_arrival_and_a_clock_only_while_open() -> None:
    accepted = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=75)
    local = accepted.astimezone().strftime("%H:%M:%S")
    open_head = render_arrival(detail(accepted_at=accepted, status="claimed", esi_level=2))
    assert open_head.startswith(f'<span class="arrival">arrived {local} · waiting <span class="wait-clock wait-late" ')
    assert (
        f'data-target="60" data-since="{accepted.timestamp():.3f}">1:1' in open_head
    )  # 1:15 or 1:16: past ESI 2's 60 s
    closed = render_arrival(detail(accepted_at=accepted, status="closed", esi_level=2))
    assert closed == f'<span class="arrival">arrived {local}</span>'


def test_the_guidance_box_says_what_its_text_is() -> None:
    def label(state: str, template: str = "") -> str:
        part = guidance(f"template:{template}") if template else None
        return guidance_box_label(detail(guidance_state=state, guidance=part))

    assert [label(s) for s in ("pending", "queued", "generating", "done", "failed")] == [
        "Guidance (after triage)",
        "Guidance (waiting for the engine)",
        "Guidance (being written)",
        "Guidance",
        "Guidance (failed: see the history)",
    ]
    assert label("done", "minor-injury") == "Guidance (template: the queue was overloaded)"
    assert guidance_box_label(None) == "Guidance"


def test_the_checker_s_refusal_is_one_short_line_in_the_history_and_the_audit_table() -> None:
    from app.console.history import event_reason

    failures = {"check": "refused", "failures": ["missing-section", "missing-section", "contradiction"]}
    reason = "checker: missing section: no KEY FACTS: section; missing section: ...; contradicts the card: ..."
    assert event_reason("guidance_check", failures, reason) == (
        "refused: missing section (2 times), contradicts the card; read the protocol card"
    )
    assert event_reason("note", {}, "crew at the door") == "crew at the door"
    assert event_reason("guidance_check", None, reason) == "refused: see the guidance; read the protocol card"
