"""Incident read models built by hand, for the console's rendering tests (`app.incidents.read_model`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from app.incidents.read_model import GuidanceView, IncidentDetail, IncidentLink, ProtocolCardView, Timings

ACCEPTED = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)


def guidance(model: str = "qwen2.5-0.5b", prompt_version: str = "guidance-1", **fields: Any) -> GuidanceView:
    """A guidance part: a template's model is "template:<kind>", a test model's carries its label."""
    return GuidanceView(text="", tokens=0, model=model, prompt_version=prompt_version, **fields)


def detail(**fields: Any) -> IncidentDetail:
    """An incident's read model with the fields given and an open, unclassified call for the rest."""
    accepted = fields.pop("accepted_at", ACCEPTED)
    defaults: dict[str, Any] = {
        "id": "i1",
        "source": "cad",
        "status": "new",
        "esi_level": None,
        "model_level": None,
        "override_level": None,
        "chief_complaint": None,
        "guidance_state": "pending",
        "accepted_at": accepted,
        "text": "call",
        "caller": None,
        "location": None,
        "call_id": None,
        "classification": None,
        "guidance": None,
        "timings": Timings(
            received_at=None,
            accepted_at=accepted,
            classified_at=None,
            queued_at=None,
            queue_wait_s=None,
            ttft_s=None,
            total_s=None,
            finished_at=None,
        ),
        "outcome": None,
        "events": [],
    }
    return IncidentDetail(**{**defaults, **fields})


def link(incident_id: str = "i0", esi_level: int = 1) -> IncidentLink:
    """Another open incident, as a link names it."""
    return IncidentLink(
        id=incident_id,
        status="new",
        esi_level=esi_level,
        chief_complaint="collapsed",
        location="12 Main St",
        accepted_at=ACCEPTED,
    )


def card(steps_done: list[int] | None = None, steps: int = 11) -> ProtocolCardView:
    """The CPR card's part with `steps` steps, those in `steps_done` marked done."""
    return ProtocolCardView(
        id="cpr-adult",
        version="1",
        title="CPR",
        language="en",
        label="CPR adult",
        steps=[f"step {number}" for number in range(1, steps + 1)],
        reviewed=False,
        review_state="not reviewed",
        key_questions=[],
        do_not=[],
        steps_done=steps_done or [],
    )
