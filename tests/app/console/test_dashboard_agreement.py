"""The dashboard's weekly agreement between the model and the dispatchers, on incidents classified by
`classify_incident` and overridden by `record_override`."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from app.console.dashboard import WeekAgreement, render_agreement, weekly_agreement
from app.db.models import Incident
from app.db.session import session_scope
from app.incidents.overrides import record_override
from tests.app.triage_stub import classify_with, fresh_database, plain_result, review_result

NOW = dt.datetime(2026, 11, 25, 10, 0, tzinfo=dt.UTC)  # a Wednesday in 2026-W48
UTC = dt.UTC

# name: (accepted at, [model level per classification, oldest first], override level or None)
INCIDENTS: dict[str, tuple[dt.datetime, list[int], int | None]] = {
    "a": (dt.datetime(2026, 11, 23, 8, 0, tzinfo=UTC), [3], None),  # W48: agrees
    "b": (dt.datetime(2026, 11, 24, 9, 0, tzinfo=UTC), [2], 1),  # W48: up-triaged
    "c": (dt.datetime(2026, 11, 25, 9, 0, tzinfo=UTC), [4], 4),  # W48: overridden to the same level: agrees
    "d": (dt.datetime(2026, 11, 25, 9, 30, tzinfo=UTC), [], None),  # W48: not classified yet: not counted
    "e": (dt.datetime(2026, 11, 17, 8, 0, tzinfo=UTC), [3, 4], 3),  # W47: the latest model said 4: up-triaged
    "f": (dt.datetime(2026, 11, 18, 8, 0, tzinfo=UTC), [2], 3),  # W47: down-triaged
    "g": (dt.datetime(2026, 11, 22, 23, 59, 59, tzinfo=UTC), [5], None),  # Sunday night: still W47
    "h": (dt.datetime(2026, 11, 2, 0, 0, tzinfo=UTC), [1], None),  # W45 (nothing in W46)
    "i": (dt.datetime(2026, 10, 5, 0, 0, tzinfo=UTC), [3], 2),  # W41, the window's first Monday
    "j": (dt.datetime(2026, 10, 4, 23, 59, tzinfo=UTC), [3], 2),  # W40: before the window
}


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = fresh_database(request, tmp_path, request.param)
    with session_scope(url) as session:
        for name, (accepted_at, _, _) in INCIDENTS.items():
            session.add(Incident(id=name, source="cad", webhook_id=name, text=f"call {name}", accepted_at=accepted_at))
    for name, (_, levels, override) in INCIDENTS.items():
        for version, level in enumerate(levels, start=1):
            result = review_result(f"stub-{version}") if level == 2 else plain_result(level, f"stub-{version}")
            assert classify_with(monkeypatch, url, name, result) == "classified"
        if override is not None:
            with session_scope(url) as session:
                incident = session.get(Incident, name)
                assert incident is not None
                record_override(session, incident, override, "dispatcher's call", "dana")
    return url


def test_weekly_agreement_counts_each_iso_week_with_data(url: str) -> None:
    with session_scope(url) as session:
        weeks = weekly_agreement(session, NOW)
    assert weeks == [
        WeekAgreement("2026-W41", classified=1, overridden=1, agreed=0, up=1, down=0),
        WeekAgreement("2026-W45", classified=1, overridden=0, agreed=1, up=0, down=0),
        WeekAgreement("2026-W47", classified=3, overridden=2, agreed=1, up=1, down=1),
        WeekAgreement("2026-W48", classified=3, overridden=2, agreed=2, up=1, down=0),
    ]
    assert [week.agreement for week in weeks] == [0.0, 1.0, 1 / 3, 2 / 3]


def test_the_table_lists_the_last_eight_weeks_newest_first_and_says_when_a_week_has_no_data(url: str) -> None:
    with session_scope(url) as session:
        page = render_agreement(weekly_agreement(session, NOW), NOW)
    rows = page.split("<tbody>")[1].removesuffix("</tbody></table>").split("</tr>")[:-1]
    empty = '<td colspan="5" class="empty">no classified incidents</td>'
    assert rows == [
        "<tr><td>2026-W48</td><td>3</td><td>2</td><td>2 (67%)</td><td>1</td><td>0</td>",
        "<tr><td>2026-W47</td><td>3</td><td>2</td><td>1 (33%)</td><td>1</td><td>1</td>",
        f"<tr><td>2026-W46</td>{empty}",
        "<tr><td>2026-W45</td><td>1</td><td>0</td><td>1 (100%)</td><td>0</td><td>0</td>",
        f"<tr><td>2026-W44</td>{empty}",
        f"<tr><td>2026-W43</td>{empty}",
        f"<tr><td>2026-W42</td>{empty}",
        "<tr><td>2026-W41</td><td>1</td><td>1</td><td>0 (0%)</td><td>1</td><td>0</td>",
    ]
    assert "<th>final = model</th>" in page
