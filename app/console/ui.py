"""The console: sign-in pages on the FastAPI app, and the Gradio Blocks mounted at /console behind the session."""

from __future__ import annotations

import datetime as dt
import functools
import html
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import gradio as gr
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from sqlalchemy import select
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from app.auth.accounts import Principal
from app.auth.signin_throttle import SignInThrottle, throttle_for
from app.console.audit import AUDIT_HOURS, COLUMNS, audit_csv, audit_entries, export_link
from app.console.card_step import NO_CARD_LABEL, card_step_field
from app.console.dashboard import (
    dashboard_data,
    dashboard_figure,
    dashboard_signature,
    render_agreement,
    render_waits,
    weekly_agreement,
)
from app.console.exports import ExportStore
from app.console.first_run import SetupLink, add_setup_routes
from app.console.history import action_choices
from app.console.page_script import PAGE_SCRIPT
from app.console.queue_stream import ENGINE_BANNER_SLOT, QUEUE_SHELL, TICK_S, add_queue_stream, read_view
from app.console.render import CSS, guidance_box_label, render_incident
from app.console.service import (
    DISPATCH_ROLES,
    DISPOSITIONS,
    ActionError,
    ForbiddenError,
    add_note,
    audit_events,
    claim,
    close,
    incident_detail,
    mark_card_step,
    mark_dispatched,
    new_message,
    ordinal,
    override,
    queue_place,
    require,
    switch_card,
)
from app.console.sessions import (
    COOKIE,
    SignInResult,
    principal_for_session,
    set_session_cookie,
    sign_out,
    throttled_sign_in,
)
from app.db.models import Role, User
from app.db.session import session_scope
from app.guidance.cards import CardError, default_library
from app.incidents.overrides import propagate_close, propagate_override
from app.incidents.read_model import IncidentDetail
from app.redis.queueing import side_redis_client
from app.redis.shared_value import SharedValue
from app.settings import Settings
from app.status.engine import EngineStatusCache
from app.worker.publish import try_hand_over

LOGIN_PAGE = """<!doctype html><html><head><title>Sign in - triage-dispatch</title>
<style>body{{font-family:system-ui,sans-serif;background:#eceff1;display:flex;justify-content:center;padding-top:10vh}}
form{{background:#fff;padding:32px;border-radius:8px;box-shadow:0 2px 8px #0002;width:320px}}
input{{width:100%;padding:8px;margin:6px 0 14px;box-sizing:border-box}}
button{{width:100%;padding:10px;background:#1565c0;color:#fff;border:0;border-radius:4px;font-size:16px}}.error{{color:#b71c1c}}</style></head><body>
<form method="post" action="/login"><h2>triage-dispatch console</h2>{error}
<input type="hidden" name="next" value="{next}">
<label>User<input name="username" autocomplete="username" autofocus></label>
<label>Password<input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></body></html>"""


LOGIN_ERRORS = {"credentials": "Wrong user or password."}
LOGOUT_PAGE = """<!doctype html><html><head><title>Sign out - triage-dispatch</title></head>
<body style="font-family:system-ui,sans-serif;padding:10vh"><form method="post" action="/logout">
<button type="submit" id="sign-out">Sign out</button></form></body></html>"""
SIGN_OUT_FORM = (
    '<form method="post" action="/logout" style="display:inline">'
    '<button type="submit" id="sign-out" style="text-decoration:underline;color:#1565c0;background:none;border:0;'
    'padding:0;font:inherit;cursor:pointer">Sign out</button></form>'
)

CONSOLE_MAX_UPLOAD_BYTES = 0
"""The console takes no files: Gradio's upload route refuses any that is not empty (413)."""


def install_console(app: FastAPI, settings: Settings, setup_link: SetupLink | None = None) -> None:
    """Sign-in routes (and the first run's setup link, when given), `/` and signed-out visitors sent on, and the
    Gradio console at /console."""
    _add_sign_in_routes(app, settings)
    if setup_link is not None:
        add_setup_routes(app, settings, setup_link)

    @app.get("/", include_in_schema=False)
    def home() -> Response:
        return RedirectResponse("/console/", status_code=303)

    def current(request: Request) -> Principal | None:
        with session_scope(settings.database_url) as session:
            return principal_for_session(session, request.cookies.get(COOKIE))

    @app.middleware("http")
    async def console_needs_a_session(request: Request, call_next: Any) -> Response:
        path = request.url.path
        if request.method == "GET" and path in ("/console", "/console/") and current(request) is None:
            return RedirectResponse(f"/login?next={quote('/console/')}", status_code=303)
        response: Response = await call_next(request)
        return response

    def auth_dependency(request: Request) -> str | None:
        principal = current(request)
        return principal.name if principal is not None else None

    exports = ExportStore()
    engine = engine_status_cache(settings)
    # Before the mount, which would take every path under /console:
    _add_export_route(app, exports, current)
    _refuse_uploads(app)
    over_limit = functools.partial(app.state.source_limits.over_limit, tuple(settings.webhook_secrets))
    view = functools.partial(
        read_view, settings.database_url, engine, over_limit=over_limit, deadlines=settings.policy_level_deadlines_s
    )
    add_queue_stream(app, SharedValue(view, TICK_S), current)
    gr.mount_gradio_app(
        app,
        build_console(settings, exports, engine),
        path="/console",
        auth_dependency=auth_dependency,
        blocked_paths=[str(exports.directory)],
        max_file_size=CONSOLE_MAX_UPLOAD_BYTES,
        css=CSS,
        head=PAGE_SCRIPT,
        footer_links=[],
        show_error=True,
    )


def _add_sign_in_routes(app: FastAPI, settings: Settings) -> None:
    """GET and POST /login and /logout: the session cookie set and cleared."""

    @app.get("/login", response_class=HTMLResponse)
    def login_form(next: str = "/console/", error: str = "") -> str:
        text = LOGIN_ERRORS.get(error, "")
        message = f'<p class="error">{text}</p>' if text else ""
        return LOGIN_PAGE.format(error=message, next=html.escape(_safe_next(next)))

    app.state.signin_throttle = throttle_for(settings)

    def attempt(throttle: SignInThrottle, name: str, password: str, client: str) -> SignInResult:
        with session_scope(settings.database_url) as session:
            return throttled_sign_in(session, throttle, name, password, client)

    @app.post("/login")
    async def login(request: Request) -> Response:
        form = await request.form()
        name, password = str(form.get("username") or ""), str(form.get("password") or "")
        target = _safe_next(str(form.get("next") or "/console/"))
        client = request.client.host if request.client is not None else "unknown"
        # In a worker thread: scrypt (and the database and Redis round trips) must not hold the event loop.
        result = await run_in_threadpool(attempt, request.app.state.signin_throttle, name, password, client)
        if result.retry_after_s:
            wait = result.retry_after_s
            message = f'<p class="error">Too many failed sign-ins: try again in {wait} s.</p>'
            page = LOGIN_PAGE.format(error=message, next=html.escape(target))
            return HTMLResponse(page, status_code=429, headers={"Retry-After": str(wait)})
        if result.token is None:
            return RedirectResponse(f"/login?next={quote(target)}&error=credentials", status_code=303)
        response = RedirectResponse(target, status_code=303)
        set_session_cookie(response, result.token, settings.session_cookie_secure)
        return response

    @app.get("/logout", response_class=HTMLResponse)
    def logout_page() -> str:
        return LOGOUT_PAGE

    @app.post("/logout")
    def logout(request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        if token:
            with session_scope(settings.database_url) as session:
                sign_out(session, token)
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE)
        return response


def _safe_next(target: str) -> str:
    """Only paths on this site (no open redirect)."""
    return target if target.startswith("/") and not target.startswith("//") else "/console/"


def _add_export_route(app: FastAPI, exports: ExportStore, current: Callable[[Request], Principal | None]) -> None:
    """GET /console/exports/{token}: an audit export, to the user who made it, once; the file is deleted after."""

    @app.get("/console/exports/{token}", include_in_schema=False)
    def audit_export(token: str, request: Request) -> Response:
        who = current(request)
        if who is None:
            raise HTTPException(401, "sign in to the console to download an export")
        path = exports.take(who.name, token)
        if path is None:  # someone else's, already downloaded, expired or never made: all alike to the caller
            raise HTTPException(404, "no such export: search again to make one (downloaded once, by its maker)")
        return FileResponse(
            path, media_type="text/csv", filename="audit.csv", background=BackgroundTask(path.unlink, missing_ok=True)
        )


UPLOAD_PATHS = ("/console/gradio_api/upload", "/console/upload")
"""Gradio's upload route (and its older path): its size limit lets an empty file through, written to disk."""


def _refuse_uploads(app: FastAPI) -> None:
    """POST to Gradio's upload paths: 403 whatever the size (the console has no file input)."""

    def refuse_upload() -> Response:
        raise HTTPException(403, "the console takes no files")

    for path in UPLOAD_PATHS:
        app.post(path, include_in_schema=False)(refuse_upload)


def engine_status_cache(settings: Settings) -> EngineStatusCache | None:
    """Whether guidance is available, read from the engine heartbeats at most every 2 s (None: no Redis set)."""
    if settings.redis_url is None:
        return None
    return EngineStatusCache(
        side_redis_client(settings.redis_url, 1.0, client_name="triage-console"), settings.queue_prefix
    )


def build_console(
    settings: Settings, exports: ExportStore | None = None, engine: EngineStatusCache | None = None
) -> gr.Blocks:
    """The console's Blocks; every handler finds the user from the session and checks the role itself."""
    handlers = _Handlers(settings, exports or ExportStore(), engine)
    with gr.Blocks(title="triage-dispatch console") as blocks:
        view = _layout()
        _wire(blocks, view, handlers)
    built: gr.Blocks = blocks
    return built


OVERRIDE_EFFECTS = {
    "waiting": ": its place in the guidance queue changed",
    "leased": ": the engine writing its guidance has the new level",
}
"""What an override changed beyond the incident (`propagate_override`); nothing to add when its guidance is done."""
ACTION_DONE = {
    "claim": "Claimed.",
    "dispatch": "Marked dispatched.",
    "close": "Closed.",
    "note": "Note added.",
}
TRIAGE_WAIT_S = 10.0
"""How long the new-message confirmation waits for triage to give the typed call its level and place."""
TRIAGE_POLL_S = 0.25


class _Handlers:
    """The console's event handlers (their names are the Gradio API names); each checks the user's role itself."""

    def __init__(self, settings: Settings, exports: ExportStore, engine: EngineStatusCache | None = None) -> None:
        self.settings = settings
        self.url = settings.database_url
        self.exports = exports
        self.engine = engine

    def principal(self, request: gr.Request) -> Principal | None:
        name = getattr(request, "username", None)
        if not name:
            return None
        with session_scope(self.url) as session:
            user = session.scalar(select(User).where(User.name == name, User.active.is_(True)))
            return Principal(user.name, Role(user.role)) if user is not None else None

    def whoami(self, request: gr.Request) -> tuple[str, Any, Any, Any, Any]:
        who = self.principal(request)
        if who is None:
            hidden = gr.update(visible=False)
            return "Not signed in.", hidden, hidden, hidden, hidden
        can_dispatch = who.role in DISPATCH_ROLES
        return (
            f"Signed in as <b>{html.escape(who.name)}</b> ({who.role.value}) · {SIGN_OUT_FORM}",
            gr.update(visible=can_dispatch),
            gr.update(visible=who.role == Role.SUPERVISOR),
            gr.update(visible=who.role == Role.SUPERVISOR),
            gr.update(visible=can_dispatch),
        )

    def refresh_incident(self, selected: str, request: gr.Request) -> tuple[Any, ...]:
        """The incident's view, guidance and history, and the actions its state allows this user."""
        who = require(self.principal(request), (Role.CALL_TAKER, *DISPATCH_ROLES), "see incidents")
        with session_scope(self.url) as session:
            detail = incident_detail(session, selected) if selected else None
        engine = self.engine.get() if self.engine is not None else None
        view, guidance, history = render_incident(detail, engine, self.settings.policy_level_deadlines_s)
        return (
            view,
            gr.update(value=guidance, label=guidance_box_label(detail)),
            history,
            *action_visibility(detail, who),
        )

    def open_incident(self, selected: str, request: gr.Request) -> tuple[Any, ...]:
        view = self.refresh_incident(selected, request)
        return gr.Tabs(selected="incident"), *view

    def act(
        self, action: str, selected: str, level: Any, reason: str, disposition: str, note: str, request: gr.Request
    ) -> tuple[str, Any, Any, Any]:
        """Do the action; (the result, then the note, override reason and level: cleared once used, else kept)."""
        keep = gr.update()
        done, result = self.perform(action, selected, level, reason, disposition, note, request)
        if not done:
            return result, keep, keep, keep
        if action == "note":
            return result, "", keep, keep
        if action == "override":
            return result, keep, "", None
        return result, keep, keep, keep

    def perform(
        self, action: str, selected: str, level: Any, reason: str, disposition: str, note: str, request: gr.Request
    ) -> tuple[bool, str]:
        """(whether it was done, what to say)."""
        who = self.principal(request)
        try:
            with session_scope(self.url) as session:
                if action == "claim":
                    claim(session, who, selected)
                elif action == "dispatch":
                    mark_dispatched(session, who, selected)
                elif action == "close":
                    close(session, who, selected, disposition)
                elif action == "note":
                    add_note(session, who, selected, note)
                elif action == "override":
                    esi_level = int(level) if level not in (None, "") else 0
                    override(session, who, selected, esi_level, reason)
            if action == "close":  # after the commit: out of the heap, and aborted in the engine serving it
                propagate_close(self.settings, selected)
            if action == "override":  # after the commit: the heap and the engine
                where = propagate_override(self.settings, selected, int(level))
                return True, f"Overridden to ESI {int(level)}{OVERRIDE_EFFECTS.get(where, '')}."
            return True, ACTION_DONE[action]
        except (ForbiddenError, ActionError) as error:
            return False, f"**Refused:** {error}"

    def card_step(self, selected: str, request: gr.Request) -> Any:
        """The card-step box for the open incident: its card's next step to mark and how many are done."""
        require(self.principal(request), (Role.CALL_TAKER, *DISPATCH_ROLES), "see incidents")
        with session_scope(self.url) as session:
            detail = incident_detail(session, selected) if selected else None
        return gr.update(**card_step_field(detail.protocol_card if detail else None))

    def act_on_card(self, action: str, selected: str, step: Any, card_id: str, reason: str, request: gr.Request) -> str:
        """Mark a step of the incident's protocol card done or not done, or switch its card (with a reason)."""
        who = self.principal(request)
        try:
            with session_scope(self.url) as session:
                if action == "card_switch":
                    switch_card(session, who, selected, card_id or "", reason)
                    return f"Card switched to {card_id}."
                number = int(step) if step not in (None, "") else 0
                mark_card_step(session, who, selected, number, action == "step_done")
                return f"Step {number} marked {'done' if action == 'step_done' else 'not done'}."
        except (ForbiddenError, ActionError) as error:
            return f"**Refused:** {error}"

    def new_message(
        self, text: str, caller: str, location: str, request: gr.Request
    ) -> Iterator[tuple[str, Any, Any, Any]]:
        """Store a typed call; once accepted the form is cleared (a call is not entered twice), else kept. The
        confirmation then names the level triage gave it and its place in the queue ("Accepted: ESI 1, 3rd in
        queue")."""
        try:
            with session_scope(self.url) as session:
                incident_id = new_message(session, self.principal(request), text, caller, location)
        except ActionError as error:
            yield f"**Refused:** {error}", gr.update(), gr.update(), gr.update()
            return
        if self.settings.redis_url is not None:
            try_hand_over(incident_id, text)
        short = incident_id[:8]
        yield f"Accepted: incident {short}, triage running. The form is ready for the next call.", "", "", ""
        keep = gr.update()
        deadline = time.monotonic() + TRIAGE_WAIT_S
        while time.monotonic() < deadline:
            with session_scope(self.url) as session:
                place = queue_place(session, incident_id)
            if place is not None:
                esi_level, number = place
                yield f"Accepted: ESI {esi_level}, {ordinal(number)} in queue (incident {short}).", keep, keep, keep
                return
            time.sleep(TRIAGE_POLL_S)
        yield f"Accepted: incident {short}; triage has not answered yet: see the queue.", keep, keep, keep

    def refresh_dashboard(self, shown: Any, request: gr.Request) -> tuple[Any, Any, Any]:
        """The dashboard, drawn again only when what it shows changed since this console's last one (`shown`, its
        signature): a figure costs about 0.6 s of CPU to draw, and the page asks every 30 s while it is on screen."""
        require(self.principal(request), (Role.DISPATCHER, Role.SUPERVISOR), "see the dashboard")
        with session_scope(self.url) as session:
            now = dt.datetime.now(dt.UTC)
            data, weeks = dashboard_data(session, now), weekly_agreement(session, now)
        signature = (dashboard_signature(data), tuple(weeks))
        if signature == shown:
            return gr.skip(), gr.skip(), shown
        return dashboard_figure(data), render_waits(data) + render_agreement(weeks, now), signature

    def search_audit(
        self, incident_id: str, actor: str, action: str, hours: float, request: gr.Request
    ) -> tuple[list[list[str]], str]:
        """The audit events matching the filters in people's words, and a link to them as CSV."""
        who = self.principal(request)
        hours = min(max(float(hours or 0), 0.0), 24 * 366)
        since = dt.datetime.now(dt.UTC) - dt.timedelta(hours=hours) if hours else None
        with session_scope(self.url) as session:
            events = audit_events(session, who, incident_id.strip(), actor.strip(), action.strip(), since)
            entries = audit_entries(session, events)
        assert who is not None  # audit_events refused anyone else
        token = self.exports.save(who.name, audit_csv(entries))  # replaces this supervisor's previous export
        link = export_link(token, len(entries), int(self.exports.ttl_s // 60))
        return [entry.table_row() for entry in entries], link


class _View:
    """The console's components that handlers read or write, filled in by `_layout`."""

    who: gr.HTML
    selected: gr.Textbox
    open_button: gr.Button
    reload_button: gr.Button
    """Clicked by the page when the open incident changed (its queue row did, or its guidance is being written)."""
    tabs: gr.Tabs
    queue_html: gr.HTML
    incident_html: gr.HTML
    guidance: gr.Textbox
    dispatch_actions: gr.Group
    claim_button: gr.Button
    dispatch_button: gr.Button
    level: gr.Radio
    reason: gr.Textbox
    override_button: gr.Button
    disposition: gr.Dropdown
    close_button: gr.Button
    card_step_row: gr.Row
    card_step: gr.Number
    step_done_button: gr.Button
    step_undo_button: gr.Button
    card_choice: gr.Dropdown
    card_reason: gr.Textbox
    card_button: gr.Button
    note: gr.Textbox
    note_button: gr.Button
    result: gr.Markdown
    history: gr.HTML
    text: gr.Textbox
    caller: gr.Textbox
    location: gr.Textbox
    submit: gr.Button
    accepted: gr.Markdown
    dashboard_tab: gr.Tab
    plot: gr.Plot
    agreement: gr.HTML
    refresh: gr.Button
    audit_tab: gr.Tab
    audit_incident: gr.Textbox
    audit_actor: gr.Textbox
    audit_action: gr.Dropdown
    audit_hours: gr.Number
    search: gr.Button
    table: gr.Dataframe
    csv_link: gr.HTML


def _layout() -> _View:
    """The console's components, created (inside the Blocks) in the order Gradio numbers them."""
    view = _View()
    gr.HTML('<div id="urgent-banner" title="click to open the first call"></div>', elem_id="urgent-alert")
    view.who = gr.HTML(elem_id="whoami")
    gr.HTML(ENGINE_BANNER_SLOT, elem_id="engine-banner")  # the page's script fills it: above every tab
    view.selected = gr.Textbox(elem_id="selected-id", visible="hidden")
    view.open_button = gr.Button("open", elem_id="open-incident", visible="hidden")
    view.reload_button = gr.Button("reload", elem_id="reload-incident", visible="hidden")
    with gr.Tabs() as view.tabs:
        with gr.Tab("Queue", id="queue"):
            view.queue_html = gr.HTML(QUEUE_SHELL, elem_id="queue-view")  # filled by the queue's stream
        with gr.Tab("Incident", id="incident"):
            _incident_tab(view)
        with gr.Tab("New message", id="new"):
            view.text = gr.Textbox(label="What the caller says", lines=5, elem_id="new-text")
            view.caller = gr.Textbox(label="Caller", elem_id="new-caller")
            view.location = gr.Textbox(label="Location", elem_id="new-location")
            view.submit = gr.Button("Submit", variant="primary", elem_id="new-submit")
            view.accepted = gr.Markdown(elem_id="new-result")
        with gr.Tab("Dashboard", id="dashboard", visible=False) as view.dashboard_tab:
            view.plot = gr.Plot(elem_id="dashboard-plot", show_label=False)  # its "Plot" badge covered a panel
            view.agreement = gr.HTML(elem_id="dashboard-agreement")
            view.refresh = gr.Button("Refresh", elem_id="dashboard-refresh")
        with gr.Tab("Audit", id="audit", visible=False) as view.audit_tab:
            _audit_tab(view)
    return view


def _incident_tab(view: _View) -> None:
    """The incident, its streaming guidance, the dispatch actions and the history."""
    with gr.Row():
        with gr.Column(scale=3):
            view.incident_html = gr.HTML(elem_id="incident-view")
            view.guidance = gr.Textbox(label="Guidance", lines=12, interactive=False, elem_id="guidance")
        with gr.Column(scale=2):
            view.result = gr.Markdown(elem_id="action-result")  # above the buttons: seen where one clicked
            with gr.Group(visible=False) as view.dispatch_actions:
                with gr.Row():
                    view.claim_button = gr.Button("Claim", variant="primary", elem_id="claim")
                    view.dispatch_button = gr.Button("Mark dispatched", variant="primary", elem_id="dispatch")
                view.level = gr.Radio([1, 2, 3, 4, 5], label="Override ESI level", elem_id="override-level")
                view.reason = gr.Textbox(label="Reason (required)", elem_id="override-reason")
                view.override_button = gr.Button("Override ESI", variant="secondary", elem_id="override")
                view.disposition = gr.Dropdown(
                    list(DISPOSITIONS), value=None, label="Disposition (choose one to close)", elem_id="disposition"
                )
                view.close_button = gr.Button("Close incident", elem_id="close")
                _card_actions(view)
            view.note = gr.Textbox(label="Note", elem_id="note")
            view.note_button = gr.Button("Add note", elem_id="add-note")
    view.history = gr.HTML(elem_id="history")


def card_choices() -> list[tuple[str, str]]:
    """The protocol cards a dispatcher may switch to: (id: title, id); none when the library cannot be read (the
    switch then says so)."""
    try:
        library = default_library()
    except CardError:
        return []
    return [(f"{card_id}: {card.title}", card_id) for card_id in library.ids() if (card := library.get(card_id, "en"))]


def _card_actions(view: _View) -> None:
    """Mark a card step done (or not), switch the card (a reason is required)."""
    with gr.Row() as view.card_step_row:
        view.card_step = gr.Number(
            label=NO_CARD_LABEL, precision=0, minimum=1, placeholder="step", interactive=False, elem_id="card-step"
        )
        view.step_done_button = gr.Button("Step done", elem_id="card-step-done")
        view.step_undo_button = gr.Button("Step not done", elem_id="card-step-undo")
    view.card_choice = gr.Dropdown(card_choices(), value=None, label="Switch protocol card to", elem_id="card-choice")
    view.card_reason = gr.Textbox(label="Why switch the card (required)", elem_id="card-reason")
    view.card_button = gr.Button("Switch card", elem_id="card-switch")


def _audit_tab(view: _View) -> None:
    """The supervisor's audit search, its table and its CSV export."""
    with gr.Row():
        view.audit_incident = gr.Textbox(label="Incident (id or short id)", elem_id="audit-incident")
        view.audit_actor = gr.Textbox(label="User", elem_id="audit-user")
        view.audit_action = gr.Dropdown(action_choices(), value="", label="What", elem_id="audit-action")
        view.audit_hours = gr.Number(label="Last hours (0 = all)", value=AUDIT_HOURS, elem_id="audit-hours")
    view.search = gr.Button("Search", elem_id="audit-search")
    view.table = gr.Dataframe(
        headers=COLUMNS,
        elem_id="audit-table",
        wrap=True,
        column_widths=["12%", "22%", "10%", "11%", "25%", "20%"],
        interactive=False,
    )
    view.csv_link = gr.HTML(elem_id="audit-csv")


def _wire(blocks: gr.Blocks, view: _View, handlers: _Handlers) -> None:
    """The events: the incident's reload, the actions, the new message, the dashboard, the audit, the page load."""
    v, h = view, handlers
    # The queue is pushed by the server (`app.console.queue_stream`, the page's script); the open incident is
    # reloaded when the page sees it change. Nothing polls.
    incident_outputs = [
        v.incident_html,
        v.guidance,
        v.history,
        v.dispatch_actions,
        v.claim_button,
        v.dispatch_button,
        v.card_step_row,
    ]
    v.reload_button.click(h.refresh_incident, inputs=[v.selected], outputs=incident_outputs, show_progress="hidden")
    # Another incident opened: its card's step box, and no word left of an action on the previous one.
    v.open_button.click(h.open_incident, inputs=[v.selected], outputs=[v.tabs, *incident_outputs]).then(
        lambda: "", outputs=[v.result], show_progress="hidden", api_visibility="private"
    ).then(h.card_step, inputs=[v.selected], outputs=[v.card_step], show_progress="hidden")
    for button, action in (
        (v.claim_button, "claim"),
        (v.dispatch_button, "dispatch"),
        (v.override_button, "override"),
        (v.close_button, "close"),
        (v.note_button, "note"),
    ):
        button.click(
            _bind(h.act, action),
            inputs=[v.selected, v.level, v.reason, v.disposition, v.note],
            outputs=[v.result, v.note, v.reason, v.level],
            api_name=f"action_{action}",
        ).then(h.refresh_incident, inputs=[v.selected], outputs=incident_outputs, show_progress="hidden")
    for button, action in (
        (v.step_done_button, "step_done"),
        (v.step_undo_button, "step_undo"),
        (v.card_button, "card_switch"),
    ):
        button.click(
            _bind_card(h.act_on_card, action),
            inputs=[v.selected, v.card_step, v.card_choice, v.card_reason],
            outputs=[v.result],
            api_name=f"action_{action}",
        ).then(h.refresh_incident, inputs=[v.selected], outputs=incident_outputs, show_progress="hidden").then(
            h.card_step, inputs=[v.selected], outputs=[v.card_step], show_progress="hidden"
        )
    form = [v.text, v.caller, v.location]
    # No concurrency limit: the confirmation waits up to TRIAGE_WAIT_S for triage, and another console's typed call
    # must not queue behind it (Gradio's default is one at a time per event).
    v.submit.click(h.new_message, inputs=form, outputs=[v.accepted, *form], concurrency_limit=None)
    drawn = gr.State(None)  # the signature of the dashboard this console shows
    v.refresh.click(h.refresh_dashboard, inputs=[drawn], outputs=[v.plot, v.agreement, drawn], show_progress="hidden")
    v.dashboard_tab.select(h.refresh_dashboard, inputs=[drawn], outputs=[v.plot, v.agreement, drawn])
    audit_inputs = [v.audit_incident, v.audit_actor, v.audit_action, v.audit_hours]
    v.search.click(h.search_audit, inputs=audit_inputs, outputs=[v.table, v.csv_link])
    v.audit_tab.select(h.search_audit, inputs=audit_inputs, outputs=[v.table, v.csv_link])  # the last day on open
    blocks.load(h.whoami, outputs=[v.who, v.dispatch_actions, v.audit_tab, v.search, v.dashboard_tab])


def action_visibility(detail: IncidentDetail | None, who: Principal) -> tuple[Any, Any, Any, Any]:
    """Which dispatch actions the incident's state allows (the dispatch group, Claim, Mark dispatched, the card's
    steps): none on a closed incident (notes only), no Claim on one this user holds, no Mark dispatched on a
    dispatched one, no card steps without a card."""
    may_dispatch = who.role in DISPATCH_ROLES
    if detail is None:
        return gr.update(visible=may_dispatch), gr.update(visible=True), gr.update(visible=True), gr.update()
    status = detail.status
    held = status != "new" and detail.claimed_by == who.name
    return (
        gr.update(visible=may_dispatch and status != "closed"),
        gr.update(visible=not held),
        gr.update(visible=status != "dispatched"),
        gr.update(visible=detail.protocol_card is not None),
    )


def _bind(act: Any, action: str) -> Any:
    def handler(
        selected: str, level: Any, reason: str, disposition: str, note: str, request: gr.Request
    ) -> tuple[str, Any, Any, Any]:
        result: tuple[str, Any, Any, Any] = act(action, selected, level, reason, disposition, note, request)
        return result

    handler.__name__ = f"action_{action}"
    return handler


def _bind_card(act: Any, action: str) -> Any:
    def handler(selected: str, step: Any, card_id: str, reason: str, request: gr.Request) -> str:
        result: str = act(action, selected, step, card_id, reason, request)
        return result

    handler.__name__ = f"action_{action}"
    return handler
