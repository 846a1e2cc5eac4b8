"""HTML for the console: the queue table with ESI badges and wait colours, highlighted evidence, event history."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.console.history import action_label, actor_label, describe_change, event_reason
from app.console.reading_panel import render_reading
from app.console.service import QueueRow
from app.engine_worker.builtin_models import TEST_MODEL_LABEL
from app.incidents.complaint import shorten
from app.incidents.read_model import ClassificationView, EventView, IncidentDetail, ProtocolCardView
from app.intake.limits import SourceCounts
from app.status.engine import EngineStatus
from app.units.intervals import INTERVALS
from app.units.statuses import next_statuses
from scheduler.policy import PolicyOptions

ESI_COLOURS = {1: "#b71c1c", 2: "#e65100", 3: "#f9a825", 4: "#2e7d32", 5: "#1565c0"}
PROCESS_TARGET_S = 60.0
"""NFPA 1225 call processing target: the wait target of a level the policy gives no deadline (ESI 1: strictly first)
and of a call not classified yet."""
NEAR_SHARE = 0.75
"""A wait clock turns amber at this share of its level's target, red at the target."""
ALERT_COMPLAINT_LIMIT = 40
"""The urgent alert names a call without a card by this much of its complaint."""
LevelDeadlines = Sequence[float | None]
"""Seconds per ESI level 1..5 (`PolicyOptions.level_deadlines_s`, `Settings.policy_level_deadlines_s`)."""
DEFAULT_DEADLINES: LevelDeadlines = PolicyOptions().level_deadlines_s
QUOTE_OPEN, QUOTE_CLOSE = "\u2039", "\u203a"
"""Single guillemets around the words that suggest a resource."""
ENGINE_STATES = {
    "pending": "classifying",
    "queued": "queued",
    "prefilling": "prefilling",
    "generating": "generating",
    "done": "done",
    "failed": "failed",
}


def badge(esi_level: int | None, overridden: bool = False) -> str:
    if esi_level is None:
        return '<span class="esi esi-none">ESI ?</span>'
    mark = " ✎" if overridden else ""
    title = ' title="overridden by a dispatcher"' if overridden else ""
    colour = ESI_COLOURS[esi_level]
    return f'<span class="esi esi-{esi_level}" style="background:{colour}"{title}>ESI {esi_level}{mark}</span>'


def review_badge(reason: str) -> str:
    """The mark beside the ESI badge of a row whose triage a person should look at; the reason on hover."""
    title = html.escape(reason or "the models could not separate two levels", quote=True)
    return f'<span class="review" title="{title}">review</span>'


def language_badge(language: str) -> str:
    """The call's language beside its level when it is not English: "ES", or "VI · interpreter" (red) for a
    language triage cannot read."""
    if not language or language == "en":
        return ""
    if language == "es":
        return '<span class="lang" title="Spanish: triage read it in Spanish">ES</span>'
    name = "language not recognised" if language == "und" else f"language {language}: not read by triage"
    label = "?" if language == "und" else language.upper()
    return (
        f'<span class="lang lang-foreign" title="{html.escape(name)}; interpreter needed">{label} · interpreter</span>'
    )


def wait_target_s(esi_level: int | None, deadlines: LevelDeadlines = DEFAULT_DEADLINES) -> float:
    """The wait a level's calls should not pass: its policy deadline, else `PROCESS_TARGET_S`."""
    deadline = deadlines[esi_level - 1] if esi_level is not None else None
    return float(deadline) if deadline is not None else PROCESS_TARGET_S


def wait_class(waited_s: float, target_s: float = PROCESS_TARGET_S) -> str:
    """Green under `NEAR_SHARE` of the target, amber from there, red past it (as the page's clock recolours it)."""
    if waited_s >= target_s:
        return "wait-late"
    if waited_s >= NEAR_SHARE * target_s:
        return "wait-warn"
    return "wait-ok"


def clock(seconds: float) -> str:
    total = int(seconds)
    return (
        f"{total // 3600}:{total // 60 % 60:02d}:{total % 60:02d}"
        if total >= 3600
        else f"{total // 60}:{total % 60:02d}"
    )


def render_engine_banner(status: EngineStatus | None, supervisor: bool = False) -> str:
    """Above every tab while guidance is down (or starting, or written by a test model): what a dispatcher does
    (read the protocol card); the cause and the setting that fixes it only for supervisors. Nothing while a real model
    serves (or when the console cannot tell: no Redis configured)."""
    if status is None:
        return ""
    reason = html.escape(status.reason)
    if status.available:
        if not status.test_model:
            return ""
        setup = " Set a real model (TRIAGE_MODEL) for guidance." if supervisor else ""
        return (
            '<div class="engine-banner loading" role="status"><b>Guidance comes from a test model:</b> it is not real '
            f"guidance. Read the protocol card to the caller.{setup}</div>"
        )
    if status.state == "loading":
        cause = f" ({reason})" if supervisor else ""
        return (
            f'<div class="engine-banner loading" role="status"><b>Guidance is starting</b>{cause}: read the protocol'
            " card to the caller meanwhile.</div>"
        )
    cause = f" Cause: {reason}." if supervisor else " A supervisor sees the cause."
    return (
        '<div class="engine-banner down" role="alert"><b>Guidance is down:</b> read the protocol card to the caller. '
        f"Triage, the queue and the cards keep working; calls get guidance once an engine serves.{cause}</div>"
    )


def render_intake_banner(over_limit: Mapping[str, SourceCounts]) -> str:
    """Above the queue, for supervisors, while a source is over its intake limit (a refusal in the last minute):
    which source, how many of its calls were refused, and what stops it; nothing otherwise."""
    if not over_limit:
        return ""
    parts = [
        f"source <b>{html.escape(source)}</b> is over its limit ({html.escape(counts.limit)}): "
        f"{counts.refused} call{'' if counts.refused == 1 else 's'} refused in the last minute"
        for source, counts in sorted(over_limit.items())
    ]
    names = " ".join(html.escape(source) for source in sorted(over_limit))
    return (
        f'<div class="engine-banner intake" role="alert"><b>Intake flood:</b> {"; ".join(parts)}. Each refused call '
        "was told to retry (429) and nothing was stored; other sources are served in turn. "
        f"<code>triage-dispatch sources suspend {names}</code> stops it.</div>"
    )


QUEUE_HEAD = (
    '<table class="queue"><thead><tr><th>ESI</th><th>waiting</th><th>chief complaint</th><th>location</th>'
    "<th>source</th><th>status · units</th><th>claimed by</th><th>guidance</th></tr></thead><tbody>"
)
EMPTY_QUEUE_ROW = '<tr class="empty-row"><td colspan="8" class="empty">No open incidents.</td></tr>'


def urgent_ids(rows: Sequence[QueueRow]) -> list[str]:
    """New ESI 1-2 incidents: the page's alert script sounds for each one it has not seen."""
    return [row.incident_id for row in rows if row.esi_level in (1, 2) and row.status == "new"]


def alert_label(row: QueueRow) -> str:
    """How the urgent alert names a call: "ESI 1 · CPR adult · 12 Main St" (its card, else its complaint; its
    location, else its source)."""
    what = row.card or shorten(row.chief_complaint, ALERT_COMPLAINT_LIMIT) or "no complaint"
    where = row.location or (f"via {row.source}" if row.source else "no location")
    return f"ESI {row.esi_level or '?'} · {what} · {where}"


def render_row(
    row: QueueRow,
    selected: bool = False,
    engine: EngineStatus | None = None,
    live_clock: bool = False,
    deadlines: LevelDeadlines = DEFAULT_DEADLINES,
) -> str:
    """One queue row; with `live_clock`, its wait cell carries the arrival time (`data-since`, epoch seconds) and its
    level's target (`data-target`) so that the page's clock counts it up and recolours it without the server. Once
    dispatched the clock is stopped at the dispatch, and the status cell lists its units with their status and the
    time since (counted by the page)."""
    chosen = " selected" if selected else ""
    review = review_badge(row.review_reason) if row.review_pending else ""
    label = html.escape(alert_label(row), quote=True)
    return (
        f'<tr class="incident{chosen}" data-id="{row.incident_id}" data-label="{label}" '
        f'data-esi="{row.esi_level or ""}">'
        f"<td>{badge(row.esi_level, row.overridden)}{review}{language_badge(row.language)}</td>"
        f"{wait_cell(row, live_clock, deadlines)}"
        f'<td class="complaint">{html.escape(row.chief_complaint)}{card_tag(row.card)}{live_tag(row)}'
        f"{duplicate_tag(row)}</td>"
        f'<td class="location">{html.escape(row.location)}</td>'
        f'<td class="source">{html.escape(row.source)}</td>'
        f'<td class="status">{status_cell(row)}</td>'
        f"<td>{html.escape(row.claimed_by or '')}</td>"
        f"{guidance_cell(row.guidance_state, row.template, engine, row.test_model)}</tr>"
    )


def wait_cell(row: QueueRow, live_clock: bool, deadlines: LevelDeadlines = DEFAULT_DEADLINES) -> str:
    """The wait clock: counting (coloured against the level's target) until the first dispatch, then stopped, grey,
    at the answer-to-dispatch time."""
    target = wait_target_s(row.esi_level, deadlines)
    if row.dispatched_s is not None:
        title = f"dispatched {clock(row.waited_s)} after arrival (target {clock(target)})"
        return f'<td class="wait-stopped" title="{title}">{clock(row.waited_s)}</td>'
    since = f' data-since="{row.accepted_s:.3f}"' if live_clock else ""
    title = f"target {clock(target)} for ESI {row.esi_level}" if row.esi_level else f"target {clock(target)}"
    return (
        f'<td class="{wait_class(row.waited_s, target)}" data-target="{target:g}" title="{title}"{since}>'
        f"{clock(row.waited_s)}</td>"
    )


def status_cell(row: QueueRow) -> str:
    """The status, or once dispatched its units: "M12 en route 2:31" each (the page counts the time since)."""
    if row.status != "dispatched":
        return html.escape(row.status)
    if not row.units:
        return "dispatched · units back in service"
    return " ".join(
        f'<span class="unit-chip unit-{unit.status.replace(" ", "-")}">{html.escape(unit.name)} {unit.status} '
        f'<span class="unit-clock" data-since="{unit.since_s:.3f}"></span></span>'
        for unit in row.units
    )


def live_tag(row: QueueRow) -> str:
    """A live call's mark beside its complaint: on the line with its utterances so far (each one changes the row, so
    the open incident reloads with it), or ended."""
    if row.live_utterances is None:
        return ""
    if row.live_ended:
        return ' <span class="live-tag ended" title="the call\'s stream has ended">live call ended</span>'
    said = f"{row.live_utterances} utterance{'' if row.live_utterances == 1 else 's'}"
    return f' <span class="live-tag" title="streamed as it is spoken">live · {said}</span>'


def duplicate_tag(row: QueueRow) -> str:
    """A possible duplicate's mark beside its complaint, naming the call it may repeat."""
    if not row.possible_duplicate_of:
        return ""
    short = row.possible_duplicate_of[:8]
    return (
        f' <span class="duplicate-tag" data-of="{html.escape(row.possible_duplicate_of)}" title="same address or '
        f'call-back number as {short}, within 30 minutes">possible duplicate of {short}</span>'
    )


def card_tag(card: str) -> str:
    """The protocol card's short name beside the complaint ("card: CPR adult"), as an outlined chip that no level
    badge looks like; nothing when no card applies."""
    if not card:
        return ""
    return f' <span class="card-tag" title="protocol card: read it to the caller">card: {html.escape(card)}</span>'


def _items(css: str, items: Sequence[str]) -> str:
    return f'<ul class="{css}">{"".join(f"<li>{html.escape(item)}</li>" for item in items)}</ul>' if items else ""


def render_card(card: ProtocolCardView | None, can_mark: bool = False) -> str:
    """The protocol card in a read-to-caller layout: its title and review state, the key questions, the numbered
    steps in large type (the done ones marked), and what not to do. With `can_mark`, a click on a step marks it done
    (or not done again): the page's script sends it (`data-step`, `data-done`)."""
    if card is None:
        return ""
    done = set(card.steps_done)
    review = "" if card.reviewed else f'<p class="card-unreviewed" role="note">{html.escape(card.review_state)}</p>'
    steps = "".join(_step(number, step, number in done, can_mark) for number, step in enumerate(card.steps, start=1))
    hint = '<p class="step-hint">Click a step once it is done (click again to undo).</p>' if can_mark else ""
    return (
        f'<section class="protocol-card" lang="{html.escape(card.language)}" data-card="{html.escape(card.id)}">'
        f"<h3>Read to caller: {html.escape(card.title)} <small>({html.escape(card.id)} "
        f"{html.escape(card.version)}, {html.escape(card.language)})</small></h3>{review}"
        + (f"<h4>Ask</h4>{_items('card-questions', card.key_questions)}" if card.key_questions else "")
        + f'<h4>Steps</h4><ol class="card-steps">{steps}</ol>{hint}'
        + (f"<h4>Do not</h4>{_items('card-do-not', card.do_not)}" if card.do_not else "")
        + "</section>"
    )


def _step(number: int, text: str, done: bool, can_mark: bool) -> str:
    mark = ' <span class="step-mark">✓ done</span>' if done else ""
    css = ' class="step-done"' if done else ""
    if not can_mark:
        return f'<li value="{number}"{css}>{html.escape(text)}{mark}</li>'
    title = "click to mark not done" if done else "click when done"
    return (
        f'<li value="{number}"{css} data-step="{number}" data-done="{int(done)}" role="button" tabindex="0" '
        f'title="{title}">{html.escape(text)}{mark}</li>'
    )


def render_units(detail: IncidentDetail, can_move: bool = False) -> str:
    """The units on the call: each with its status and the time since (counted by the page), and with `can_move`
    the changes it may make next as buttons (the page's script sends them); then the call's NFPA 1225 intervals."""
    if not detail.units:
        return ""
    rows = []
    for unit in detail.units:
        moves = ""
        if can_move and detail.status != "closed":
            moves = "".join(
                f'<button class="unit-move" data-unit="{html.escape(unit.name)}" data-status="{change}" '
                f'data-from="{unit.status}">{change}</button>'
                for change in next_statuses(unit.status)
            )
        since = f'<span class="unit-clock" data-since="{unit.status_at.timestamp():.3f}"></span>'
        rows.append(
            f'<tr data-unit="{html.escape(unit.name)}"><td><b>{html.escape(unit.name)}</b> {html.escape(unit.kind)}'
            f'</td><td class="unit-status">{unit.status} {since}</td><td>{moves}</td></tr>'
        )
    return f'<section class="units"><h4>Units</h4><table>{"".join(rows)}</table>{render_intervals(detail)}</section>'


def render_intervals(detail: IncidentDetail) -> str:
    """The call's NFPA 1225 intervals so far: answer to dispatch, dispatch to en route, en route to on scene."""
    floor = detail.floor
    if floor is None:
        return ""
    figures = (floor.answer_to_dispatch_s, floor.dispatch_to_en_route_s, floor.en_route_to_on_scene_s)
    parts = [
        f"{name} {clock(value) if value is not None else 'not yet'}"
        for name, value in zip(INTERVALS, figures, strict=True)
    ]
    return f'<p class="intervals">NFPA 1225: {" · ".join(parts)}</p>'


def guidance_is_down(engine: EngineStatus | None) -> bool:
    """Whether queued calls should say "guidance unavailable" (no engine serves, and none is loading)."""
    return engine is not None and not engine.available and engine.state != "loading"


def render_queue(
    rows: Sequence[QueueRow],
    selected: str = "",
    engine: EngineStatus | None = None,
    deadlines: LevelDeadlines = DEFAULT_DEADLINES,
) -> str:
    """The queue table, under the engine banner; each row carries its incident id (a click selects it) and the
    urgent ones are listed for the page's alert script."""
    lines = [
        render_engine_banner(engine),
        f'<div id="queue" data-urgent="{",".join(urgent_ids(rows))}" data-count="{len(rows)}">',
        QUEUE_HEAD,
        *(render_row(row, row.incident_id == selected, engine, deadlines=deadlines) for row in rows),
    ]
    if not rows:
        lines.append(EMPTY_QUEUE_ROW)
    lines.append("</tbody></table></div>")
    return "".join(lines)


def guidance_words(
    guidance_state: str, engine: EngineStatus | None, test_model: bool = False, supervisor: bool = False
) -> str:
    """The guidance's state in words: for a call waiting on an engine while none serves, what a dispatcher does
    ("guidance unavailable: read the protocol card"), the cause ("engine down: <why>") for a supervisor; "done (test
    model)" for a test model's, else the engine's state."""
    if guidance_state == "queued" and engine is not None and not engine.available:
        starting = engine.state == "loading"
        if supervisor:
            return f"{'engine starting' if starting else 'engine down'}: {engine.reason}"
        return f"{'guidance starting' if starting else 'guidance unavailable'}: read the protocol card"
    words = ENGINE_STATES.get(guidance_state, guidance_state)
    return f"{words} (test model)" if test_model and guidance_state in ("generating", "done") else words


def guidance_cell(
    guidance_state: str, template: str, engine: EngineStatus | None = None, test_model: bool = False
) -> str:
    """The queue's guidance cell: the engine's state, "template" (overload) with the kind on hover, or "engine down"
    (the reason on hover) for a call waiting on an engine while none serves."""
    if template:
        title = html.escape(f"template guidance ({template}): the queue would have missed this call's deadline")
        return f'<td class="engine-template" title="{title}">template</td>'
    if guidance_state == "queued" and engine is not None and not engine.available:
        short, css = (
            ("guidance starting", "engine-loading")
            if engine.state == "loading"
            else ("guidance unavailable", "engine-unavailable")
        )
        title = html.escape(guidance_words(guidance_state, engine), quote=True)
        return f'<td class="{css}" title="{title}">{short}</td>'
    words = guidance_words(guidance_state, None, test_model)
    css = "engine-test" if test_model and words.endswith("(test model)") else f"engine-{guidance_state}"
    return f'<td class="{css}">{words}</td>'


def _span(item: dict[str, Any]) -> tuple[int, int] | None:
    """An evidence item's `"span": [start, end]` (as `classify_incident` stores it), if well formed."""
    span = item.get("span")
    if isinstance(span, list | tuple) and len(span) == 2 and all(isinstance(value, int) for value in span):
        start, end = int(span[0]), int(span[1])
        if 0 <= start < end:
            return start, end
    return None


def highlight(text: str, evidence: Sequence[dict[str, Any]]) -> str:
    """The message with each rule's matched span marked (overlaps merged into the first)."""
    spans = sorted(
        (*span, str(item.get("description") or item.get("rule_id")))
        for item in evidence
        if (span := _span(item)) is not None
    )
    out, position = [], 0
    for start, end, title in spans:
        if start < position or end > len(text):
            continue
        out.append(html.escape(text[position:start]))
        out.append(f'<mark title="{html.escape(title)}">{html.escape(text[start:end])}</mark>')
        position = end
    out.append(html.escape(text[position:]))
    return f'<div class="message">{"".join(out)}</div>'


def render_review(classification: ClassificationView, pending: bool, esi_level: int | None) -> str:
    """The line about a triage the models could not settle: open, or resolved by a dispatcher's override."""
    if not classification.needs_review:
        return ""
    reason = html.escape(classification.review_reason or "the models could not separate two levels")
    if pending:
        return f'<p class="review-line">Triage needs review: {reason}</p>'
    return (
        f'<p class="review-line resolved">Triage needed review: {reason} · resolved by a dispatcher\'s override '
        f"(ESI {esi_level})</p>"
    )


def render_resources(classification: ClassificationView) -> str:
    """The predicted ESI resources with the words that suggest them, e.g. "Resources (2): imaging \u2039x-ray\u203a"."""
    resources = classification.resources
    if not resources:
        return ""
    items = ", ".join(
        f"{html.escape(str(item.get('kind', '')).replace('_', ' '))} "
        f"{QUOTE_OPEN}{html.escape(str(item.get('text', '')))}{QUOTE_CLOSE}"
        for item in resources
    )
    return f'<p class="resources">Resources ({classification.resource_count}): {items}</p>'


def guidance_label(detail: IncidentDetail, engine: EngineStatus | None = None, supervisor: bool = False) -> str:
    """The guidance's state for the incident's head line, in words (`guidance_words`); a template says so, with its
    kind and version."""
    if detail.template:
        version = detail.guidance.prompt_version if detail.guidance is not None else ""
        kind = html.escape(detail.template)
        return f'<span class="template-mark">template ({kind}, {html.escape(version)}): queue overloaded</span>'
    words = html.escape(guidance_words(detail.guidance_state, engine, detail.test_model, supervisor))
    down = detail.guidance_state == "queued" and engine is not None and not engine.available
    return f'<span class="guidance-state{" engine-unavailable" if down else ""}">{words}</span>'


def render_levels(classification: ClassificationView, detail: IncidentDetail) -> str:
    """The levels in one line, the effective one last: "classifier ESI 2 · final ESI 3 (override of triage ESI 2)"."""
    triage_level, final = classification.esi_level, detail.esi_level
    line = f"classifier ESI {classification.classifier_level} · final ESI {final}"
    if detail.override_level is not None:
        line += f" (override of triage ESI {triage_level})"
    return line


def render_closed(detail: IncidentDetail) -> str:
    """On a closed incident: that it is closed, how, and that only notes may be added."""
    if detail.status != "closed":
        return ""
    how = f" ({html.escape(detail.disposition)})" if detail.disposition else ""
    return f'<p class="closed-line" role="note">Closed{how}: notes only.</p>'


def render_arrival(detail: IncidentDetail, deadlines: LevelDeadlines = DEFAULT_DEADLINES) -> str:
    """When the call arrived (the server's local time) and, while the incident is open, its wait clock (counted up by
    the page from `data-since`)."""
    accepted = detail.accepted_at
    assert accepted is not None  # every stored incident has one
    arrived = f"arrived {accepted.astimezone().strftime('%H:%M:%S')}"
    if detail.dispatched_at is not None:
        stopped = clock(max(0.0, (detail.dispatched_at - accepted).total_seconds()))
        return f'<span class="arrival">{arrived} · dispatched after <span class="wait-stopped">{stopped}</span></span>'
    if detail.status == "closed":
        return f'<span class="arrival">{arrived}</span>'
    waited = max(0.0, dt.datetime.now(dt.UTC).timestamp() - accepted.timestamp())
    target = wait_target_s(detail.esi_level, deadlines)
    return (
        f'<span class="arrival">{arrived} · waiting <span class="wait-clock {wait_class(waited, target)}" '
        f'data-target="{target:g}" data-since="{accepted.timestamp():.3f}">{clock(waited)}</span></span>'
    )


def render_history(events: Sequence[EventView], user_names: Mapping[str, str]) -> str:
    """The incident's events, oldest first, in words: when, who, what, the change, the reason."""
    lines = ["<table class='events'><tr><th>when</th><th>who</th><th>what</th><th>change</th><th>reason</th></tr>"]
    for event in events:
        change = describe_change(event.before, event.after, user_names)
        when = event.at.astimezone().strftime("%H:%M:%S") if event.at is not None else ""
        lines.append(
            f"<tr><td>{when}</td>"
            f"<td>{html.escape(actor_label(event.actor))}</td>"
            f"<td class='action'>{html.escape(action_label(event.action))}</td><td>{html.escape(change)}</td>"
            f"<td class='reason'>{html.escape(event_reason(event.action, event.after, event.reason))}</td></tr>"
        )
    lines.append("</table>")
    return "".join(lines)


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: what the incident view offers them and how much setup detail it shows."""

    can_act: bool = False
    """A dispatcher or supervisor: card steps and unit moves are clickable."""
    supervisor: bool = False
    """Sees the engine's cause, the checker's full reasons and refused guidance's text."""


FLOOR_VIEWER = Viewer()
"""The view without actions or setup detail (a call-taker's, and the default)."""


def render_history_page(detail: IncidentDetail | None) -> tuple[str, int | None, bool]:
    """The history page the read holds, under a line saying which events they are; (its HTML, the event id to page
    back from, whether older events exist)."""
    if detail is None:
        return "", None, False
    page = detail.history
    total = page.total if page is not None else len(detail.events)
    older = page.older_than if page is not None else None
    shown = len(detail.events)
    if total > shown:
        head = f'<p class="history-page">History: {shown} of {total} events</p>'
    else:
        head = f'<p class="history-page">History: {total} event{"" if total == 1 else "s"}</p>'
    return head + render_history(detail.events, detail.user_names), older, older is not None


def render_guidance_marks(detail: IncidentDetail, viewer: Viewer = FLOOR_VIEWER) -> str:
    """What to know about the guidance before reading it: the checker's refusal (the card stands alone: one line;
    the checker's reasons for supervisors) and a test model's guidance (never real)."""
    marks = []
    if detail.guidance_check:
        text = detail.guidance_check if viewer.supervisor else REFUSED_LINE
        marks.append(f'<p class="checker-refused" role="alert">{html.escape(text)}</p>')
    if detail.test_model:
        marks.append(f'<p class="test-model" role="note">{TEST_MODEL_LABEL}</p>')
    return "".join(marks)


REFUSED_LINE = "Guidance refused by the checker: read the protocol card alone"


def guidance_box_label(detail: IncidentDetail | None) -> str:
    """The guidance box's label: what the text below it is now."""
    if detail is None:
        return "Guidance"
    if detail.template:
        return "Guidance (template: the queue was overloaded)"
    if detail.guidance_check:
        return REFUSED_LINE
    if detail.test_model:
        return f"Guidance ({TEST_MODEL_LABEL})"
    state = detail.guidance_state
    return {
        "pending": "Guidance (after triage)",
        "queued": "Guidance (waiting for the engine)",
        "prefilling": "Guidance (being written)",
        "generating": "Guidance (being written)",
        "failed": "Guidance (failed: see the history)",
    }.get(state, "Guidance")


def guidance_text(detail: IncidentDetail, viewer: Viewer = FLOOR_VIEWER) -> str:
    """The guidance box's text: none when the checker refused it (a supervisor still reads it)."""
    if detail.guidance is None or (detail.guidance.refused and not viewer.supervisor):
        return ""
    return detail.guidance.text


def _read_fact(detail: IncidentDetail, name: str, missing: str) -> str:
    """What the call's words gave for a fact the incident does not hold yet (a live call's, or a posted transcript's
    answers to the call-taker), marked for the dispatcher to confirm."""
    spoken = detail.live if detail.live is not None else detail.transcript_facts
    fact = getattr(spoken, name, None) if spoken is not None else None
    if fact is None:
        return html.escape(missing)
    return f'{html.escape(fact.value)} <small class="to-confirm">read from the call: confirm</small>'


def render_head(
    detail: IncidentDetail,
    engine: EngineStatus | None,
    deadlines: LevelDeadlines,
    viewer: Viewer = FLOOR_VIEWER,
) -> str:
    """What a dispatcher reads first: the level and the complaint, the address and the call-back number; then the
    status line (who holds it, the clock, the guidance)."""
    review = review_badge(detail.review_reason) if detail.review_pending else ""
    complaint = html.escape(detail.chief_complaint or shorten(detail.text, 120) or "no complaint")
    address = html.escape(detail.location) if detail.location else _read_fact(detail, "address", "no address given")
    number = (
        html.escape(detail.callback_number)
        if detail.callback_number
        else _read_fact(detail, "callback_number", "no call-back number")
    )
    age = f' <span class="age">age {detail.patient_age_years}</span>' if detail.patient_age_years is not None else ""
    holder = f" · held by <b>{html.escape(detail.claimed_by)}</b>" if detail.claimed_by else ""
    words = guidance_label(detail, engine, viewer.supervisor)
    return (
        f'<div class="incident-head">{badge(detail.esi_level, detail.override_level is not None)}{review}'
        f'{language_badge(detail.language or "")} <span class="head-complaint">{complaint}</span>{age}</div>'
        f'<div class="call-facts"><span class="address"><small>address</small> {address}</span>'
        f'<span class="callback"><small>call back</small> {number}</span></div>'
        f'<div class="incident-status"><b>{html.escape(detail.status)}</b>{holder} · '
        f"{render_arrival(detail, deadlines)} · guidance {words}</div>"
    )


def render_duplicate(detail: IncidentDetail) -> str:
    """A possible duplicate flagged with a link to the call it may repeat; a merged call names where it went."""
    if detail.merged_into is not None:
        target = detail.merged_into
        return (
            f'<p class="duplicate-line merged" role="note">Merged into <a href="#" class="incident-link" '
            f'data-open="{target.id}">{target.id[:8]}</a> ({html.escape(target.chief_complaint or "")}).</p>'
        )
    original = detail.possible_duplicate_of
    if original is None or detail.status == "closed":
        return ""
    return (
        f'<p class="duplicate-line" role="alert">Possible duplicate of <a href="#" class="incident-link" '
        f'data-open="{original.id}">{original.id[:8]}</a>: ESI {original.esi_level or "?"} · '
        f"{html.escape(original.chief_complaint or '')} · {html.escape(original.location or 'no address')} "
        f"({html.escape(original.status)}), same address or call-back number within 30 minutes. Open it, or merge "
        "this call into it.</p>"
    )


def render_incident(
    detail: IncidentDetail | None,
    engine: EngineStatus | None = None,
    deadlines: LevelDeadlines = DEFAULT_DEADLINES,
    viewer: Viewer = FLOOR_VIEWER,
) -> tuple[str, str, str]:
    """(the incident top down, guidance, history) for one incident: level, complaint, address and call-back number
    first, then a duplicate's link, the protocol's key questions, a live call's transcript and T-CPR clock, the card,
    the units, and the call with its triage below."""
    from app.console.live_panel import render_live  # it draws with this module's badges and clocks

    if detail is None:
        return "<p>Choose an incident in the queue.</p>", "", ""
    classification = detail.classification
    parts = [
        render_head(detail, engine, deadlines, viewer),
        render_duplicate(detail),
        render_closed(detail),
        render_reading(classification),
        render_live(detail.live),
        render_card(detail.protocol_card, viewer.can_act and detail.status != "closed"),
        render_units(detail, viewer.can_act),
        render_guidance_marks(detail, viewer),
    ]
    if detail.live is None:  # a live call's words are its transcript, above
        parts.append(highlight(detail.text, classification.evidence if classification else []))
    if detail.caller:
        parts.append(f'<p class="caller">caller: {html.escape(detail.caller)}</p>')
    parts.append(render_triage(detail) if classification is not None else "<p>Not classified yet.</p>")
    history = render_history(detail.events, detail.user_names)
    return "".join(parts), guidance_text(detail, viewer), history


def render_triage(detail: IncidentDetail) -> str:
    """The triage behind the level: the levels, decision point, red flags, probabilities, model, review, resources."""
    classification = detail.classification
    assert classification is not None
    probabilities = " ".join(
        f"ESI {level}: {float(p):.2f}" for level, p in sorted(classification.probabilities.items())
    )
    rules = ", ".join(html.escape(str(item.get("rule_id"))) for item in classification.evidence) or "none"
    return (
        f'<p class="triage">{render_levels(classification, detail)} · decision point '
        f"{html.escape(classification.decision_point)} · "
        f"red flags: {rules}<br>{probabilities}<br>"
        f"<small>{html.escape(classification.model_version)}</small></p>"
        + render_review(classification, detail.review_pending, detail.esi_level)
        + render_resources(classification)
    )


CSS = """
.esi { color: #fff; font-weight: 700; padding: 2px 8px; border-radius: 10px; white-space: nowrap; }
.esi-3 { color: #222 !important; }
.esi-none { background: #9e9e9e; }
.review { color: #fff; background: #6a1b9a; font-weight: 700; padding: 2px 8px; border-radius: 10px; margin-left: 6px;
  white-space: nowrap; cursor: help; }
.review-line { color: #6a1b9a; font-weight: 700; }
.lang { color: #0d47a1; background: #e3f2fd; font-weight: 700; padding: 2px 8px; border-radius: 10px; margin-left: 6px;
  white-space: nowrap; cursor: help; }
.lang-foreign { color: #fff; background: #b71c1c; }
.engine-template, .template-mark { color: #4e342e; background: #ffe0b2; font-weight: 700; padding: 1px 6px;
  border-radius: 6px; cursor: help; }
.review-line.resolved { color: #555; font-weight: 400; }
table.agreement { border-collapse: collapse; font-size: 14px; margin-top: 12px; }
table.agreement caption { text-align: left; font-weight: 700; padding-bottom: 4px; }
table.agreement th, table.agreement td { padding: 4px 10px; border-bottom: 1px solid #ddd; text-align: right; }
table.agreement td:first-child, table.agreement th:first-child, table.agreement td.empty { text-align: left; }
table.agreement td.empty { color: #777; font-style: italic; }
table.queue { width: 100%; border-collapse: collapse; font-size: 15px; }
table.queue th, table.queue td { padding: 6px 8px; border-bottom: 1px solid #ddd; text-align: left; }
table.queue tr.incident { cursor: pointer; }
table.queue tr.incident:hover { background: #f3f6ff; }
table.queue tr.selected { outline: 2px solid #1565c0; }
.wait-ok { color: #1b5e20; background: #c8e6c9; font-weight: 700; font-variant-numeric: tabular-nums; }
.wait-warn { color: #3e2723; background: #ffb300; font-weight: 700; font-variant-numeric: tabular-nums; }
.wait-late { color: #fff; background: #b71c1c; font-weight: 700; font-variant-numeric: tabular-nums; }
table.queue td.complaint { min-width: 18em; }
table.queue td.source, table.queue td.status, table.queue th { white-space: nowrap; }
table.queue td.location { min-width: 7em; }
.message { white-space: pre-wrap; font-size: 16px; padding: 8px; background: #fafafa; border-left: 4px solid #1565c0; }
.message mark { background: #ffcdd2; padding: 0 2px; }
table.events td.reason { white-space: pre-wrap; min-width: 12em; }
.arrival { color: #333; }
.wait-clock { font-variant-numeric: tabular-nums; font-weight: 700; padding: 0 4px; border-radius: 4px; }
a.download-button { display: inline-block; padding: 8px 16px; background: #1565c0; color: #fff !important;
  border-radius: 6px; text-decoration: none; font-weight: 600; }
#urgent-banner { display: none; background: #b71c1c; color: #fff; font-weight: 700; padding: 8px; }
.engine-banner { padding: 10px 12px; margin-bottom: 8px; border-radius: 6px; font-size: 15px; }
.engine-banner.down { color: #fff; background: #c62828; }
.engine-banner.loading { color: #4e342e; background: #ffe0b2; }
.engine-banner.intake { color: #fff; background: #6a1b9a; }
.engine-unavailable { color: #c62828; font-weight: 700; }
.engine-loading { color: #e65100; font-weight: 700; }
.engine-test { color: #4e342e; background: #ffe0b2; font-weight: 700; padding: 1px 6px; border-radius: 6px; }
.closed-line { color: #fff; background: #455a64; font-weight: 700; padding: 4px 8px; border-radius: 6px; }
#urgent-banner { cursor: pointer; }
#urgent-alert:not(:has(#urgent-banner[style*="block"])), #engine-banner:not(:has(.engine-banner)) { display: none; }
.card-tag { color: #263238; background: #fff; border: 2px solid #455a64; font-weight: 600; padding: 0 6px;
  border-radius: 2px; margin-left: 6px; white-space: nowrap; font-size: 13px; }
.duplicate-tag { color: #4a148c; background: #fff; border: 2px dashed #6a1b9a; font-weight: 600; padding: 0 6px;
  border-radius: 2px; margin-left: 6px; white-space: nowrap; font-size: 13px; }
.live-tag { color: #b71c1c; background: #fff; border: 2px solid #b71c1c; font-weight: 600; padding: 0 6px;
  border-radius: 2px; margin-left: 6px; white-space: nowrap; font-size: 13px; }
.live-tag.ended { color: #455a64; border-color: #90a4ae; }
.wait-stopped { color: #37474f; background: #eceff1; font-weight: 700; font-variant-numeric: tabular-nums; }
.unit-chip { display: inline-block; white-space: nowrap; border: 1px solid #90a4ae; border-radius: 2px; padding: 0 5px;
  margin: 1px 4px 1px 0; font-size: 13px; background: #fafafa; }
.unit-on-scene { border-color: #1b5e20; background: #e8f5e9; }
.unit-en-route { border-color: #0d47a1; background: #e3f2fd; }
.unit-clock { font-variant-numeric: tabular-nums; color: #455a64; }
.incident-head { font-size: 20px; }
.head-complaint { font-weight: 700; margin-left: 6px; }
.call-facts { display: flex; gap: 18px; flex-wrap: wrap; font-size: 18px; font-weight: 700; margin: 6px 0; }
.incident-status { color: #333; margin-bottom: 6px; }
.units table { border-collapse: collapse; }
.units td { padding: 3px 8px; border-bottom: 1px solid #ddd; }
.unit-move { margin: 0 4px 2px 0; padding: 3px 8px; border: 1px solid #1565c0; color: #1565c0; background: #fff;
  border-radius: 4px; cursor: pointer; }
.intervals { color: #37474f; font-size: 14px; }
.duplicate-line { color: #fff; background: #6a1b9a; font-weight: 700; padding: 4px 8px; border-radius: 6px; }
.duplicate-line a { color: #fff; text-decoration: underline; }
.duplicate-line.merged { background: #455a64; }
.card-steps li[data-step] { cursor: pointer; }
.card-steps li[data-step]:hover { background: #dcedc8; }
.step-hint { color: #555; font-size: 13px; margin: 2px 0; }
.call-facts small { font-size: 12px; font-weight: 400; color: #555; text-transform: uppercase; margin-right: 4px; }
.engine-banner.take-over, .engine-banner.take-over b { color: #fff !important; background: #4a148c; cursor: pointer; }
table.floor-calls td:nth-child(2), table.floor-calls th:nth-child(2) { text-align: left; }
h3.dashboard-part { margin: 14px 0 4px; }
.protocol-card { border: 3px solid #1b5e20; border-radius: 8px; padding: 8px 14px; margin: 8px 0; background: #f1f8e9; }
.protocol-card h3 { font-size: 20px; margin: 4px 0; }
.protocol-card h4 { margin: 8px 0 2px; text-transform: uppercase; font-size: 13px; color: #33691e; }
.card-steps li { font-size: 20px; line-height: 1.45; margin: 4px 0; }
.card-steps li.step-done { color: #777; text-decoration: line-through; }
.step-mark { text-decoration: none; font-size: 14px; color: #1b5e20; font-weight: 700; }
.card-questions li { font-size: 17px; }
.card-do-not li { font-size: 17px; color: #b71c1c; font-weight: 700; }
.checker-refused { color: #fff; background: #b71c1c; font-weight: 700; padding: 4px 8px; border-radius: 6px; }
.test-model { color: #4e342e; background: #ffe0b2; font-weight: 700; padding: 4px 8px; border-radius: 6px; }
.card-unreviewed { color: #fff; background: #e65100; font-weight: 700; padding: 4px 8px; border-radius: 6px; }
"""
