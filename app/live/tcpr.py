"""The telecommunicator-CPR clock of a live call, and the monthly figures the American Heart Association's T-CPR
program asks a centre to report: arrest calls, the share recognised, the median time from answer to recognition,
the share given T-CPR, the median time from answer to the first compression instruction."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import CallSegment, IncidentEvent, LiveCall
from app.guidance.cards import Card
from app.live.events import Track
from triage_models.result import TriageResult
from triage_models.transcript import fold_accents

CPR_CARD_PREFIX = "cpr-"
COMPRESSION_WORDS = re.compile(
    r"\b(?:(?:push|press|pump)(?:ing)?\s+(?:straight\s+)?(?:down\s+)?(?:hard|fast|on\s+(?:the|his|her|their)\s+chest|"
    r"in\s+the\s+(?:center|centre|middle)\s+of\s+(?:the|his|her|their)\s+chest)|"
    r"(?:start|begin|do|give)\s+(?:chest\s+)?compressions|chest\s+compressions|"
    r"(?:empuje|empujar|empujando|presione|presionar|presionando|apriete|comprima)\w*\s+"
    r"(?:fuerte|rapido|(?:sobre\s+|en\s+)?el\s+pecho|en\s+el\s+centro\s+del\s+pecho|hacia\s+abajo)|"
    r"(?:empiece|comience|haga)\s+(?:las\s+)?compresiones|compresiones\s+(?:de\s+)?(?:pecho|toracicas))",
    re.IGNORECASE,
)
"""The call-taker telling the caller to push on the chest ("push hard and fast in the centre of the chest",
"empuje fuerte en el centro del pecho")."""


def arrest_rules(cards: Iterable[Card]) -> frozenset[str]:
    """The red-flag rules that put a CPR card on a call: an ESI 1 reading by one of them is an arrest recognised."""
    return frozenset(rule for card in cards if card.id.startswith(CPR_CARD_PREFIX) for rule in card.rule_ids)


def arrest_rule_of(result: TriageResult, card_id: str | None, rules: frozenset[str]) -> str | None:
    """The rule by which this reading recognises a cardiac arrest (a CPR card, or ESI 1 by an arrest rule)."""
    fired = [item.rule_id for item in result.evidence if item.floor and not item.resolved]
    named = [rule for rule in fired if rule in rules]
    if card_id is not None and card_id.startswith(CPR_CARD_PREFIX):
        return named[0] if named else card_id
    if result.esi_level == 1 and named:
        return named[0]
    return None


def first_compression(segments: Sequence[CallSegment]) -> CallSegment | None:
    """The call-taker's first utterance telling the caller to push on the chest."""
    for segment in segments:
        if segment.track == Track.CALL_TAKER.value and COMPRESSION_WORDS.search(fold_accents(segment.text)):
            return segment
    return None


def compression_step(card: Card) -> int | None:
    """The card's first step telling the caller to push (numbered from 1), None for a card without one."""
    for number, step in enumerate(card.steps, start=1):
        if COMPRESSION_WORDS.search(fold_accents(step)):
            return number
    return None


@dataclass(frozen=True, slots=True)
class CallClock:
    """One call's T-CPR times (None: did not happen), seconds from answer where said."""

    incident_id: str
    answered_at: dt.datetime
    address_s: float | None
    recognised_by_product_s: float | None
    recognised_by_dispatcher_s: float | None
    card_on_screen_s: float | None
    first_compression_s: float | None
    arrest: bool
    recognised: bool


def _since(answered: dt.datetime, at: dt.datetime | None) -> float | None:
    return None if at is None else round(max(0.0, (at - answered).total_seconds()), 3)


def step_marked_at(session: Session, incident_id: str, step: int | None) -> dt.datetime | None:
    """When a dispatcher first marked the card's compression step done."""
    if step is None:
        return None
    for event in session.scalars(
        select(IncidentEvent)
        .where(IncidentEvent.incident_id == incident_id, IncidentEvent.action == "card_step")
        .order_by(IncidentEvent.id)
    ):
        after: dict[str, Any] = event.after or {}
        done = after.get("steps_done")
        if after.get("step") == step and isinstance(done, list) and step in done:
            return event.created_at
    return None


def call_clock(call: LiveCall, step_marked: dt.datetime | None) -> CallClock:
    """The call's clock from its row and the time its card's compression step was marked."""
    answered = call.answered_at
    compressions = [at for at in (call.first_compression_at, step_marked) if at is not None]
    product = call.arrest_recognised_at if call.dispatcher_arrest is not False else None
    dispatcher = call.dispatcher_arrest_at if call.dispatcher_arrest and call.dispatcher_recognised_on_call else None
    arrest = bool(call.dispatcher_arrest) or product is not None
    return CallClock(
        incident_id=call.incident_id,
        answered_at=answered,
        address_s=_since(answered, call.address_at),
        recognised_by_product_s=_since(answered, product),
        recognised_by_dispatcher_s=_since(answered, dispatcher),
        card_on_screen_s=_since(answered, call.card_on_screen_at),
        first_compression_s=_since(answered, min(compressions) if compressions else None),
        arrest=arrest,
        recognised=product is not None or dispatcher is not None,
    )


@dataclass(frozen=True, slots=True)
class MonthlyFigures:
    """What the AHA T-CPR program asks a centre to report for a month (times in seconds; None without data)."""

    month: str
    live_calls: int
    arrest_calls: int
    recognised: int
    share_recognised: float | None
    median_answer_to_recognition_s: float | None
    given_tcpr: int
    share_given_tcpr: float | None
    median_answer_to_first_compression_s: float | None


def month_bounds(month: str) -> tuple[dt.datetime, dt.datetime]:
    """`2026-11` as [its first instant, the next month's) in UTC; ValueError for anything else."""
    try:
        start = dt.datetime.strptime(month, "%Y-%m").replace(tzinfo=dt.UTC)
    except ValueError:
        raise ValueError(f"month must be YYYY-MM, e.g. 2026-11, not {month[:20]!r}") from None
    end = (start + dt.timedelta(days=32)).replace(day=1)
    return start, end


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def monthly_figures(month: str, clocks: Sequence[CallClock], live_calls: int) -> MonthlyFigures:
    """The figures of the calls answered that month."""
    arrests = [clock for clock in clocks if clock.arrest]
    recognised = [clock for clock in arrests if clock.recognised]
    to_recognition = [
        min(t for t in (c.recognised_by_product_s, c.recognised_by_dispatcher_s) if t is not None) for c in recognised
    ]
    given = [clock for clock in recognised if clock.first_compression_s is not None]
    return MonthlyFigures(
        month=month,
        live_calls=live_calls,
        arrest_calls=len(arrests),
        recognised=len(recognised),
        share_recognised=round(len(recognised) / len(arrests), 4) if arrests else None,
        median_answer_to_recognition_s=_median(to_recognition),
        given_tcpr=len(given),
        share_given_tcpr=round(len(given) / len(recognised), 4) if recognised else None,
        median_answer_to_first_compression_s=_median([c.first_compression_s for c in given if c.first_compression_s]),
    )


def report(session: Session, month: str) -> tuple[MonthlyFigures, list[CallClock]]:
    """The month's figures and each of its live calls' clocks (answered in that month, UTC)."""
    from app.db.models import Incident
    from app.guidance.incident_card import incident_card

    start, end = month_bounds(month)
    calls = session.scalars(
        select(LiveCall).where(LiveCall.answered_at >= start, LiveCall.answered_at < end).order_by(LiveCall.answered_at)
    ).all()
    clocks = []
    for call in calls:
        incident = session.get(Incident, call.incident_id)
        card = incident_card(incident) if incident is not None else None
        step = compression_step(card) if card is not None and card.id.startswith(CPR_CARD_PREFIX) else None
        clocks.append(call_clock(call, step_marked_at(session, call.incident_id, step)))
    return monthly_figures(month, clocks, len(calls)), clocks


def report_csv(figures: MonthlyFigures, clocks: Sequence[CallClock]) -> str:
    """The figures (one row), a blank line, then one row per call."""
    out = io.StringIO()
    writer = csv.writer(out)
    summary = asdict(figures)
    writer.writerow(summary)
    writer.writerow(["" if value is None else value for value in summary.values()])
    writer.writerow([])
    fields = [name for name in CallClock.__dataclass_fields__]
    writer.writerow(fields)
    for clock in clocks:
        row = asdict(clock)
        row["answered_at"] = clock.answered_at.isoformat()
        writer.writerow(["" if row[name] is None else row[name] for name in fields])
    return out.getvalue()
