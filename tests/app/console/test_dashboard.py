"""The dashboard's last hour and last day, on incidents stored as the product stores them: accepted, classified by
`classify_incident` (which queues them), served and finished by `record_finished`, overridden by `record_override`.
What is drawn is read back from the matplotlib figure: which levels, tick labels, limits and texts."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from matplotlib.dates import num2date
from sqlalchemy import select

from app.console.dashboard import DashboardData, dashboard_data, dashboard_figure, dashboard_signature, render_waits
from app.db.models import Incident, IncidentEvent, Outcome
from app.db.session import session_scope
from app.engine_worker import outcomes
from app.engine_worker.outcomes import Served, record_finished
from app.incidents import pipeline
from app.incidents.overrides import record_override
from scheduler.redis_heap import HeapItem
from tests.app.triage_stub import classify_with, fresh_database, plain_result

UTC = dt.UTC
PARIS = ZoneInfo("Europe/Paris")  # UTC+1 in November: the labels are not UTC's
NOW = dt.datetime(2026, 11, 25, 10, 0, 30, tzinfo=UTC)  # 11:00:30 in Paris; the hour is 09:01 .. now (UTC)
QUEUED_AFTER = dt.timedelta(seconds=1)  # from intake to the heap


def at(hour: int, minute: int, second: int = 0, day: int = 25) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, second, tzinfo=UTC)


def call(monkeypatch: pytest.MonkeyPatch, url: str, name: str, level: int, accepted_at: dt.datetime) -> None:
    """A call accepted at `accepted_at`, classified and queued a second later."""
    with session_scope(url) as session:
        session.add(Incident(id=name, source="cad", webhook_id=name, text=f"call {name}", accepted_at=accepted_at))
    monkeypatch.setattr(pipeline, "utcnow", lambda: accepted_at + QUEUED_AFTER)
    assert classify_with(monkeypatch, url, name, plain_result(level)) == "classified"


def finish(
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    name: str,
    finished_at: dt.datetime,
    wait: float,
    ttft: float | None,
    tokens: int,
    evictions: int,
) -> None:
    """The engine worker's record of a served call, finished at `finished_at`."""
    monkeypatch.setattr(outcomes, "utcnow", lambda: finished_at)
    with session_scope(url) as session:
        incident = session.get(Incident, name)
        assert incident is not None and incident.esi_level is not None
        level, accepted = incident.esi_level, incident.accepted_at
    served = Served("cpu", "tiny", wait, ttft, tokens, evictions)
    assert record_finished(url, name, HeapItem(name, level, 1.0, 0, deliveries=1), served, accepted) == level


def overridden(url: str, name: str, level: int, when: dt.datetime) -> None:
    with session_scope(url) as session:
        incident = session.get(Incident, name)
        assert incident is not None
        record_override(session, incident, level, "dispatcher's call", "dana")
        session.flush()
        event = session.scalars(
            select(IncidentEvent).where(IncidentEvent.incident_id == name).order_by(IncidentEvent.id.desc())
        ).first()
        assert event is not None
        event.created_at = when


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return fresh_database(request, tmp_path, request.param)


@pytest.fixture
def sqlite_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """For what is drawn: the data is the same from either database (checked on both)."""
    return fresh_database(request, tmp_path, "sqlite")


@pytest.fixture
def shift(url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    return a_shift(url, monkeypatch)


@pytest.fixture
def sqlite_shift(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    return a_shift(sqlite_url, monkeypatch)


def a_shift(url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Calls at ESI 2 and 4 only in the last hour (none at 1, 3 or 5), and overrides over the last day."""
    call(monkeypatch, url, "a", 2, at(9, 10))  # queued 09:10:01, waits 4 s: the minute 09:10
    finish(monkeypatch, url, "a", at(9, 10, 30), wait=4.0, ttft=1.5, tokens=120, evictions=1)  # 6.5 s <= 30 s
    call(monkeypatch, url, "b", 2, at(9, 40))  # waits 40 s: the minute 09:40
    finish(monkeypatch, url, "b", at(9, 41, 10), wait=40.0, ttft=2.0, tokens=200, evictions=0)  # 43 s > 30 s
    call(monkeypatch, url, "c", 4, at(9, 55))  # still waiting: 09:55 .. the current minute
    call(monkeypatch, url, "e", 4, at(8, 50))  # accepted before the hour, waited into it, finished in it
    finish(monkeypatch, url, "e", at(9, 2), wait=660.0, ttft=3.0, tokens=50, evictions=2)  # 664 s > 120 s
    call(monkeypatch, url, "d", 4, at(9, 0, day=24))  # yesterday: not in the hour
    finish(monkeypatch, url, "d", at(9, 1, day=24), wait=5.0, ttft=1.0, tokens=80, evictions=7)
    overridden(url, "d", 5, at(10, 59, 59, day=24))  # before the day's first hour (12:00 in Paris)
    overridden(url, "d", 3, at(11, 0, day=24))  # up, in the first hour
    overridden(url, "d", 4, at(9, 45))  # down
    overridden(url, "d", 1, at(10, 0, 10))  # up, in the current hour
    return url


def panels(figure: Any) -> dict[str, Any]:
    return {axis.get_title(): axis for axis in figure.axes if axis.get_title()}


def twin_of(figure: Any, axis: Any) -> Any:
    (twin,) = [other for other in figure.axes if other is not axis and other.bbox.bounds == axis.bbox.bounds]
    return twin


def plotted(axis: Any) -> list[str]:
    """The labels of what is drawn on `axis` (lines, areas, boxes and bars), in drawing order."""
    artists = [*axis.lines, *axis.collections, *axis.patches, *axis.containers]
    return sorted({label for artist in artists if not (label := artist.get_label()).startswith("_")})


def texts(axis: Any) -> list[str]:
    return [text.get_text() for text in axis.texts]


def ticks(labels: Any) -> list[str]:
    return [label.get_text() for label in labels if label.get_text()]


def shown(labels: Any, limits: tuple[float, float], coordinate: int) -> list[Any]:
    """The tick labels drawn (matplotlib keeps ticks past the limits, not drawn)."""
    low, high = sorted(limits)
    return [label for label in labels if label.get_text() and low <= label.get_position()[coordinate] <= high]


def y_ticks(axis: Any) -> list[str]:
    return [label.get_text() for label in shown(axis.get_yticklabels(), axis.get_ylim(), 1)]


def drawn(data: DashboardData) -> Any:
    """The figure rendered as Gradio renders it (Agg): the layout done, the tick labels set."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = dashboard_figure(data)
    FigureCanvasAgg(figure).draw()
    return figure


def is_count_axis(axis: Any) -> None:
    labels = y_ticks(axis)
    assert labels and all(re.fullmatch(r"\d+", label) for label in labels), labels
    assert axis.get_ylim()[0] == 0


def test_the_data_has_only_the_levels_with_data_and_integer_counts(shift: str) -> None:
    with session_scope(shift) as session:
        data = dashboard_data(session, NOW, PARIS)
    assert data.minutes[0] == at(9, 1) and data.minutes[-1] == at(10, 0) and len(data.minutes) == 60
    assert data.wait_s == {2: [4.0, 40.0], 4: [660.0]}
    assert data.ttft_s == {2: [1.5, 2.0], 4: [3.0]}
    assert data.target_met == {2: (1, 2), 4: (0, 1)}
    minute = {moment: index for index, moment in enumerate(data.minutes)}
    assert {level: [index for index, count in enumerate(counts) if count] for level, counts in data.depth.items()} == {
        2: [minute[at(9, 10)], minute[at(9, 40)]],
        4: [minute[at(9, 1)], *range(minute[at(9, 55)], 60)],  # e waited until 09:01:01; c is still waiting
    }
    assert max(max(counts) for counts in data.depth.values()) == 1
    assert {index: count for index, count in enumerate(data.tokens_per_min) if count} == {
        minute[at(9, 2)]: 50,
        minute[at(9, 10)]: 120,
        minute[at(9, 41)]: 200,
    }
    assert {index: count for index, count in enumerate(data.evictions_per_min) if count} == {
        minute[at(9, 2)]: 2,
        minute[at(9, 10)]: 1,
    }
    assert [hour.astimezone(PARIS).strftime("%a %H:%M") for hour in (data.hours[0], data.hours[-1])] == [
        "Tue 12:00",
        "Wed 11:00",
    ]
    assert {index: count for index, count in enumerate(data.overrides_up) if count} == {0: 1, 23: 1}
    assert {index: count for index, count in enumerate(data.overrides_down) if count} == {22: 1}
    counts = [
        *data.tokens_per_min,
        *data.evictions_per_min,
        *data.overrides_up,
        *data.overrides_down,
        *(count for counts in data.depth.values() for count in counts),
        *(count for pair in data.target_met.values() for count in pair),
    ]
    assert {type(count) for count in counts} == {int}


def test_the_figure_draws_only_the_levels_with_data(sqlite_shift: str) -> None:
    with session_scope(sqlite_shift) as session:
        figure = drawn(dashboard_data(session, NOW, PARIS))
    axes = panels(figure)
    assert list(axes) == [
        "Queue wait, last hour",
        "Time to first guidance token once in the engine",
        "Calls waiting for guidance, per minute",
        "First guidance token within target (from intake)",
        "Engine: guidance tokens and cache evictions per minute",
        "Overrides per hour, last 24 h",
    ]
    for title in list(axes)[:4]:
        assert plotted(axes[title]) == ["ESI 2", "ESI 4"], title
    legend = axes["Calls waiting for guidance, per minute"].get_legend()
    assert [text.get_text() for text in legend.get_texts()] == ["ESI 2", "ESI 4"]
    assert ticks(axes["Queue wait, last hour"].get_xticklabels()) == [
        "ESI 1\nno calls",
        "ESI 2\n2 calls",
        "ESI 3\nno calls",
        "ESI 4\n1 call",
        "ESI 5\nno calls",
    ]
    target = axes["First guidance token within target (from intake)"]
    assert [bar.get_height() for bar in target.patches] == [50.0, 0.0]
    assert texts(target) == ["1 of 2", "0 of 1", "no calls", "no calls", "no calls"]
    for title in ("Queue wait, last hour", "Time to first guidance token once in the engine"):
        assert axes[title].get_ylim()[0] == 0
    assert texts(axes["Queue wait, last hour"]) == [
        "p50 4.0 s",
        "p90 40 s",
        "max 40 s",
        "p50 660 s",
        "p90 660 s",
        "max 660 s",
    ]
    heights = [bar.get_height() for bar in axes["Queue wait, last hour"].patches]
    assert heights == [4.0, 40.0, 40.0, 660.0, 660.0, 660.0]


def minutes_and_hours(now: dt.datetime) -> tuple[list[dt.datetime], list[dt.datetime]]:
    end = now.replace(second=0, microsecond=0)
    hour = now.replace(minute=0, second=0, microsecond=0)
    return (
        [end - dt.timedelta(minutes=59 - index) for index in range(60)],
        [hour - dt.timedelta(hours=23 - index) for index in range(24)],
    )


def test_the_worst_wait_of_a_level_is_drawn_and_written_not_hidden_as_an_outlier() -> None:
    minutes, hours = minutes_and_hours(NOW)
    data = DashboardData(
        now=NOW,
        zone=UTC,
        minutes=minutes,
        wait_s={2: [0.03, 0.05, 0.06, 0.08, 530.0]},  # the ESI 2: one call waited 530 s
        tokens_per_min=[0] * 60,
        evictions_per_min=[0] * 60,
        hours=hours,
        overrides_up=[0] * 24,
        overrides_down=[0] * 24,
    )
    axis = panels(drawn(data))["Queue wait, last hour"]
    assert [bar.get_height() for bar in axis.patches] == [0.06, 530.0, 530.0]  # nearest rank: waits calls had
    assert texts(axis) == ["p50 0.06 s", "p90 530 s", "max 530 s"]
    assert axis.get_ylim()[1] > 530.0


def test_the_time_axes_fit_the_data_and_a_single_override_is_a_wide_bar() -> None:
    minutes, hours = minutes_and_hours(NOW)
    waiting = [0] * 58 + [1, 1]  # one call, waiting for the last two minutes
    data = DashboardData(
        now=NOW,
        zone=UTC,
        minutes=minutes,
        depth={1: waiting},
        tokens_per_min=[0] * 60,
        evictions_per_min=[0] * 60,
        hours=hours,
        overrides_up=[0] * 23 + [1],
        overrides_down=[0] * 24,
    )
    figure = drawn(data)
    axes = panels(figure)
    depth = axes["Calls waiting for guidance, per minute"]
    low, high = (num2date(limit) for limit in depth.get_xlim())
    assert (low, high) == (NOW - dt.timedelta(minutes=10), NOW)  # ten minutes, not the hour with the data at its edge
    overrides = axes["Overrides per hour, last 24 h"]
    low, high = overrides.get_xlim()
    (bar,) = [bar for bar in overrides.containers[0] if bar.get_height()]
    assert bar.get_width() / (high - low) >= 0.15  # a fifth of the panel, not a pixel


def test_count_axes_have_integer_ticks_from_zero_and_the_time_axes_read_local_clock_times(sqlite_shift: str) -> None:
    with session_scope(sqlite_shift) as session:
        figure = drawn(dashboard_data(session, NOW, PARIS))
    axes = panels(figure)
    engine = axes["Engine: guidance tokens and cache evictions per minute"]
    overrides = axes["Overrides per hour, last 24 h"]
    waiting = axes["Calls waiting for guidance, per minute"]
    for axis in (waiting, engine, twin_of(figure, engine), overrides):
        is_count_axis(axis)
    assert y_ticks(waiting) == ["0", "1"]  # one call at most: not 0, 0.2, 0.4 ...
    assert y_ticks(twin_of(figure, engine)) == ["0", "1", "2"]
    assert y_ticks(overrides) == ["0", "1"]
    assert [bar.get_height() for bar in overrides.containers[0]].count(1) == 2
    for axis in (waiting, engine):
        assert ticks(axis.get_xticklabels()) == ["10:15", "10:30", "10:45", "11:00"]
        assert axis.get_xlabel() == "local time (CET)"
    assert ticks(overrides.get_xticklabels()) == ["12:00", "18:00", "00:00", "06:00", "12:00"]  # to the hour's end


def test_no_two_labels_overlap_at_the_default_size(sqlite_shift: str) -> None:
    with session_scope(sqlite_shift) as session:
        figure = drawn(dashboard_data(session, NOW, PARIS))
    renderer = figure.canvas.get_renderer()
    labels = [
        text
        for axis in figure.axes
        for text in (
            axis.title,
            axis.xaxis.label,
            axis.yaxis.label,
            *(shown(axis.get_xticklabels(), axis.get_xlim(), 0) if axis.xaxis.get_visible() else []),
            *shown(axis.get_yticklabels(), axis.get_ylim(), 1),
            *axis.texts,
        )
        if text.get_visible() and text.get_text()
    ]
    assert len(labels) > 60
    boxes = [(text.get_text(), text.get_window_extent(renderer)) for text in labels]
    figure_box = figure.bbox
    for text, box in boxes:
        assert figure_box.x0 <= box.x0 and box.x1 <= figure_box.x1 and figure_box.y0 <= box.y0, text
    overlapping = [
        (first, second)
        for index, (first, first_box) in enumerate(boxes)
        for second, second_box in boxes[index + 1 :]
        if first_box.overlaps(second_box)
    ]
    assert overlapping == []


def test_a_panel_without_data_says_so_and_an_all_zero_count_axis_shows_0_to_1(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    call(monkeypatch, url, "first", 3, at(9, 58))  # the shift's first call, waiting
    with session_scope(url) as session:
        data = dashboard_data(session, NOW, PARIS)
    assert data.wait_s == {} and data.target_met == {} and list(data.depth) == [3]
    assert data.overrides_up == [0] * 24 and data.overrides_down == [0] * 24
    figure = drawn(data)
    axes = panels(figure)
    for title, message in [
        ("Queue wait, last hour", "No finished guidance in the last hour"),
        ("Time to first guidance token once in the engine", "No first guidance token in the last hour"),
        ("First guidance token within target (from intake)", "No first guidance token in the last hour"),
        ("Engine: guidance tokens and cache evictions per minute", "No finished guidance in the last hour"),
    ]:
        assert texts(axes[title]) == [message], title
        assert plotted(axes[title]) == [] and y_ticks(axes[title]) == [], title
    assert plotted(axes["Calls waiting for guidance, per minute"]) == ["ESI 3"]
    overrides = axes["Overrides per hour, last 24 h"]
    assert overrides.get_ylim() == (0, 1)
    assert y_ticks(overrides) == ["0", "1"]
    assert texts(overrides) == ["No overrides"]
    assert overrides.get_legend() is None


def test_with_nothing_at_all_the_figure_says_so_plainly(url: str) -> None:
    with session_scope(url) as session:
        data = dashboard_data(session, NOW, PARIS)
        later = dashboard_data(session, NOW + dt.timedelta(seconds=40), PARIS)
    assert data.empty
    assert dashboard_signature(later) != dashboard_signature(data)  # its "since" moved
    figure = drawn(data)
    assert figure.axes == []
    assert [text.get_text() for text in figure.texts] == [
        "No finished guidance in the last hour",
        "No call has waited for guidance since 10:01 and no level was overridden since Tue 12:00."
        " The panels appear with the first call.",
    ]


def test_the_signature_changes_with_what_is_drawn_and_the_minute_only(
    shift: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def signature(now: dt.datetime) -> tuple[object, ...]:
        with session_scope(shift) as session:
            return dashboard_signature(dashboard_data(session, now, PARIS))

    before = signature(NOW)
    assert hash(before) == hash(signature(NOW))
    assert signature(NOW + dt.timedelta(seconds=20)) == before  # the same minute, nothing new
    assert signature(NOW + dt.timedelta(seconds=40)) != before  # the next minute: the window moved
    finish(monkeypatch, shift, "c", at(10, 0, 20), wait=50.0, ttft=1.0, tokens=90, evictions=0)
    assert signature(NOW) != before


def test_the_console_draws_the_dashboard_again_only_when_it_changed(tmp_path: Path) -> None:
    import gradio as gr

    from app.auth.accounts import add_user
    from app.console.exports import ExportStore
    from app.console.ui import _Handlers
    from app.db.migrate import upgrade
    from app.settings import Settings

    url = f"sqlite:///{tmp_path / 'refresh.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "sue", "supervisor", "sue-password")
        session.add(Incident(id="c1", source="cad", webhook_id="c1", text="call", accepted_at=dt.datetime.now(UTC)))
    handlers = _Handlers(Settings(database_url=url), ExportStore())
    sue = gr.Request(username="sue")
    floor, tcpr, figure, agreement, shown = handlers.refresh_dashboard(None, sue)
    assert figure is not None and isinstance(agreement, str) and shown is not None
    assert floor.startswith('<section id="floor-panel">')  # the floor's panel: cheap, always fresh
    assert tcpr.startswith('<section id="tcpr-panel">')  # so is the T-CPR panel
    skipped = handlers.refresh_dashboard(shown, sue)
    assert skipped == (floor, tcpr, gr.skip(), gr.skip(), shown)  # nothing changed: nothing drawn, nothing sent
    with session_scope(url) as session:
        incident = session.get(Incident, "c1")
        assert incident is not None
        record_override(session, incident, 1, "worse on the phone", "sue")
    redrawn = handlers.refresh_dashboard(shown, sue)
    assert redrawn[4] != shown and redrawn[2] is not None


def test_the_waits_are_also_written_as_a_table_with_the_worst() -> None:
    minutes, hours = minutes_and_hours(NOW)
    data = DashboardData(now=NOW, zone=UTC, minutes=minutes, wait_s={2: [0.03, 0.05, 530.0]}, hours=hours)
    rows = render_waits(data).split("<tbody>")[1].removesuffix("</tbody></table>").split("</tr>")[:-1]
    assert rows == [
        '<tr><td>ESI 1</td><td colspan="4" class="empty">no calls</td>',
        "<tr><td>ESI 2</td><td>3</td><td>0.05 s</td><td>530 s</td><td>530 s</td>",
        '<tr><td>ESI 3</td><td colspan="4" class="empty">no calls</td>',
        '<tr><td>ESI 4</td><td colspan="4" class="empty">no calls</td>',
        '<tr><td>ESI 5</td><td colspan="4" class="empty">no calls</td>',
    ]


def test_a_call_overridden_after_its_guidance_stays_under_the_level_it_waited_at_as_metrics_counts_it(
    sqlite_shift: str,
) -> None:
    overridden(sqlite_shift, "b", 1, at(9, 50))  # b waited 40 s at ESI 2, finished 09:41:10
    with session_scope(sqlite_shift) as session:
        data = dashboard_data(session, NOW, PARIS)
        served = session.scalar(select(Outcome.esi_level).where(Outcome.incident_id == "b"))
    assert served == 2  # the level /metrics observed its wait under (`record_finished`'s)
    assert data.wait_s == {2: [4.0, 40.0], 4: [660.0]}
    assert data.ttft_s == {2: [1.5, 2.0], 4: [3.0]}
