"""The dashboard's telecommunicator-CPR panel: this month's figures (`app.live.tcpr.report`, as the monthly report
gives them) against the American Heart Association's targets: the arrest recognised within 60 s of the answer, the
first compression within 90 s."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence

from sqlalchemy.orm import Session

from app.console.render import clock
from app.live.tcpr import CallClock, MonthlyFigures, report

RECOGNITION_TARGET_S = 60.0
"""AHA T-CPR: a cardiac arrest recognised within 60 s of the call's answer."""
FIRST_COMPRESSION_TARGET_S = 90.0
"""AHA T-CPR: the first compression instruction within 90 s of the call's answer."""


def against_target(seconds: float | None, target_s: float) -> str:
    """A time against its target: "0:47 (target 1:30, met)", "1:12 (target 1:00, missed)", "not yet"."""
    if seconds is None:
        return '<span class="tcpr-none">not yet</span>'
    met = seconds <= target_s
    verdict = "met" if met else "missed"
    return f'<span class="tcpr-{verdict}">{clock(seconds)}</span> <small>(target {clock(target_s)}, {verdict})</small>'


def recognition_s(clock_: CallClock) -> float | None:
    """When the arrest was first recognised, by the product or the dispatcher (as the monthly figures count it)."""
    times = [t for t in (clock_.recognised_by_product_s, clock_.recognised_by_dispatcher_s) if t is not None]
    return min(times) if times else None


def _within(values: Sequence[float | None], target_s: float) -> str:
    """How many of the arrest calls met the target (one where it never happened did not)."""
    within = sum(value is not None and value <= target_s for value in values)
    return f"<td>{within} of {len(values)} ({within / len(values):.0%})</td>"


def _share(part: int, share: float | None) -> str:
    return f"{part} ({share:.0%})" if share is not None else f"{part}"


def render_tcpr(figures: MonthlyFigures, clocks: Sequence[CallClock]) -> str:
    """The panel: arrest calls, recognised and given T-CPR, each median time against its AHA target and how many
    calls met it; a month without an arrest call says so."""
    caption = (
        f"Telecommunicator CPR, {html.escape(figures.month)}: {figures.live_calls} live call"
        f"{'' if figures.live_calls == 1 else 's'}, {figures.arrest_calls} cardiac arrest"
        f"{'' if figures.arrest_calls == 1 else 's'} (AHA targets from the answer)"
    )
    if not figures.arrest_calls:
        return (
            f'<section id="tcpr-panel"><p class="tcpr-caption"><b>{caption}</b></p>'
            '<p class="empty">No cardiac arrest among this month\'s live calls yet.</p></section>'
        )
    arrests = [c for c in clocks if c.arrest]
    rows = (
        f"<tr><td>arrest recognised</td><td>{_share(figures.recognised, figures.share_recognised)}</td>"
        f"<td>{against_target(figures.median_answer_to_recognition_s, RECOGNITION_TARGET_S)}</td>"
        f"{_within([recognition_s(c) for c in arrests], RECOGNITION_TARGET_S)}</tr>"
        f"<tr><td>first compression (T-CPR given)</td><td>{_share(figures.given_tcpr, figures.share_given_tcpr)}</td>"
        f"<td>{against_target(figures.median_answer_to_first_compression_s, FIRST_COMPRESSION_TARGET_S)}</td>"
        f"{_within([c.first_compression_s for c in arrests], FIRST_COMPRESSION_TARGET_S)}</tr>"
    )
    return (
        f'<section id="tcpr-panel"><table class="agreement tcpr"><caption>{caption}</caption><thead><tr><th>step</th>'
        "<th>calls</th><th>median from answer</th><th>arrest calls within target</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></section>"
    )


def this_month(now: dt.datetime) -> str:
    """`2026-11` for a time in November 2026 (UTC, as the report's months are)."""
    return now.astimezone(dt.UTC).strftime("%Y-%m")


def tcpr_panel(session: Session, now: dt.datetime) -> str:
    """The panel for the month `now` is in."""
    figures, clocks = report(session, this_month(now))
    return render_tcpr(figures, clocks)


CSS = """
.tcpr-met { color: #1b5e20; font-weight: 700; font-variant-numeric: tabular-nums; }
.tcpr-missed { color: #b71c1c; font-weight: 700; font-variant-numeric: tabular-nums; }
.tcpr-none { color: #555; font-style: italic; }
"""
