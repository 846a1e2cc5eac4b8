"""A live call's events written to the database: the call and its incident on the first event, each final utterance
once (by call and sequence), each track's latest partial, the end of the stream. Duplicates, reordering and late
events change nothing they should not."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy import func, inspect, select
from sqlalchemy.orm import Session

from app.db.models import CallPartial, CallSegment, Incident, IncidentEvent, LiveCall, Outbox, new_id, utcnow
from app.intake.cleaning import is_triageable
from app.live.events import CallEvent, EventKind, Track

CALL_WEBHOOK_PREFIX = "call:"
"""A live call's incident has the webhook id `call:<call id>` (unique per source, as every incident's)."""


@dataclass(frozen=True, slots=True)
class Recorded:
    """What an event did: the call's incident, whether it changed nothing (a duplicate or a stale partial), whether
    it opened the call, and whether the call has new final words to triage."""

    incident_id: str
    duplicate: bool = False
    new_call: bool = False
    new_words: bool = False
    words: str = ""
    """The new final utterance's text when the event stored one and it is not the call-taker's (what the hand-over
    weighs for urgency)."""


def find_call(session: Session, source: str, call_id: str) -> LiveCall | None:
    return session.scalar(select(LiveCall).where(LiveCall.source == source, LiveCall.call_id == call_id))


@dataclass(slots=True)
class Batch:
    """What one transaction has read or added so far, so that each event of a batch costs a statement or two (the
    session is not flushed before every query)."""

    calls: dict[tuple[str, str], LiveCall] = field(default_factory=dict)
    segments: set[tuple[str, int]] = field(default_factory=set)
    """(incident id, sequence) of the final utterances added in this batch."""
    top_finals: dict[tuple[str, str], int] = field(default_factory=dict)
    """(incident id, track) -> the highest final sequence of the track."""
    partials: dict[tuple[str, str], CallPartial | None] = field(default_factory=dict)
    outboxed: set[str] = field(default_factory=set)
    looked_up: set[tuple[str, str]] = field(default_factory=set)
    """(source, call id) read by `preload`, found or not: not looked up again."""

    def preload(self, session: Session, events: Iterable[CallEvent]) -> None:
        """Read the batch's calls, their partials and each track's highest final in three statements, rather than
        three for each event (a batch mostly holds one event of each of many calls)."""
        by_source: dict[str, set[str]] = {}
        for event in events:
            by_source.setdefault(event.source, set()).add(event.call_id)
        for source, call_ids in by_source.items():
            found = select(LiveCall).where(LiveCall.source == source, LiveCall.call_id.in_(sorted(call_ids)))
            self.calls.update({(source, call.call_id): call for call in session.scalars(found)})
            self.looked_up.update((source, call_id) for call_id in call_ids)
        incident_ids = [call.incident_id for call in self.calls.values()]
        if not incident_ids:
            return
        for incident_id in incident_ids:
            self.opened(incident_id)  # nothing of a track unless read below
        for partial in session.scalars(select(CallPartial).where(CallPartial.incident_id.in_(incident_ids))):
            self.partials[(partial.incident_id, partial.track)] = partial
        tops = (
            select(CallSegment.incident_id, CallSegment.track, func.max(CallSegment.sequence))
            .where(CallSegment.incident_id.in_(incident_ids))
            .group_by(CallSegment.incident_id, CallSegment.track)
        )
        for incident_id, track, top in session.execute(tops):
            self.top_finals[(incident_id, track)] = top

    def opened(self, incident_id: str) -> None:
        """A call with no partial and no final on either track (yet)."""
        for track in Track:
            self.top_finals[(incident_id, track.value)] = -1
            self.partials[(incident_id, track.value)] = None


def _open_call(session: Session, event: CallEvent, now: dt.datetime) -> LiveCall:
    """The call's incident (its transcript empty until the first final utterance) and live call row."""
    answered = event.answered_at or event.spoken_at
    incident = Incident(
        id=new_id(),
        source=event.source,
        webhook_id=CALL_WEBHOOK_PREFIX + event.call_id,
        call_id=event.call_id,
        text="",
        received_at=answered,
        accepted_at=now,
    )
    session.add(incident)
    call = LiveCall(
        incident_id=incident.id,
        source=event.source,
        call_id=event.call_id,
        vendor=event.vendor,
        answered_at=answered,
        last_event_at=now,
        finals=0,
        triaged_finals=0,
    )
    session.add(call)
    session.add(
        IncidentEvent(
            incident_id=incident.id,
            actor=f"system:intake:{event.source}",
            action="received",
            after={"call_id": event.call_id, "live": event.vendor, "answered_at": answered.isoformat()},
        )
    )
    # The batch writer does not flush before its queries, and the unit of work does not order the call's partial,
    # segments and outbox (no relationship) after their incident: written now, the incident is in before they are.
    session.flush()
    return call


def record_event(session: Session, event: CallEvent, now: dt.datetime, batch: Batch | None = None) -> Recorded:
    """Write one event (the caller commits); `batch`: what the transaction holds already."""
    batch = batch if batch is not None else Batch()
    key = (event.source, event.call_id)
    call = batch.calls.get(key)
    if call is None and key not in batch.looked_up:
        call = find_call(session, event.source, event.call_id)
    new_call = call is None
    if call is None:
        call = _open_call(session, event, now)
        batch.opened(call.incident_id)
    batch.calls[key] = call
    call.last_event_at = now
    if event.answered_at is not None and event.answered_at < call.answered_at:
        call.answered_at = event.answered_at  # a start that came after the first words
    match event.kind:
        case EventKind.STARTED:
            return Recorded(call.incident_id, duplicate=not new_call, new_call=new_call)
        case EventKind.STOPPED | EventKind.ERROR:
            reason = "stopped" if event.kind is EventKind.STOPPED else f"error: {event.detail}"
            session.flush()
            ended = end_call(session, call, reason, now)
            batch.partials = {k: v for k, v in batch.partials.items() if k[0] != call.incident_id}
            fresh = ended and call.finals > call.triaged_finals  # partials kept as final: words to triage
            return Recorded(call.incident_id, duplicate=not ended, new_call=new_call, new_words=fresh)
    if not event.text:
        return Recorded(call.incident_id, duplicate=True, new_call=new_call)
    if event.offset_s is not None:  # on the call's own clock, whatever answer time this event's sender assumed
        event = dataclasses.replace(event, spoken_at=call.answered_at + dt.timedelta(seconds=event.offset_s))
    if event.final:
        stored = _store_final(session, call, event, now, batch)
        words = event.text if stored and event.track is not Track.CALL_TAKER else ""  # the call-taker raises none
        return Recorded(call.incident_id, duplicate=not stored, new_call=new_call, new_words=stored, words=words)
    kept = _keep_partial(session, call, event, now, batch)
    return Recorded(call.incident_id, duplicate=not kept, new_call=new_call)


def _top_final(session: Session, batch: Batch, incident_id: str, track: str) -> int:
    key = (incident_id, track)
    if key not in batch.top_finals:
        top = session.scalar(
            select(func.max(CallSegment.sequence)).where(
                CallSegment.incident_id == incident_id, CallSegment.track == track
            )
        )
        batch.top_finals[key] = -1 if top is None else top
    return batch.top_finals[key]


def _store_final(session: Session, call: LiveCall, event: CallEvent, now: dt.datetime, batch: Batch) -> bool:
    """A final utterance, once; its track's older partial goes (it is what the partial became)."""
    assert event.track is not None
    key = (call.incident_id, event.sequence)
    if key in batch.segments or session.scalar(
        select(CallSegment.id).where(
            CallSegment.incident_id == call.incident_id, CallSegment.sequence == event.sequence
        )
    ):
        return False
    track = event.track.value
    session.add(
        CallSegment(
            incident_id=call.incident_id,
            sequence=event.sequence,
            track=track,
            text=event.text,
            spoken_at=event.spoken_at,
            language=event.language,
            confidence=event.confidence,
            received_at=now,
            promoted=False,
        )
    )
    batch.segments.add(key)
    top = _top_final(session, batch, call.incident_id, track)
    batch.top_finals[(call.incident_id, track)] = max(top, event.sequence)
    partial = _partial(session, batch, call.incident_id, track)
    if partial is not None and partial.sequence < event.sequence:
        session.delete(partial) if inspect(partial).persistent else session.expunge(partial)
        batch.partials[(call.incident_id, track)] = None
    call.finals += 1
    if call.incident_id not in batch.outboxed and is_triageable(event.text):
        if session.get(Outbox, call.incident_id) is None:
            session.add(Outbox(incident_id=call.incident_id))  # owed a classification from its first words on
        batch.outboxed.add(call.incident_id)
    return True


def _partial(session: Session, batch: Batch, incident_id: str, track: str) -> CallPartial | None:
    key = (incident_id, track)
    if key not in batch.partials:
        batch.partials[key] = session.get(CallPartial, key)
    return batch.partials[key]


def _keep_partial(session: Session, call: LiveCall, event: CallEvent, now: dt.datetime, batch: Batch) -> bool:
    """The track's latest partial: kept unless a later partial or final of the track is already in."""
    assert event.track is not None
    track = event.track.value
    if _top_final(session, batch, call.incident_id, track) >= event.sequence:
        return False
    partial = _partial(session, batch, call.incident_id, track)
    if partial is None:
        partial = CallPartial(incident_id=call.incident_id, track=track, sequence=event.sequence, text=event.text,
                              spoken_at=event.spoken_at, received_at=now)  # fmt: skip
        session.add(partial)
        batch.partials[(call.incident_id, track)] = partial
        return True
    if partial.sequence >= event.sequence:
        return False
    partial.sequence, partial.text, partial.spoken_at, partial.received_at = (
        event.sequence,
        event.text,
        event.spoken_at,
        now,
    )
    return True


def _first_words(session: Session, call: LiveCall, text: str) -> None:
    """The first triageable words: the call is owed a classification from now on (the outbox entry the reconciler
    watches, as for any message)."""
    if is_triageable(text) and session.get(Outbox, call.incident_id) is None:
        session.add(Outbox(incident_id=call.incident_id))


def end_call(session: Session, call: LiveCall, reason: str, now: dt.datetime | None = None) -> bool:
    """End the call's stream (once): each track's partial is kept as a final utterance (the stream will not finalise
    it), and the end is audited. Whether it ended now (False: it had ended already)."""
    if call.ended_at is not None:
        return False
    call.ended_at = now or utcnow()
    call.end_reason = reason[:255]
    promoted = 0
    for partial in session.scalars(select(CallPartial).where(CallPartial.incident_id == call.incident_id)):
        taken = session.scalar(
            select(CallSegment.id).where(
                CallSegment.incident_id == call.incident_id, CallSegment.sequence == partial.sequence
            )
        )
        if taken is None:
            session.add(
                CallSegment(
                    incident_id=call.incident_id,
                    sequence=partial.sequence,
                    track=partial.track,
                    text=partial.text,
                    spoken_at=partial.spoken_at,
                    received_at=partial.received_at,
                    promoted=True,
                )
            )
            call.finals += 1
            promoted += 1
            _first_words(session, call, partial.text)
        session.delete(partial)
    session.add(
        IncidentEvent(
            incident_id=call.incident_id,
            actor="system:live",
            action="call_ended",
            after={"reason": call.end_reason, "partials_kept": promoted},
        )
    )
    return True
