"""A live call as the API serves it (and the console will render it): the transcript of both tracks with each
track's partial, the level's history with the words that moved it, the offered lower reading, the address and
call-back number read, and the T-CPR clock."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import CallPartial, Incident, IncidentEvent, LiveCall
from app.guidance.incident_card import incident_card
from app.live.tcpr import CPR_CARD_PREFIX, call_clock, compression_step, step_marked_at
from app.live.transcript import final_segments

LEVEL_ACTIONS = ("classified", "level_raised", "lower_reading_offered", "override", "lower_reading_dismissed")


def _offset(call: LiveCall, at: dt.datetime) -> float:
    return round((at - call.answered_at).total_seconds(), 3)


def _answer(call: LiveCall, value: str | None, at: dt.datetime | None, by: str | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"value": value, "offset_s": None if at is None else _offset(call, at), "confirmed_by": by}


def level_history(session: Session, incident_id: str) -> list[dict[str, Any]]:
    """Each level change (and lower reading offered) in order: when, who, the level before and after, the words."""
    events = session.scalars(
        select(IncidentEvent)
        .where(IncidentEvent.incident_id == incident_id, IncidentEvent.action.in_(LEVEL_ACTIONS))
        .order_by(IncidentEvent.id)
    )
    return [
        {
            "at": event.created_at.isoformat(),
            "actor": event.actor,
            "action": event.action,
            "from_level": (event.before or {}).get("esi_level"),
            "esi_level": (event.after or {}).get("esi_level"),
            "words": (event.after or {}).get("words", []),
            "reason": event.reason,
        }
        for event in events
    ]


def live_view(session: Session, incident_id: str) -> dict[str, Any] | None:
    """The live call of an incident, None when the incident is not a live call."""
    call = session.get(LiveCall, incident_id)
    incident = session.get(Incident, incident_id)
    if call is None or incident is None:
        return None
    segments = final_segments(session, incident_id)
    partials = session.scalars(
        select(CallPartial).where(CallPartial.incident_id == incident_id).order_by(CallPartial.track)
    )
    card = incident_card(incident)
    step = compression_step(card) if card is not None and card.id.startswith(CPR_CARD_PREFIX) else None
    clock = call_clock(call, step_marked_at(session, incident_id, step))
    return {
        "incident_id": incident_id,
        "call_id": call.call_id,
        "source": call.source,
        "vendor": call.vendor,
        "answered_at": call.answered_at.isoformat(),
        "ended_at": None if call.ended_at is None else call.ended_at.isoformat(),
        "end_reason": call.end_reason,
        "esi_level": incident.esi_level,
        "transcript": [
            {
                "sequence": segment.sequence,
                "track": segment.track,
                "text": segment.text,
                "offset_s": _offset(call, segment.spoken_at),
                "promoted": segment.promoted,
            }
            for segment in segments
        ],
        "partials": [
            {"track": p.track, "sequence": p.sequence, "text": p.text, "offset_s": _offset(call, p.spoken_at)}
            for p in partials
        ],
        "levels": level_history(session, incident_id),
        "lower_reading": None
        if call.lower_level is None
        else {"esi_level": call.lower_level, "words": call.lower_words or []},
        "address": _answer(call, call.address, call.address_at, call.address_confirmed_by),
        "callback_number": _answer(call, call.callback_number, call.callback_at, call.callback_confirmed_by),
        "tcpr": {
            "arrest": clock.arrest,
            "recognised": clock.recognised,
            "arrest_rule": call.arrest_rule,
            "address_s": clock.address_s,
            "recognised_by_product_s": clock.recognised_by_product_s,
            "recognised_by_dispatcher_s": clock.recognised_by_dispatcher_s,
            "card_on_screen_s": clock.card_on_screen_s,
            "first_compression_s": clock.first_compression_s,
            "compression_step": step,
        },
    }
