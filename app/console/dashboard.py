"""The supervisor's dashboard: the last hour from the database, drawn with matplotlib."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.console.render import ESI_COLOURS
from app.db.models import Incident, IncidentEvent, Outcome, utcnow
from scheduler.request import ESI_LEVELS

FIRST_TOKEN_TARGET_S = {1: 10.0, 2: 30.0, 3: 60.0, 4: 120.0, 5: 300.0}
"""Per-level targets for the first guidance token after intake (the centre's own service levels)."""
WINDOW = dt.timedelta(hours=1)


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
