"""The dashboard's dispatch-floor panel: the NFPA 1225 intervals (answer to dispatch, dispatch to en route, en route
to on scene) per ESI level and per call, from the units' times: the floor's own figures, apart from the engine's."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.console.dashboard import nearest_rank
from app.console.render import badge, clock
from app.db.models import Incident, utcnow
from app.units.dispatching import assignments_of
from app.units.intervals import INTERVALS, PROCESSING_TARGET_S, answered_at, floor_times
from scheduler.policy import ESI_LEVELS

FLOOR_HOURS = 24
"""The panel covers the calls first dispatched in the last day (a shift or three)."""
RECENT_CALLS = 8
"""Calls listed one by one, newest dispatch first."""


@dataclass(frozen=True, slots=True)
class CallIntervals:
    incident_id: str
    esi_level: int | None
    complaint: str
    intervals: tuple[float | None, float | None, float | None]


@dataclass(slots=True)
class FloorData:
    """Per level: each interval's seconds over the calls that have it; and the latest calls one by one."""

    since: dt.datetime
    by_level: dict[int, list[list[float]]] = field(default_factory=dict)
    """Level -> [answer-to-dispatch seconds, dispatch-to-en-route seconds, en-route-to-on-scene seconds]."""
    calls: list[CallIntervals] = field(default_factory=list)


def floor_data(session: Session, now: dt.datetime | None = None, hours: int = FLOOR_HOURS) -> FloorData:
    """The intervals of the calls first dispatched in the last `hours` (two queries)."""
    now = now or utcnow()
    data = FloorData(since=now - dt.timedelta(hours=hours))
    incidents = session.scalars(
        select(Incident).where(Incident.dispatched_at >= data.since).order_by(Incident.dispatched_at.desc())
    ).all()
    assignments = assignments_of(session, [incident.id for incident in incidents])
    for incident in incidents:
        times = floor_times(answered_at(incident.received_at, incident.accepted_at), assignments[incident.id])
        intervals = times.intervals()
        if incident.esi_level in ESI_LEVELS:
            columns = data.by_level.setdefault(incident.esi_level, [[], [], []])
            for column, seconds in zip(columns, intervals, strict=True):
                if seconds is not None:
                    column.append(seconds)
        if len(data.calls) < RECENT_CALLS:
            data.calls.append(CallIntervals(incident.id, incident.esi_level, incident.chief_complaint or "", intervals))
    for columns in data.by_level.values():
        for column in columns:
            column.sort()
    return data


def _spread(values: Sequence[float]) -> str:
    if not values:
        return '<td class="empty">none yet</td>'
    return (
        f"<td>{clock(nearest_rank(values, 50))} / {clock(nearest_rank(values, 90))} <small>({len(values)})</small></td>"
    )


def _met(values: Sequence[float]) -> str:
    if not values:
        return '<td class="empty">-</td>'
    within = sum(value <= PROCESSING_TARGET_S for value in values)
    return f"<td>{within} of {len(values)} ({within / len(values):.0%})</td>"


def render_floor(data: FloorData) -> str:
    """The panel: per level p50 / p90 (calls) of each interval and the share dispatched within 60 s of answer; then
    the latest calls with their own intervals (a click opens one)."""
    heads = "".join(f"<th>{name}<br><small>p50 / p90 (calls)</small></th>" for name in INTERVALS)
    rows = []
    for level in ESI_LEVELS:
        columns = data.by_level.get(level)
        if columns is None:
            rows.append(f'<tr><td>ESI {level}</td><td colspan="4" class="empty">no call dispatched</td></tr>')
            continue
        rows.append(f"<tr><td>ESI {level}</td>{''.join(_spread(column) for column in columns)}{_met(columns[0])}</tr>")
    since = data.since.astimezone().strftime("%a %H:%M")
    table = (
        '<table class="agreement floor"><caption>Dispatch floor: NFPA 1225 intervals of the calls dispatched since '
        f"{since} (the first unit's times; not the guidance engine's)</caption><thead><tr><th>level</th>{heads}"
        f"<th>dispatched within 60 s of answer</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    return f'<section id="floor-panel">{table}{_calls(data.calls)}</section>'


def _calls(calls: Sequence[CallIntervals]) -> str:
    if not calls:
        return (
            '<p class="empty">No call was dispatched in the window: the intervals appear with the first unit sent.</p>'
        )
    heads = "".join(f"<th>{name}</th>" for name in INTERVALS)
    rows = "".join(
        f'<tr class="incident" data-id="{call.incident_id}"><td>{badge(call.esi_level)}</td>'
        f"<td>{html.escape(call.complaint)}</td>"
        + "".join(f"<td>{clock(value) if value is not None else 'not yet'}</td>" for value in call.intervals)
        + "</tr>"
        for call in calls
    )
    return (
        '<table class="agreement floor-calls"><caption>The latest dispatched calls</caption><thead><tr><th>ESI</th>'
        f"<th>chief complaint</th>{heads}</tr></thead><tbody>{rows}</tbody></table>"
    )
