"""The units tab: the roster with each unit's status, the time since, its call, and its next statuses as buttons."""

from __future__ import annotations

import html
from collections.abc import Sequence

from app.db.models import Unit
from app.units.statuses import next_statuses


def render_roster(units: Sequence[Unit], can_move: bool) -> str:
    """One row per unit: name, type, station, status and the time since (counted by the page), its call (a click
    opens it) and, for dispatchers, the changes it may make next (the page's script sends them)."""
    if not units:
        return (
            '<p class="empty">No units yet: add them with <code>triage-dispatch units add</code> or '
            "<code>triage-dispatch units import roster.toml</code> (docs/console.md).</p>"
        )
    rows = []
    for unit in units:
        call = (
            f'<a href="#" class="incident-link" data-open="{unit.incident_id}">{unit.incident_id[:8]}</a>'
            if unit.incident_id
            else ""
        )
        moves = (
            "".join(
                f'<button class="unit-move" data-unit="{html.escape(unit.name)}" data-status="{change}" '
                f'data-from="{unit.status}">{change}</button>'
                for change in next_statuses(unit.status)
            )
            if can_move
            else ""
        )
        rows.append(
            f'<tr data-unit="{html.escape(unit.name)}"><td><b>{html.escape(unit.name)}</b></td>'
            f"<td>{html.escape(unit.kind)}</td><td>{html.escape(unit.station)}</td>"
            f'<td class="unit-status unit-{unit.status.replace(" ", "-")}">{unit.status} '
            f'<span class="unit-clock" data-since="{unit.status_at.timestamp():.3f}"></span></td>'
            f"<td>{call}</td><td>{moves}</td></tr>"
        )
    return (
        '<table class="queue roster"><thead><tr><th>unit</th><th>type</th><th>station</th><th>status</th>'
        f"<th>call</th><th>next</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
