"""A live call on the console: its T-CPR clock against the AHA targets, the transcript growing utterance by utterance
by track (caller, call-taker), and the level's history with the words that raised each level."""

from __future__ import annotations

import html
from collections.abc import Sequence

from app.console.render import badge, clock
from app.console.tcpr_panel import FIRST_COMPRESSION_TARGET_S, RECOGNITION_TARGET_S, against_target
from app.incidents.read_model import LevelChange, LiveCallView, TcprClock, Utterance

SHOWN_UTTERANCES = 12
"""The newest utterances shown (the newest last); the earlier ones are counted above them."""
TRACKS = {"caller": "Caller", "call_taker": "Call-taker"}
LEVEL_ACTIONS = {
    "classified": "first reading",
    "level_raised": "raised",
    "lower_reading_offered": "lower reading offered",
    "lower_reading_dismissed": "lower reading dismissed",
    "override": "dispatcher's override",
}
QUOTE_OPEN, QUOTE_CLOSE = "\u2039", "\u203a"


def render_live(live: LiveCallView | None) -> str:
    """The live call's section (nothing for a call that is not live): the line's state and clock, the T-CPR times,
    then the transcript beside the level history."""
    if live is None:
        return ""
    return (
        f'<section class="live-call">{_line(live)}{render_tcpr_clock(live.tcpr)}<div class="live-columns">'
        f"{render_transcript(live.transcript, live.partials)}{render_levels(live)}</div></section>"
    )


def _line(live: LiveCallView) -> str:
    answered = live.answered_at.astimezone().strftime("%H:%M:%S")
    if live.ended_at is not None:
        length = clock(max(0.0, (live.ended_at - live.answered_at).total_seconds()))
        why = f", {html.escape(live.end_reason)}" if live.end_reason else ""
        return f'<h4>Live call <span class="live-ended">ended</span> · answered {answered} · {length} long{why}</h4>'
    since = live.answered_at.timestamp()
    return (
        f'<h4>Live call <span class="live-on">on the line</span> · answered {answered} · '
        f'<span class="live-clock" data-since="{since:.3f}">0:00</span> since</h4>'
    )


def render_tcpr_clock(tcpr: TcprClock) -> str:
    """The T-CPR clock: arrest recognised and first compression, from the answer, each against its AHA target; one
    plain line while no arrest is recognised."""
    if not tcpr.arrest:
        return '<p class="tcpr-clock">T-CPR: no cardiac arrest recognised on this call.</p>'
    recognised = against_target(tcpr.recognised_s, RECOGNITION_TARGET_S)
    compression = against_target(tcpr.first_compression_s, FIRST_COMPRESSION_TARGET_S)
    return f'<p class="tcpr-clock"><b>T-CPR</b> · arrest recognised {recognised} · first compression {compression}</p>'


def render_transcript(transcript: Sequence[Utterance], partials: Sequence[Utterance]) -> str:
    """The newest utterances, oldest first, each with its time from the answer and its track; then each track's
    partial (words still being spoken) in italics."""
    shown = transcript[-SHOWN_UTTERANCES:]
    earlier = len(transcript) - len(shown)
    rows = [_utterance(item, partial=False) for item in shown] + [_utterance(item, partial=True) for item in partials]
    head = f'<p class="earlier">{earlier} earlier utterance{"" if earlier == 1 else "s"}</p>' if earlier else ""
    body = "".join(rows) or '<tr><td class="empty" colspan="3">Nothing said yet.</td></tr>'
    return (
        f'<div class="transcript"><h5>Transcript ({len(transcript)} utterance{"" if len(transcript) == 1 else "s"})'
        f'</h5>{head}<table class="transcript">{body}</table></div>'
    )


def _utterance(item: Utterance, partial: bool) -> str:
    track = html.escape(item.track)
    words = html.escape(item.text) + (" …" if partial else "")
    css = f"track-{track}" + (" partial" if partial else "")
    return (
        f'<tr class="{css}" data-sequence="{item.sequence}"><td class="offset">{clock(item.offset_s)}</td>'
        f'<td class="who">{TRACKS.get(item.track, track)}</td><td class="said">{words}</td></tr>'
    )


def render_levels(live: LiveCallView) -> str:
    """Each level change in order: its time from the answer, from and to, why (the words quoted), who."""
    items = "".join(_level(live, change) for change in live.levels)
    body = f'<ol class="level-history">{items}</ol>' if items else '<p class="empty">Not triaged yet.</p>'
    return f'<div class="levels"><h5>Level history</h5>{body}</div>'


def _level(live: LiveCallView, change: LevelChange) -> str:
    offset = clock(max(0.0, (change.at - live.answered_at).total_seconds()))
    action = LEVEL_ACTIONS.get(change.action, change.action.replace("_", " "))
    before = f"{badge(change.from_level)} → " if change.from_level is not None else ""
    words = ", ".join(f"{QUOTE_OPEN}{html.escape(word)}{QUOTE_CLOSE}" for word in change.words)
    why = f' <span class="level-words">{words}</span>' if words else ""
    reason = f' <span class="level-reason">{html.escape(change.reason)}</span>' if change.reason else ""
    return (
        f'<li data-action="{html.escape(change.action)}"><span class="offset">{offset}</span> {before}'
        f"{badge(change.esi_level)} {action}{why}{reason}</li>"
    )


CSS = """
.live-call { border: 2px solid #37474f; border-radius: 8px; padding: 4px 12px; margin: 8px 0; }
.live-call h4 { margin: 4px 0; font-size: 17px; }
.live-call h5 { margin: 6px 0 2px; font-size: 14px; color: #455a64; }
.live-on { color: #fff; background: #b71c1c; padding: 1px 6px; border-radius: 4px; }
.live-ended { color: #fff; background: #455a64; padding: 1px 6px; border-radius: 4px; }
.live-clock, .live-call .offset { font-variant-numeric: tabular-nums; }
.tcpr-clock { font-size: 16px; margin: 4px 0; }
.live-columns { display: flex; gap: 16px; flex-wrap: wrap; }
.live-columns .transcript { flex: 3 1 24em; }
.live-columns .levels { flex: 2 1 16em; }
table.transcript { border-collapse: collapse; width: 100%; font-size: 15px; }
table.transcript td { padding: 2px 6px; border-bottom: 1px solid #eee; vertical-align: top; }
table.transcript td.offset { color: #607d8b; width: 3.5em; }
table.transcript td.who { font-weight: 700; white-space: nowrap; width: 6em; }
tr.track-caller td.who { color: #0d47a1; }
tr.track-call_taker td.who { color: #1b5e20; }
tr.partial td.said { font-style: italic; color: #607d8b; }
.live-call .earlier { color: #607d8b; font-size: 13px; margin: 0; }
ol.level-history { list-style: none; padding-left: 0; margin: 2px 0; }
ol.level-history li { margin: 3px 0; }
.level-words { color: #b71c1c; font-weight: 700; }
.level-reason { color: #555; font-size: 13px; }
"""
