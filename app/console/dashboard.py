"""The dashboard (dispatchers and supervisors): the last hour from the database (matplotlib), and weekly agreement
with dispatchers."""

from __future__ import annotations

import datetime as dt
import html
import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.console.render import ESI_COLOURS
from app.db.models import Classification, GuidanceState, Incident, IncidentEvent, Outcome, utcnow
from scheduler.policy import ESI_LEVELS

FIRST_TOKEN_TARGET_S = {1: 10.0, 2: 30.0, 3: 60.0, 4: 120.0, 5: 300.0}
"""Per-level targets for the first guidance token after intake (the centre's own service levels)."""
MINUTES = 60
"""The last hour: this many clock minutes, the current (partial) one the last."""
HOURS = 24
"""Overrides: this many clock hours in local time, the current (partial) one the last."""
WAITING_STATES = (GuidanceState.QUEUED.value, GuidanceState.PREFILLING.value, GuidanceState.GENERATING.value)
AGREEMENT_WEEKS = 8
"""How many ISO weeks (UTC, the current one included) the agreement table covers."""
MUTED = "#555555"
LEGEND_ROOM = 1.35
"""Room above the highest count on a panel with a legend: the legend (one row, at the top) covers no data."""
MINUTES_SPAN = dt.timedelta(minutes=10)
"""The narrowest per-minute time axis: one minute of data is a bar of a tenth of the panel, not a pixel."""
HOURS_SPAN = dt.timedelta(hours=4)
"""The narrowest per-hour time axis (a single override is a bar of a fifth of the panel)."""
SPREAD_NAMES = ("p50", "p90", "max")
SPREAD_OFFSETS = (-0.27, 0.0, 0.27)
SPREAD_WIDTH = 0.25
SPREAD_ALPHAS = (0.35, 0.65, 1.0)
SPREAD_LABEL: dict[str, Any] = {"rotation": 90, "ha": "center", "va": "bottom", "fontsize": "small"}
SPREAD_ROOM = 1.6
"""Room above the worst wait for its label (written upwards above its bar)."""


@dataclass(slots=True)
class DashboardData:
    """What the dashboard draws. A level without data is absent from the per-level dicts (never a list of zeros);
    counts are ints, times are UTC."""

    now: dt.datetime = field(default_factory=utcnow)
    zone: dt.tzinfo | None = None
    """The time zone the time axes are labelled in; None: the server's local time."""
    minutes: list[dt.datetime] = field(default_factory=list)
    """The starts of the last hour's clock minutes, oldest first; the last is the current minute (up to `now`)."""
    wait_s: dict[int, list[float]] = field(default_factory=dict)
    """Per level: the queue wait of each guidance finished (or failed) in the last hour, ascending."""
    ttft_s: dict[int, list[float]] = field(default_factory=dict)
    """Per level: the time from the engine taking the call to its first guidance token, for those of `wait_s` that
    had one, ascending."""
    depth: dict[int, list[int]] = field(default_factory=dict)
    """Per level with a call waiting for guidance in the last hour: per minute of `minutes`, how many of its calls
    waited in it (a call counts in every minute it spent waiting, so the levels add up)."""
    target_met: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Per level with a first token in the last hour: (calls whose first token came within the level's target after
    intake, calls with a first token)."""
    tokens_per_min: list[int] = field(default_factory=list)
    """Per minute of `minutes`: guidance tokens of the guidance that finished in it."""
    evictions_per_min: list[int] = field(default_factory=list)
    """Per minute of `minutes`: cache evictions and preemptions of the guidance that finished in it."""
    hours: list[dt.datetime] = field(default_factory=list)
    """The starts of the last day's clock hours (local time), oldest first; the last is the current hour."""
    overrides_up: list[int] = field(default_factory=list)
    """Per hour of `hours`: overrides to a more urgent level (or set before any classification)."""
    overrides_down: list[int] = field(default_factory=list)
    """Per hour of `hours`: overrides to a less urgent level."""

    @property
    def finished(self) -> int:
        """How many guidance finished (or failed) in the last hour."""
        return sum(len(values) for values in self.wait_s.values())

    @property
    def overrides(self) -> int:
        return sum(self.overrides_up) + sum(self.overrides_down)

    @property
    def empty(self) -> bool:
        """Nothing to draw: no guidance finished, no call waited, no override."""
        return not self.wait_s and not self.depth and not self.overrides


Row = tuple[Any, ...]
"""One row of `_rows`: the incident's times, levels and state, and its outcome's (None without one)."""


def dashboard_data(session: Session, now: dt.datetime | None = None, zone: dt.tzinfo | None = None) -> DashboardData:
    """The last hour by clock minute (the current one so far) and the overrides of the last day by clock hour, in two
    queries; `zone` is the time zone of the clock hours and the figure's labels (None: the server's local time)."""
    now = now or utcnow()
    end = now.replace(second=0, microsecond=0)
    minutes = [end - dt.timedelta(minutes=MINUTES - 1 - index) for index in range(MINUTES)]
    data = DashboardData(
        now=now, zone=zone, minutes=minutes, tokens_per_min=[0] * MINUTES, evictions_per_min=[0] * MINUTES
    )
    met: dict[int, tuple[int, int]] = {}
    for row in _rows(session, minutes[0]):
        _add_call(data, met, row)
    data.wait_s = {level: sorted(data.wait_s[level]) for level in ESI_LEVELS if level in data.wait_s}
    data.ttft_s = {level: sorted(data.ttft_s[level]) for level in ESI_LEVELS if level in data.ttft_s}
    data.depth = {level: data.depth[level] for level in ESI_LEVELS if level in data.depth}
    data.target_met = {level: met[level] for level in ESI_LEVELS if level in met}
    _add_overrides(session, data)
    return data


def _rows(session: Session, start: dt.datetime) -> Sequence[Row]:
    """The calls waiting for guidance now, and those whose guidance finished since `start`."""
    return session.execute(  # the outcome's columns are None without one
        select(
            Incident.accepted_at,
            Incident.queued_at,
            Incident.esi_level,
            Incident.guidance_state,
            Incident.engine_seen_at,
            Outcome.esi_level,
            Outcome.queue_wait_s,
            Outcome.ttft_s,
            Outcome.tokens,
            Outcome.evictions,
            Outcome.finished_at,
        )
        .outerjoin(Outcome, Outcome.incident_id == Incident.id)
        .where(Incident.guidance_state.in_(WAITING_STATES) | (Outcome.finished_at >= start))
    ).all()


def _add_call(data: DashboardData, met: dict[int, tuple[int, int]], row: Row) -> None:
    """One call into the minutes it waited in, and (finished in the hour) into the waits, first tokens, targets and
    the engine's minutes."""
    accepted_at, queued_at, incident_level, state, seen, served_level, wait, ttft, used, lost, finished_at = row
    # A finished call under the level it was served at, as /metrics counts it (a later override moves neither);
    # a waiting one under its level now.
    level = served_level or incident_level
    if level not in FIRST_TOKEN_TARGET_S:
        return  # not classified yet: in no level's queue
    queued = queued_at or accepted_at
    if finished_at is not None:
        left = queued + dt.timedelta(seconds=wait)
    elif state == GuidanceState.QUEUED.value:
        left = data.now + dt.timedelta(minutes=1)  # still waiting
    else:  # in the engine since an unrecorded moment: the engine's first sign of it, at the latest
        left = min(seen or data.now, data.now)
    # The minutes [queued, left) overlaps: from the one it was queued in to the last one starting before it left.
    first, last = max(0, bisect_right(data.minutes, queued) - 1), bisect_left(data.minutes, left) - 1
    if queued < left and first <= last:
        depth = data.depth.setdefault(level, [0] * MINUTES)
        for index in range(first, last + 1):
            depth[index] += 1
    if finished_at is None or finished_at < data.minutes[0]:
        return
    data.wait_s.setdefault(level, []).append(float(wait))
    if ttft is not None:
        data.ttft_s.setdefault(level, []).append(float(ttft))
        after_intake = (queued - accepted_at).total_seconds() + wait + ttft
        hit, total = met.get(level, (0, 0))
        met[level] = (hit + int(after_intake <= FIRST_TOKEN_TARGET_S[level]), total + 1)
    index = min(MINUTES - 1, int((finished_at - data.minutes[0]).total_seconds() // 60))
    data.tokens_per_min[index] += int(used)
    data.evictions_per_min[index] += int(lost)


def _add_overrides(session: Session, data: DashboardData) -> None:
    """The last day's clock hours (in `data.zone`) and the overrides in each, to more and to less urgent."""
    this_hour = data.now.astimezone(data.zone).replace(minute=0, second=0, microsecond=0).astimezone(dt.UTC)
    data.hours = [this_hour - dt.timedelta(hours=HOURS - 1 - index) for index in range(HOURS)]
    up, down = [0] * HOURS, [0] * HOURS
    for before, after, created_at in session.execute(
        select(IncidentEvent.before, IncidentEvent.after, IncidentEvent.created_at).where(
            IncidentEvent.action == "override", IncidentEvent.created_at >= data.hours[0]
        )
    ):
        old, new = (before or {}).get("esi_level"), (after or {}).get("esi_level")
        index = min(HOURS - 1, int((created_at - data.hours[0]).total_seconds() // 3600))
        if isinstance(old, int) and isinstance(new, int) and new > old:
            down[index] += 1
        else:
            up[index] += 1  # more urgent, or set before any classification
    data.overrides_up, data.overrides_down = up, down


def dashboard_signature(data: DashboardData) -> tuple[object, ...]:
    """Everything the figure shows, with the clock to the minute (hashable): while it is unchanged, the figure drawn
    again would be the same, so an auto-refresh can skip drawing and sending it. The exact `now` is left out (the
    time axes' right end moves with it within the minute; nothing drawn changes)."""
    return (
        data.minutes[-1] if data.minutes else None,
        data.hours[-1] if data.hours else None,
        str(data.zone),
        tuple((level, tuple(values)) for level, values in data.wait_s.items()),
        tuple((level, tuple(values)) for level, values in data.ttft_s.items()),
        tuple((level, tuple(values)) for level, values in data.depth.items()),
        tuple(data.target_met.items()),
        tuple(data.tokens_per_min),
        tuple(data.evictions_per_min),
        tuple(data.overrides_up),
        tuple(data.overrides_down),
    )


def _local(moment: dt.datetime, zone: dt.tzinfo | None) -> dt.datetime:
    return moment.astimezone(zone)


def _calls(count: int) -> str:
    return "no calls" if count == 0 else "1 call" if count == 1 else f"{count} calls"


def _say(axis: Any, text: str) -> None:
    """An empty panel: its title, and why there is nothing to draw (no axes to read zeros from)."""
    axis.set_xticks([])
    axis.set_yticks([])
    for spine in axis.spines.values():
        spine.set_color("#cccccc")
    axis.text(0.5, 0.5, text, transform=axis.transAxes, ha="center", va="center", color=MUTED, fontsize="large")


def _count_axis(axis: Any, top: int, room: float = 1.1) -> None:
    """A y axis of counts: integer ticks from 0 (0..1 when everything is 0); `room` above the highest count (a
    legend's, over the data)."""
    from matplotlib.ticker import MaxNLocator

    axis.yaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    if top <= 0:
        axis.set_ylim(0, 1)
    else:
        axis.set_ylim(0, top * room)


def _time_axis(axis: Any, data: DashboardData, start: dt.datetime, span: dt.timedelta) -> None:
    """An x axis of local clock times (HH:MM) from `start` to now, at least `span` wide (a few ticks, whatever the
    width)."""
    from matplotlib.dates import AutoDateLocator, num2date
    from matplotlib.ticker import FuncFormatter

    def label(value: float, _position: int | None = None) -> str:
        return _local(num2date(value), data.zone).strftime("%H:%M")  # type: ignore[no-untyped-call]

    axis.set_xlim(min(start, data.now - span), data.now)
    tz = _local(data.now, data.zone).tzinfo
    axis.xaxis.set_major_locator(AutoDateLocator(tz=tz, minticks=3, maxticks=6))  # type: ignore[no-untyped-call]
    axis.xaxis.set_major_formatter(FuncFormatter(label))
    axis.set_xlabel(f"local time ({_local(data.now, data.zone).tzname()})")


def fitted_start(moments: Sequence[dt.datetime], counts: Sequence[int], step: dt.timedelta) -> dt.datetime:
    """Where a time axis starts to fit its data: a `step` before the first moment with a count (the first moment
    when none has one, or when the data starts there)."""
    first = next((index for index, count in enumerate(counts) if count), 0)
    return max(moments[0], moments[first] - step)


def nearest_rank(values: Sequence[float], percent: int) -> float:
    """The `percent`th percentile of ascending `values` by nearest rank: a wait some call had (interpolating
    between 0.05 s and 530 s would show a wait nobody had)."""
    return values[max(0, math.ceil(percent * len(values) / 100) - 1)]


def wait_figures(values: Sequence[float]) -> tuple[float, float, float]:
    """(p50, p90, max) of ascending seconds, by nearest rank (under ten calls, p90 is the worst)."""
    return nearest_rank(values, 50), nearest_rank(values, 90), values[-1]


def seconds_label(value: float) -> str:
    """Seconds as a dispatcher reads them: two digits below 10 s, whole seconds above."""
    return f"{value:.2f} s" if value < 1 else f"{value:.1f} s" if value < 10 else f"{value:.0f} s"


def _spread(axis: Any, values: dict[int, list[float]], title: str, empty: str) -> None:
    """Per level with data, three bars labelled with their seconds: p50, p90 and the worst (max), so that one long
    wait is seen (a box plot hides it as an outlier, or draws a one-call box at zero)."""
    axis.set_title(title)
    if not values:
        _say(axis, empty)
        return
    top = max(max(level_values) for level_values in values.values())
    for level, level_values in values.items():
        figures = wait_figures(level_values)
        positions = [level + offset for offset in SPREAD_OFFSETS]
        bars = axis.bar(positions, figures, width=SPREAD_WIDTH, color=ESI_COLOURS[level], label=f"ESI {level}")
        for bar, alpha in zip(bars, SPREAD_ALPHAS, strict=True):
            bar.set_alpha(alpha)
        for position, name, value in zip(positions, SPREAD_NAMES, figures, strict=True):
            axis.text(position, value + top * 0.02, f"{name} {seconds_label(value)}", **SPREAD_LABEL)
    axis.set_xlim(0.5, len(ESI_LEVELS) + 0.5)
    axis.set_xticks(list(ESI_LEVELS), [f"ESI {level}\n{_calls(len(values.get(level, [])))}" for level in ESI_LEVELS])
    axis.set_ylim(0, top * SPREAD_ROOM if top > 0 else 1)
    axis.set_ylabel("seconds")


def render_waits(data: DashboardData) -> str:
    """The queue waits of the last hour as figures (the panel's bars in words, readable without the picture)."""
    lines = [  # in the agreement table's style
        '<table class="agreement waits"><caption>Queue wait, last hour, by level</caption><thead><tr>'
        "<th>level</th><th>calls</th><th>p50</th><th>p90</th><th>max (the worst)</th></tr></thead><tbody>"
    ]
    for level in ESI_LEVELS:
        values = data.wait_s.get(level)
        if not values:
            lines.append(f'<tr><td>ESI {level}</td><td colspan="4" class="empty">no calls</td></tr>')
            continue
        cells = "".join(f"<td>{seconds_label(value)}</td>" for value in wait_figures(values))
        lines.append(f"<tr><td>ESI {level}</td><td>{len(values)}</td>{cells}</tr>")
    lines.append("</tbody></table>")
    return "".join(lines)


def dashboard_figure(data: DashboardData) -> Any:
    """Six panels a dispatcher reads at a glance; a level without data is not drawn, an empty panel says so, and
    with nothing at all the figure is one sentence."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    if data.empty:
        return _empty_figure(data)
    figure = Figure(figsize=(15, 8.5), layout="constrained")
    axes = figure.subplots(2, 3)
    _spread(axes[0][0], data.wait_s, "Queue wait, last hour", "No finished guidance in the last hour")
    _spread(
        axes[0][1],
        data.ttft_s,
        "Time to first guidance token once in the engine",
        "No first guidance token in the last hour",
    )
    _depth_panel(axes[0][2], data)
    _target_panel(axes[1][0], data)
    _engine_panel(axes[1][1], data)
    _overrides_panel(axes[1][2], data)
    return figure


def _since_minute(data: DashboardData) -> str:
    return _local(data.minutes[0], data.zone).strftime("%H:%M") if data.minutes else "an hour ago"


def _since_hour(data: DashboardData) -> str:
    return _local(data.hours[0], data.zone).strftime("%a %H:%M") if data.hours else "a day ago"


def _empty_figure(data: DashboardData) -> Any:
    """Nothing to draw: one sentence, and when the panels will appear."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(15, 2.5), layout="constrained")
    figure.text(0.5, 0.62, "No finished guidance in the last hour", ha="center", va="center", fontsize=20)
    figure.text(
        0.5,
        0.3,
        f"No call has waited for guidance since {_since_minute(data)} and no level was overridden since"
        f" {_since_hour(data)}. The panels appear with the first call.",
        ha="center",
        va="center",
        fontsize="large",
        color=MUTED,
    )
    return figure


def _depth_panel(axis: Any, data: DashboardData) -> None:
    """Per minute, the calls that waited in it, stacked by level; the time axis from the first minute with one."""
    axis.set_title("Calls waiting for guidance, per minute")
    if not data.depth:
        _say(axis, f"No call waited for guidance since {_since_minute(data)}")
        return
    present = list(data.depth)
    totals = [sum(counts) for counts in zip(*data.depth.values(), strict=True)]
    axis.stackplot(
        [*data.minutes, data.now],  # each minute's count held to the next minute (the last to now)
        *[[*data.depth[level], data.depth[level][-1]] for level in present],
        labels=[f"ESI {level}" for level in present],
        colors=[ESI_COLOURS[level] for level in present],
        step="post",
        alpha=0.85,
    )
    _count_axis(axis, max(totals), LEGEND_ROOM)
    axis.set_ylabel("calls that waited in the minute")
    start = fitted_start(data.minutes, totals, dt.timedelta(minutes=1))
    _time_axis(axis, data, start, MINUTES_SPAN)
    axis.legend(loc="upper left", ncols=len(present), fontsize="small", handlelength=1.2, columnspacing=1.2)


def _target_panel(axis: Any, data: DashboardData) -> None:
    """Per level, the share of calls whose first guidance token came within the level's target after intake."""
    axis.set_title("First guidance token within target (from intake)")
    if not data.target_met:
        _say(axis, "No first guidance token in the last hour")
        return
    present = list(data.target_met)
    shares = [100.0 * hit / total for hit, total in data.target_met.values()]
    axis.bar(
        present,
        shares,
        width=0.6,
        color=[ESI_COLOURS[level] for level in present],
        alpha=0.85,
        label=[f"ESI {level}" for level in present],
    )
    for level, share, (hit, total) in zip(present, shares, data.target_met.values(), strict=True):
        axis.annotate(f"{hit} of {total}", (level, share), ha="center", va="bottom", fontsize="small")
    for level in ESI_LEVELS:
        if level not in data.target_met:
            axis.text(level, 2, "no calls", ha="center", va="bottom", fontsize="small", color=MUTED)
    axis.set_xlim(0.5, len(ESI_LEVELS) + 0.5)
    axis.set_xticks(list(ESI_LEVELS), [f"ESI {level}\n≤ {FIRST_TOKEN_TARGET_S[level]:g} s" for level in ESI_LEVELS])
    axis.set_ylim(0, 115)
    axis.set_yticks(range(0, 101, 25))
    axis.set_ylabel("% of calls")


def _engine_panel(axis: Any, data: DashboardData) -> None:
    """Guidance tokens (a line) and cache evictions (bars, on their own axis) per minute of finished guidance."""
    axis.set_title("Engine: guidance tokens and cache evictions per minute")
    if not data.wait_s:
        _say(axis, "No finished guidance in the last hour")
        return
    twin = axis.twinx()
    twin.bar(
        data.minutes,
        data.evictions_per_min,
        width=0.8 / (24 * 60),
        align="edge",
        color="#e65100",
        alpha=0.6,
        label="evictions and preemptions",
    )
    axis.plot(
        [*data.minutes, data.now],
        [*data.tokens_per_min, data.tokens_per_min[-1]],
        drawstyle="steps-post",
        color="#1565c0",
        label="guidance tokens",
    )
    axis.set_zorder(twin.get_zorder() + 1)  # the line over the bars
    axis.patch.set_visible(False)
    _count_axis(axis, max(data.tokens_per_min), LEGEND_ROOM)
    _count_axis(twin, max(data.evictions_per_min), LEGEND_ROOM)
    axis.set_ylabel("tokens per minute", color="#1565c0")
    twin.set_ylabel("evictions and preemptions per minute", color="#e65100")
    counts = [tokens + evictions for tokens, evictions in zip(data.tokens_per_min, data.evictions_per_min, strict=True)]
    _time_axis(axis, data, fitted_start(data.minutes, counts, dt.timedelta(minutes=1)), MINUTES_SPAN)
    lines, labels = axis.get_legend_handles_labels()
    bars, bar_labels = twin.get_legend_handles_labels()
    axis.legend(lines + bars, labels + bar_labels, loc="upper left", ncols=2, fontsize="small")


def _overrides_panel(axis: Any, data: DashboardData) -> None:
    """Overrides per clock hour, to more urgent under to less urgent; the time axis from the first hour with one."""
    axis.set_title(f"Overrides per hour, last {HOURS} h")
    width = 0.8 / 24
    axis.bar(data.hours, data.overrides_up, width=width, align="edge", color="#b71c1c", label="to more urgent")
    axis.bar(
        data.hours,
        data.overrides_down,
        width=width,
        align="edge",
        bottom=data.overrides_up,
        color="#1565c0",
        label="to less urgent",
    )
    totals = [up + down for up, down in zip(data.overrides_up, data.overrides_down, strict=True)]
    _count_axis(axis, max(totals), LEGEND_ROOM)
    axis.set_ylabel("overrides")
    end = data.hours[-1] + dt.timedelta(hours=1)  # the current hour's bar whole, not cut at now
    _time_axis(axis, data, fitted_start(data.hours, totals, dt.timedelta(hours=1)), HOURS_SPAN)
    axis.set_xlim(right=end)
    if data.overrides:
        axis.legend(loc="upper left", ncols=2, fontsize="small")
    else:
        axis.text(0.5, 0.5, "No overrides", transform=axis.transAxes, ha="center", va="center", color=MUTED)


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
