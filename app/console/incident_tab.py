"""The console's incident tab: the incident top down, its guidance and history, and the dispatcher's actions (claim or
take over, dispatch units, override, close, switch the card, correct the call, merge a duplicate, note), each sent
with the state the screen showed so that a stale one is refused, not applied."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from app.auth.accounts import Principal
from app.console.incident_forms import FORM_FIELDS, IncidentForm, perform, wording
from app.console.render import (
    Viewer,
    guidance_box_label,
    render_history_page,
    render_incident,
)
from app.console.service import (
    DISPATCH_ROLES,
    DISPOSITIONS,
    ActionError,
    ForbiddenError,
    available_units,
    incident_detail,
    require,
)
from app.db.models import Role
from app.db.session import session_scope
from app.incidents.read_model import IncidentDetail
from app.incidents.reading import HistoryWindow
from app.settings import Settings
from app.status.engine import EngineStatusCache

CONSOLE_HISTORY_PAGE = 50
"""Events per page of the incident's history in the console."""
ACTIONS = ("claim", "take_over", "dispatch", "override", "close", "card_switch", "correct", "merge", "note")
"""The incident's buttons; each is the Gradio API `action_<name>`."""


@dataclass
class IncidentTab:
    """The incident tab's components (filled in by `incident_layout`)."""

    incident_html: gr.HTML
    guidance: gr.Textbox
    result: gr.Markdown
    dispatch_actions: gr.Group
    claim_button: gr.Button
    take_over_button: gr.Button
    dispatch_button: gr.Button
    close_reason: gr.Textbox
    merge_button: gr.Button
    fields: dict[str, Any]
    """The form's inputs by name (`FORM_FIELDS`), in that order."""
    buttons: dict[str, gr.Button]
    history: gr.HTML
    older: gr.Button
    newest: gr.Button
    cursor: gr.State
    offered_state: gr.Textbox
    page_action: gr.Textbox
    page_action_button: gr.Button


def incident_layout(card_choices: list[tuple[str, str]]) -> IncidentTab:
    """The incident, its streaming guidance, the dispatch actions and the history (inside the Blocks)."""
    fields: dict[str, Any] = {}
    buttons: dict[str, gr.Button] = {}
    with gr.Row():
        with gr.Column(scale=3):
            incident_html = gr.HTML(elem_id="incident-view")
            guidance = gr.Textbox(label="Guidance", lines=12, interactive=False, elem_id="guidance")
        with gr.Column(scale=2):
            result = gr.Markdown(elem_id="action-result")  # above the buttons: seen where one clicked
            with gr.Group(visible=False) as dispatch_actions:
                _dispatch_actions(fields, buttons, card_choices)
            fields["note"] = gr.Textbox(label="Note", elem_id="note")
            buttons["note"] = gr.Button("Add note", elem_id="add-note")
    history = gr.HTML(elem_id="history")
    with gr.Row():
        older = gr.Button("Older events", size="sm", visible=False, elem_id="history-older")
        newest = gr.Button("Newest events", size="sm", visible=False, elem_id="history-newest")
    return IncidentTab(
        incident_html=incident_html,
        guidance=guidance,
        result=result,
        dispatch_actions=dispatch_actions,
        claim_button=buttons["claim"],
        take_over_button=buttons["take_over"],
        dispatch_button=buttons["dispatch"],
        close_reason=fields["close_reason"],
        merge_button=buttons["merge"],
        fields={name: fields[name] for name in FORM_FIELDS},
        buttons=buttons,
        history=history,
        older=older,
        newest=newest,
        cursor=gr.State(None),
        offered_state=gr.Textbox(elem_id="offered-state", visible="hidden"),
        page_action=gr.Textbox(elem_id="page-action", visible="hidden"),
        page_action_button=gr.Button("page action", elem_id="page-action-send", visible="hidden"),
    )


def _dispatch_actions(
    fields: dict[str, Any], buttons: dict[str, gr.Button], card_choices: list[tuple[str, str]]
) -> None:
    """Claim or take over, dispatch units, override, close, switch the card, correct, merge (dispatchers)."""
    with gr.Row():
        buttons["claim"] = gr.Button("Claim", variant="primary", elem_id="claim")
        buttons["take_over"] = gr.Button("Take over", visible=False, elem_id="take-over")
    fields["take_over_reason"] = gr.Textbox(
        label="Why you take over this call (required; both of you see it)", visible=False, elem_id="take-over-reason"
    )
    fields["units"] = gr.Dropdown([], value=[], multiselect=True, label="Units to dispatch", elem_id="dispatch-units")
    buttons["dispatch"] = gr.Button("Dispatch", variant="primary", elem_id="dispatch")
    fields["level"] = gr.Radio([1, 2, 3, 4, 5], label="Override ESI level", elem_id="override-level")
    fields["reason"] = gr.Textbox(label="Reason (required)", elem_id="override-reason")
    buttons["override"] = gr.Button("Override ESI", variant="secondary", elem_id="override")
    fields["disposition"] = gr.Dropdown(
        list(DISPOSITIONS), value=None, label="Disposition (choose one to close)", elem_id="disposition"
    )
    fields["close_reason"] = gr.Textbox(
        label="No unit reached the scene: confirm by saying why you close it", visible=False, elem_id="close-reason"
    )
    buttons["close"] = gr.Button("Close incident", elem_id="close")
    fields["card_choice"] = gr.Dropdown(
        card_choices, value=None, label="Switch protocol card to", elem_id="card-choice"
    )
    fields["card_reason"] = gr.Textbox(label="Why switch the card (required)", elem_id="card-reason")
    buttons["card_switch"] = gr.Button("Switch card", elem_id="card-switch")
    _correction(fields, buttons)


def _correction(fields: dict[str, Any], buttons: dict[str, gr.Button]) -> None:
    """Correct the call's text, address or call-back number (with a reason; a new text is triaged again), and merge
    a possible duplicate into the call it repeats."""
    with gr.Accordion("Correct the call", open=False, elem_id="correct-call"):
        fields["fix_text"] = gr.Textbox(label="What the caller said (corrected)", lines=3, elem_id="fix-text")
        fields["fix_location"] = gr.Textbox(label="Address (corrected)", elem_id="fix-location")
        fields["fix_callback"] = gr.Textbox(label="Call-back number (corrected)", elem_id="fix-callback")
        fields["fix_reason"] = gr.Textbox(label="Why (required)", elem_id="fix-reason")
        buttons["correct"] = gr.Button("Save correction", elem_id="correct")
    fields["merge_reason"] = gr.Textbox(
        label="Why merge it into the call it repeats (required)", visible=False, elem_id="merge-reason"
    )
    buttons["merge"] = gr.Button("Merge into the possible duplicate", visible=False, elem_id="merge")


class IncidentHandlers:
    """The incident tab's handlers; each finds the user from the session and checks the role itself."""

    def __init__(
        self,
        settings: Settings,
        principal: Callable[[gr.Request], Principal | None],
        engine: EngineStatusCache | None = None,
    ) -> None:
        self.settings = settings
        self.principal = principal
        self.engine = engine

    def viewer(self, who: Principal) -> Viewer:
        return Viewer(can_act=who.role in DISPATCH_ROLES, supervisor=who.role == Role.SUPERVISOR)

    def refresh(self, selected: str, chosen: list[str] | None, request: gr.Request) -> tuple[Any, ...]:
        """The incident's view, guidance and newest history, the state its actions are offered in, and the actions
        its state allows this user; the units the dispatcher has `chosen` stay chosen (the incident reloads each time
        its row changes, and each second while its guidance is written)."""
        return self._view(selected, list(chosen or ()), request)

    def _view(self, selected: str, chosen: list[str] | None, request: gr.Request) -> tuple[Any, ...]:
        """`refresh`'s outputs; `chosen` None: an incident just opened, no unit chosen yet."""
        who = require(self.principal(request), (Role.CALL_TAKER, *DISPATCH_ROLES), "see incidents")
        with session_scope(self.settings.database_url) as session:
            detail = incident_detail(session, selected, HistoryWindow(CONSOLE_HISTORY_PAGE)) if selected else None
            units = available_units(session) if detail is not None and who.role in DISPATCH_ROLES else []
        engine = self.engine.get() if self.engine is not None else None
        view, guidance, _ = render_incident(detail, engine, self.settings.policy_level_deadlines_s, self.viewer(who))
        history, cursor, older = render_history_page(detail)
        return (
            view,
            gr.update(value=guidance, label=guidance_box_label(detail)),
            history,
            cursor,
            gr.update(visible=older),
            gr.update(visible=False),
            detail.state if detail is not None else "",
            *action_visibility(detail, who, units, chosen),
        )

    def open(self, selected: str, request: gr.Request) -> tuple[Any, ...]:
        """The incident tab on the selected incident, with no word left of an action on the one before (in the same
        update: a chained clear could come after the next incident was already on screen, or not at all)."""
        return gr.Tabs(selected="incident"), *self._view(selected, None, request), ""

    def history_page(self, selected: str, before: int | None, request: gr.Request) -> tuple[Any, Any, Any, Any]:
        """A page of older events (`before` an event id; None: the newest page)."""
        require(self.principal(request), (Role.CALL_TAKER, *DISPATCH_ROLES), "see incidents")
        with session_scope(self.settings.database_url) as session:
            detail = incident_detail(session, selected, HistoryWindow(CONSOLE_HISTORY_PAGE, before))
        history, cursor, older = render_history_page(detail)
        return history, cursor, gr.update(visible=older), gr.update(visible=before is not None)

    def newest_history(self, selected: str, request: gr.Request) -> tuple[Any, Any, Any, Any]:
        return self.history_page(selected, None, request)

    def act(self, action: str, selected: str, offered: str, *values: Any, request: gr.Request) -> tuple[Any, ...]:
        """Do the action from the state the screen showed; (what to say, then each form field: cleared once used,
        else kept)."""
        form = IncidentForm.of(values)
        keep = [gr.update() for _ in FORM_FIELDS]
        try:
            clears, effect = perform(self.settings, self.principal(request), action, selected, offered or None, form)
        except (ForbiddenError, ActionError) as error:
            return f"**Refused:** {error}", *keep
        cleared = [("" if name != "level" else None) if name in clears else gr.update() for name in FORM_FIELDS]
        if "units" in clears:
            cleared[FORM_FIELDS.index("units")] = gr.update(value=[])
        return wording(action, form, effect), *cleared

    def page_action(self, selected: str, offered: str, payload: str, request: gr.Request) -> str:
        """A click in the incident's page (a card step, a unit's next status), as the page's script sends it."""
        try:
            return perform_page_action(self.settings, self.principal(request), selected, offered or None, payload)
        except (ForbiddenError, ActionError) as error:
            return f"**Refused:** {error}"


def perform_page_action(
    settings: Settings, who: Principal | None, selected: str, offered: str | None, payload: str
) -> str:
    """`step:<n>:<done 0|1>` marks a card step; `unit:<name>:<status>:<from>` moves a unit on."""
    from app.console.incident_forms import mark_step, move_unit

    kind, _, rest = payload.partition(":")
    if kind == "step":
        number, _, done = rest.partition(":")
        return mark_step(settings, who, selected, offered, number, done == "1")
    if kind == "unit":
        name, _, change = rest.partition(":")
        status, _, seen = change.partition(":")
        return move_unit(settings, who, name, status, seen or None)
    raise ActionError("unknown page action")


def action_visibility(
    detail: IncidentDetail | None,
    who: Principal,
    units: list[tuple[str, str]] | None = None,
    chosen: list[str] | None = None,
) -> tuple[Any, ...]:
    """What the incident's state allows (dispatch group, Claim, Take over and its reason, Dispatch and its units, the
    close confirmation, Merge and its reason): none on a closed incident (notes only); no Claim on one this user
    holds; Take over (with a reason) instead of Claim on one another user holds, and nothing else until then; the
    close confirmation on an ESI 1-2 call no unit reached; Merge on a possible duplicate. The units offered are
    `units`; those already `chosen` stay chosen (None: none chosen yet)."""
    may_dispatch = who.role in DISPATCH_ROLES
    hidden = gr.update(visible=False)
    if detail is None:
        return gr.update(visible=may_dispatch), gr.update(visible=True), *(hidden,) * 2, gr.update(), *(hidden,) * 4
    status, holder = detail.status, detail.claimed_by
    open_call = status != "closed"
    mine = holder == who.name
    others = holder is not None and not mine
    reached = any(unit.on_scene_at is not None for unit in detail.units)
    mergeable = open_call and not others and detail.possible_duplicate_of is not None
    return (
        gr.update(visible=may_dispatch and open_call),
        gr.update(visible=open_call and not others and not (mine and status != "new")),
        gr.update(visible=open_call and others),
        gr.update(visible=open_call and others),
        gr.update(visible=open_call and not others),
        unit_choices(units or [], chosen, visible=open_call and not others),
        gr.update(visible=open_call and detail.esi_level in (1, 2) and not reached),
        gr.update(visible=mergeable),
        gr.update(visible=mergeable),
    )


def unit_choices(units: list[tuple[str, str]], chosen: list[str] | None, visible: bool) -> Any:
    """The dispatch list: the available `units`; a unit the dispatcher had chosen that is no longer available stays
    chosen and says so (dispatching it is refused with the reason), and the choice itself is left as the browser
    holds it (a reload that set it would undo clicks made while the reload was under way)."""
    if chosen is None:
        return gr.update(choices=units, value=[], visible=visible)
    offered = {name for _, name in units}
    gone = [(f"{name} · no longer available", name) for name in chosen if name not in offered]
    return gr.update(choices=[*units, *gone], visible=visible)


def wire_incident(
    tab: IncidentTab, handlers: IncidentHandlers, selected: gr.Textbox, tabs: gr.Tabs, buttons: tuple[gr.Button, ...]
) -> None:
    """The incident's events: reload and open (the page's script clicks `buttons`: reload, open), the actions, the
    page's clicks, the history's pages."""
    reload_button, open_button = buttons
    outputs = [
        tab.incident_html,
        tab.guidance,
        tab.history,
        tab.cursor,
        tab.older,
        tab.newest,
        tab.offered_state,
        tab.dispatch_actions,
        tab.claim_button,
        tab.take_over_button,
        tab.fields["take_over_reason"],
        tab.dispatch_button,
        tab.fields["units"],
        tab.close_reason,
        tab.merge_button,
        tab.fields["merge_reason"],
    ]
    units = tab.fields["units"]
    reload_button.click(handlers.refresh, inputs=[selected, units], outputs=outputs, show_progress="hidden")
    # Another incident opened: no word left of an action on the previous one.
    open_button.click(handlers.open, inputs=[selected], outputs=[tabs, *outputs, tab.result])
    form = [tab.fields[name] for name in FORM_FIELDS]
    for action in ACTIONS:
        tab.buttons[action].click(
            _bound(handlers.act, action),
            inputs=[selected, tab.offered_state, *form],
            outputs=[tab.result, *form],
            api_name=f"action_{action}",
        ).then(handlers.refresh, inputs=[selected, units], outputs=outputs, show_progress="hidden")
    tab.page_action_button.click(
        handlers.page_action,
        inputs=[selected, tab.offered_state, tab.page_action],
        outputs=[tab.result],
        api_name="page_action",
    ).then(handlers.refresh, inputs=[selected, units], outputs=outputs, show_progress="hidden")
    pages = [tab.history, tab.cursor, tab.older, tab.newest]
    tab.older.click(handlers.history_page, inputs=[selected, tab.cursor], outputs=pages, show_progress="hidden")
    tab.newest.click(handlers.newest_history, inputs=[selected], outputs=pages, show_progress="hidden")


def _bound(act: Any, action: str) -> Any:
    """The action's handler with one named parameter per input (Gradio reads the signature)."""

    def handler(
        selected: str,
        offered: str,
        level: Any,
        reason: str,
        disposition: str,
        close_reason: str,
        note: str,
        units: list[str],
        take_over_reason: str,
        card_choice: str,
        card_reason: str,
        fix_text: str,
        fix_location: str,
        fix_callback: str,
        fix_reason: str,
        merge_reason: str,
        request: gr.Request,
    ) -> tuple[Any, ...]:
        values = (level, reason, disposition, close_reason, note, units, take_over_reason, card_choice, card_reason)
        fixes = (fix_text, fix_location, fix_callback, fix_reason, merge_reason)
        result: tuple[Any, ...] = act(action, selected, offered, *values, *fixes, request=request)
        return result

    handler.__name__ = f"action_{action}"
    return handler
