"""The supervisor's dashboard: the last hour from the database (matplotlib), and weekly agreement with dispatchers."""

from __future__ import annotations

import datetime as dt
import html
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.console.render import ESI_COLOURS
from app.db.models import Classification, Incident, IncidentEvent, Outcome, utcnow
from scheduler.policy import ESI_LEVELS

FIRST_TOKEN_TARGET_S = {1: 10.0, 2: 30.0, 3: 60.0, 4: 120.0, 5: 300.0}
"""Per-level targets for the first guidance token after intake (the centre's own service levels)."""
WINDOW = dt.timedelta(hours=1)
AGREEMENT_WEEKS = 8
"""How many ISO weeks (UTC, the current one included) the agreement table covers."""


@dataclass(slots=True)
class DashboardData:
    minutes: list[dt.datetime] = field(default_factory=list)
    wait_s: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    ttft_s: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    depth: dict[int, list[int]] = field(default_factory=dict)
    target_met: dict[int, tuple[int, int]] = field(default_factory=dict)
    tokens_per_min: list[int] = field(default_factory=list)
    evictions_per_min: list[int] = field(default_factory=list)
    overrides_up: list[int] = field(default_factory=list)
    overrides_down: list[int] = field(default_factory=list)
    hours: list[dt.datetime] = field(default_factory=list)


def dashboard_data(session: Session, now: dt.datetime | None = None) -> DashboardData:
    now = now or utcnow()
    start = now - WINDOW
    data = DashboardData()
    data.minutes = [start + dt.timedelta(minutes=index) for index in range(61)]
    rows = session.execute(
        select(Incident.accepted_at, Incident.queued_at, Incident.esi_level, Incident.guidance_state, Outcome)
        .outerjoin(Outcome, Outcome.incident_id == Incident.id)
        .where((Incident.accepted_at >= start) | (Incident.guidance_state.in_(["queued", "prefilling", "generating"])))
    ).all()
    depth = {level: [0] * len(data.minutes) for level in ESI_LEVELS}
    tokens, evictions = [0] * len(data.minutes), [0] * len(data.minutes)
    met: dict[int, list[int]] = {level: [0, 0] for level in ESI_LEVELS}
    for accepted_at, queued_at, level, state, joined in rows:
        outcome: Outcome | None = joined
        if level is None or queued_at is None:
            continue
        left = queued_at + dt.timedelta(seconds=outcome.queue_wait_s) if outcome is not None else None
        if left is None and state != "queued":
            left = now  # in the engine: no longer waiting
        for index, minute in enumerate(data.minutes):
            if queued_at <= minute and (left is None or minute < left):
                depth[level][index] += 1
        if outcome is None:
            continue
        data.wait_s[level].append(outcome.queue_wait_s)
        if outcome.ttft_s is not None:
            data.ttft_s[level].append(outcome.ttft_s)
            first_token_after = (queued_at - accepted_at).total_seconds() + outcome.queue_wait_s + outcome.ttft_s
            met[level][1] += 1
            met[level][0] += first_token_after <= FIRST_TOKEN_TARGET_S[level]
        if outcome.finished_at >= start:
            index = min(60, int((outcome.finished_at - start).total_seconds() // 60))
            tokens[index] += outcome.tokens
            evictions[index] += outcome.evictions
    data.depth = depth
    data.tokens_per_min = tokens
    data.evictions_per_min = evictions
    data.target_met = {level: (hit, total) for level, (hit, total) in met.items()}
    day_start = now - dt.timedelta(hours=24)
    data.hours = [day_start + dt.timedelta(hours=index) for index in range(25)]
    up, down = [0] * 25, [0] * 25
    for event in session.scalars(
        select(IncidentEvent).where(IncidentEvent.action == "override", IncidentEvent.created_at >= day_start)
    ):
        before = (event.before or {}).get("esi_level")
        after = (event.after or {}).get("esi_level")
        index = min(24, int((event.created_at - day_start).total_seconds() // 3600))
        if isinstance(before, int) and isinstance(after, int) and after > before:
            down[index] += 1
        else:
            up[index] += 1  # more urgent, or set before any classification
    data.overrides_up, data.overrides_down = up, down
    return data


def dashboard_figure(data: DashboardData) -> Any:
    """Six panels a supervisor reads at a glance."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(15, 8), layout="constrained")
    axes = figure.subplots(2, 3)
    levels = [str(level) for level in ESI_LEVELS]
    colours = [ESI_COLOURS[level] for level in ESI_LEVELS]

    def boxes(axis: Any, values: dict[int, list[float]], title: str) -> None:
        series = [values.get(level, []) or [0.0] for level in ESI_LEVELS]
        axis.boxplot(series, tick_labels=levels, showfliers=False)
        axis.set_title(title)
        axis.set_xlabel("ESI level")
        axis.set_ylabel("seconds")

    boxes(axes[0][0], data.wait_s, "Queue wait, last hour")
    boxes(axes[0][1], data.ttft_s, "Time to first guidance token, last hour")
    minutes = [-60 + index for index in range(len(data.minutes))]
    axis = axes[0][2]
    axis.stackplot(minutes, *[data.depth[level] for level in ESI_LEVELS], labels=levels, colors=colours)
    axis.set_title("Queue depth by level")
    axis.set_xlabel("minutes ago")
    axis.legend(title="ESI", fontsize="small", loc="upper left")
    axis = axes[1][0]
    shares = [
        100.0 * hit / total if total else 0.0
        for hit, total in (data.target_met.get(level, (0, 0)) for level in ESI_LEVELS)
    ]
    axis.bar(levels, shares, color=colours)
    for index, level in enumerate(ESI_LEVELS):
        hit, total = data.target_met.get(level, (0, 0))
        axis.annotate(f"{hit}/{total}", (index, shares[index]), ha="center", va="bottom", fontsize="small")
    axis.set_ylim(0, 110)
    axis.set_title("Meeting the first-token target (%)")
    axis.set_xlabel("ESI level")
    axis = axes[1][1]
    axis.plot(minutes, data.tokens_per_min, color="#1565c0", label="tokens / min")
    axis.set_xlabel("minutes ago")
    axis.set_title("Engine throughput and cache evictions")
    twin = axis.twinx()
    twin.bar(minutes, data.evictions_per_min, color="#e65100", alpha=0.5, label="evictions / min")
    axis.set_ylabel("tokens / min")
    twin.set_ylabel("evictions and preemptions / min")
    axis = axes[1][2]
    hours = [-24 + index for index in range(len(data.hours))]
    axis.bar(hours, data.overrides_up, color="#b71c1c", label="up-triage (more urgent)")
    axis.bar(hours, data.overrides_down, bottom=data.overrides_up, color="#1565c0", label="down-triage")
    axis.set_title("Overrides per hour")
    axis.set_xlabel("hours ago")
    axis.legend(fontsize="small")
    return figure


@dataclass(frozen=True, slots=True)
class WeekAgreement:
    """One ISO week (by arrival, UTC) of classified incidents: the model's level against the final level."""

    week: str
    """ISO year and week, e.g. "2026-W47"."""
    classified: int
    overridden: int
    """Incidents a dispatcher set the level of (an override, even to the model's level)."""
    agreed: int
    """Incidents whose final level is the model's level."""
    up: int
    """Final level more urgent than the model's."""
    down: int
    """Final level less urgent than the model's."""

    @property
    def agreement(self) -> float:
        return self.agreed / self.classified


def iso_week(moment: dt.datetime | dt.date) -> str:
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"


def agreement_weeks(now: dt.datetime, weeks: int = AGREEMENT_WEEKS) -> tuple[dt.datetime, list[str]]:
    """The first Monday 00:00 UTC of the window, and the window's ISO weeks, oldest first."""
    monday = now.astimezone(dt.UTC).date() - dt.timedelta(days=now.astimezone(dt.UTC).weekday())
    first = monday - dt.timedelta(weeks=weeks - 1)
    labels = [iso_week(first + dt.timedelta(weeks=index)) for index in range(weeks)]
    return dt.datetime.combine(first, dt.time(), tzinfo=dt.UTC), labels


def weekly_agreement(
    session: Session, now: dt.datetime | None = None, weeks: int = AGREEMENT_WEEKS
) -> list[WeekAgreement]:
    """Per ISO week with classified incidents (weeks without any are left out, not zero): how many, how many a
    dispatcher overrode, and how many ended at the latest classification's level, above it or below it."""
    now = now or utcnow()
    start, _ = agreement_weeks(now, weeks)
    in_window = (Incident.accepted_at >= start) & (Incident.accepted_at <= now)
    latest = (
        select(Classification.incident_id, func.max(Classification.id).label("id"))
        .join(Incident, Incident.id == Classification.incident_id)
        .where(in_window)
        .group_by(Classification.incident_id)
        .subquery()
    )
    rows = session.execute(
        select(Incident.accepted_at, Classification.esi_level, Incident.esi_level, Incident.override_level)
        .join(latest, latest.c.incident_id == Incident.id)
        .join(Classification, Classification.id == latest.c.id)
    ).all()
    counts: dict[str, list[int]] = {}
    for accepted_at, model_level, final_level, override_level in rows:
        week = counts.setdefault(iso_week(accepted_at), [0, 0, 0, 0, 0])
        final = final_level if final_level is not None else model_level
        week[0] += 1
        week[1] += override_level is not None
        week[2] += final == model_level
        week[3] += final < model_level
        week[4] += final > model_level
    return [WeekAgreement(week, *figures) for week, figures in sorted(counts.items())]


def render_agreement(data: list[WeekAgreement], now: dt.datetime | None = None, weeks: int = AGREEMENT_WEEKS) -> str:
    """The weekly agreement table, every week of the window listed (a week without data says so)."""
    _, labels = agreement_weeks(now or utcnow(), weeks)
    by_week = {item.week: item for item in data}
    lines = [
        '<table class="agreement"><caption>Model and dispatchers, by ISO week (UTC)</caption><thead><tr>'
        "<th>week</th><th>classified</th><th>overridden</th><th>final = model</th>"
        '<th title="final level more urgent than the model\'s">up-triaged</th>'
        '<th title="final level less urgent than the model\'s">down-triaged</th></tr></thead><tbody>'
    ]
    for label in reversed(labels):
        item = by_week.get(label)
        if item is None:
            lines.append(
                f'<tr><td>{html.escape(label)}</td><td colspan="5" class="empty">no classified incidents</td></tr>'
            )
            continue
        lines.append(
            f"<tr><td>{html.escape(label)}</td><td>{item.classified}</td><td>{item.overridden}</td>"
            f"<td>{item.agreed} ({item.agreement:.0%})</td><td>{item.up}</td><td>{item.down}</td></tr>"
        )
    lines.append("</tbody></table>")
    return "".join(lines)
