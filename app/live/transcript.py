"""A live call's transcript as triage reads it: one utterance per line in the order they were said, the call-taker's
prefixed `CT: `, the caller's `C: ` (so the question gives the answer its meaning)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import CallSegment
from app.live.events import Track

PREFIXES = {Track.CALL_TAKER.value: "CT: ", Track.CALLER.value: "C: "}


def final_segments(session: Session, incident_id: str) -> Sequence[CallSegment]:
    """The call's final utterances in the order they were said (ties: by sequence)."""
    return session.scalars(
        select(CallSegment)
        .where(CallSegment.incident_id == incident_id)
        .order_by(CallSegment.spoken_at, CallSegment.sequence)
    ).all()


def transcript_text(segments: Iterable[CallSegment]) -> str:
    """`CT: what's the address?\\nC: 12 Elm Street` ..."""
    return "\n".join(PREFIXES[segment.track] + " ".join(segment.text.split()) for segment in segments)
