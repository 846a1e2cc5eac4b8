"""The dashboard's floor panel: NFPA 1225 intervals per level and per call from the units' stored times."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from app.console.floor_panel import floor_data, render_floor
from app.db.migrate import upgrade
from app.db.models import Incident, Unit, UnitAssignment
from app.db.session import session_scope

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC)


def at(minutes_ago: float, seconds: float = 0) -> dt.datetime:
    return NOW - dt.timedelta(minutes=minutes_ago) + dt.timedelta(seconds=seconds)


def test_the_panel_has_each_level_s_intervals_and_the_latest_calls(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'floor.db'}"
    upgrade(url)
    calls = {  # name: (level, answered, [(dispatched, en route, on scene) after the answer, in seconds])
        "arrest": (1, at(30), [(40, 100, 400), (55, 90, None)]),
        "fall": (1, at(20), [(70, None, None)]),
        "chest": (2, at(10), [(50, 110, 500)]),
        "old": (1, at(25 * 60), [(10, 20, 30)]),  # dispatched before the window
    }
    with session_scope(url) as session:
        for number, (name, (level, answered, units)) in enumerate(calls.items()):
            session.add(
                Incident(
                    id=name,
                    source="cad",
                    webhook_id=name,
                    text=name,
                    chief_complaint=name,
                    esi_level=level,
                    accepted_at=answered,
                    status="dispatched",
                    dispatched_at=answered + dt.timedelta(seconds=units[0][0]),
                )
            )
            for index, (sent, moving, there) in enumerate(units):
                unit = f"U{number}{index}"
                session.add(Unit(name=unit, kind="medic", status="available", status_at=NOW))
                session.add(
                    UnitAssignment(
                        incident_id=name,
                        unit_name=unit,
                        dispatched_by="dana",
                        dispatched_at=answered + dt.timedelta(seconds=sent),
                        en_route_at=None if moving is None else answered + dt.timedelta(seconds=moving),
                        on_scene_at=None if there is None else answered + dt.timedelta(seconds=there),
                    )
                )
    with session_scope(url) as session:
        data = floor_data(session, NOW)
    # ESI 1: the arrest (first unit sent at 40 s, first en route at 90 s, first on scene at 400 s) and the fall.
    assert data.by_level == {1: [[40.0, 70.0], [50.0], [310.0]], 2: [[50.0], [60.0], [390.0]]}
    assert [(call.incident_id, call.intervals) for call in data.calls] == [
        ("chest", (50.0, 60.0, 390.0)),
        ("fall", (70.0, None, None)),
        ("arrest", (40.0, 50.0, 310.0)),
    ]
    page = render_floor(data)
    assert "<tr><td>ESI 1</td><td>0:40 / 1:10 <small>(2)</small></td><td>0:50 / 0:50 <small>(1)</small></td>" in page
    assert "<td>1 of 2 (50%)</td></tr>" in page  # the fall was dispatched after 70 s
    assert '<tr><td>ESI 3</td><td colspan="4" class="empty">no call dispatched</td></tr>' in page
    assert '<tr class="incident" data-id="fall">' in page and "<td>not yet</td><td>not yet</td></tr>" in page


def test_no_dispatch_in_the_window_says_so(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    upgrade(url)
    with session_scope(url) as session:
        page = render_floor(floor_data(session, NOW))
    assert "No call was dispatched in the window" in page and page.count("no call dispatched") == 5
