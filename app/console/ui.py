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
from app.console.floor_panel import floor_data, render_floor
from app.console.gradio_guard import GradioSessionGuard
from app.console.history import action_choices
from app.console.incident_tab import IncidentHandlers, IncidentTab, incident_layout, wire_incident
from app.console.incident_tab import action_visibility as action_visibility
from app.console.live_panel import CSS as LIVE_CSS
from app.console.page_redirect import ConsolePageRedirect
from app.console.page_script import PAGE_SCRIPT
from app.console.queue_stream import ENGINE_BANNER_SLOT, QUEUE_SHELL, TICK_S, add_queue_stream, read_view
from app.console.reading_panel import CSS as READING_CSS
from app.console.recent import RECENT_HOURS, recent_calls, render_recent
from app.console.render import CSS
from app.console.service import (
    DISPATCH_ROLES,
    ActionError,
    audit_events,
    new_message,
    ordinal,
    queue_place,
    require,
)
from app.console.sessions import (
    SignInResult,
    clear_session_cookie,
    cookie_name,
    principal_for_session,
    set_session_cookie,
    sign_out,
    throttled_sign_in,
)
from app.console.tcpr_panel import CSS as TCPR_CSS
from app.console.tcpr_panel import tcpr_panel
from app.console.units_view import render_roster
from app.db.models import Role, User
from app.db.session import session_scope
from app.guidance.cards import CardError, default_library
from app.redis.queueing import side_redis_client
from app.redis.shared_value import SharedValue
from app.settings import Settings
from app.status.engine import EngineStatusCache
from app.units.roster import roster
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


LOGIN_ERRORS = {
    "credentials": "Wrong user or password.",
    "ended": "You were signed out here: your user signed in on another screen (one session per user), signed out, "
    "or was signed out by a supervisor. Sign in again to work on this screen.",
}
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

    cookie = cookie_name(settings.session_cookie_secure)

    def session_principal(token: str | None) -> Principal | None:
        with session_scope(settings.database_url) as session:
            return principal_for_session(session, token)

    def current(request: Request) -> Principal | None:
        return session_principal(request.cookies.get(cookie))

    # Every path under /console/ but the page needs the session; Gradio's sessions, events and streams are held to it.
    app.add_middleware(GradioSessionGuard, cookie=cookie, principal_for=session_principal)

    app.add_middleware(ConsolePageRedirect, cookie=cookie, principal_for=session_principal)

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
        css=CSS + READING_CSS + LIVE_CSS + TCPR_CSS,
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
        token = request.cookies.get(cookie_name(settings.session_cookie_secure))
        if token:
            with session_scope(settings.database_url) as session:
                sign_out(session, token)
        response = RedirectResponse("/login", status_code=303)
        clear_session_cookie(response, settings.session_cookie_secure)
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
        self.incident = IncidentHandlers(settings, self.principal, engine)

    def principal(self, request: gr.Request) -> Principal | None:
        name = getattr(request, "username", None)
        if not name:
            return None
        with session_scope(self.url) as session:
            user = session.scalar(select(User).where(User.name == name, User.active.is_(True)))
            return Principal(user.name, Role(user.role)) if user is not None else None

    def whoami(self, request: gr.Request) -> tuple[Any, ...]:
        who = self.principal(request)
        if who is None:
            hidden = gr.update(visible=False)
            return "Not signed in.", hidden, hidden, hidden, hidden, hidden
        can_dispatch = who.role in DISPATCH_ROLES
        return (
            f"Signed in as <b>{html.escape(who.name)}</b> ({who.role.value}) · {SIGN_OUT_FORM}",
            gr.update(visible=can_dispatch),
            gr.update(visible=who.role == Role.SUPERVISOR),
            gr.update(visible=who.role == Role.SUPERVISOR),
            gr.update(visible=can_dispatch),
            gr.update(visible=can_dispatch),
        )

    def units(self, request: gr.Request) -> str:
        """The roster with each unit's status, the time since and its call (dispatchers and supervisors)."""
        who = require(self.principal(request), DISPATCH_ROLES, "see the units")
        with session_scope(self.url) as session:
            return render_roster(roster(session), who.role in DISPATCH_ROLES)

    def search_recent(self, text: str, hours: Any, request: gr.Request) -> str:
        """Recent calls (closed ones included) matching the words, address or number, newest first."""
        require(self.principal(request), (Role.CALL_TAKER, *DISPATCH_ROLES), "search calls")
        since = dt.datetime.now(dt.UTC) - dt.timedelta(hours=min(max(float(hours or RECENT_HOURS), 0.1), 24 * 31))
        with session_scope(self.url) as session:
            return render_recent(recent_calls(session, text or "", since))

    def new_message(
        self, text: str, caller: str, callback: str, age: Any, location: str, request: gr.Request
    ) -> Iterator[tuple[Any, ...]]:
        """Store a typed call; once accepted the form is cleared (a call is not entered twice), else kept. The
        confirmation then names the level triage gave it and its place in the queue ("Accepted: ESI 1, 3rd in
        queue")."""
        keep = gr.update()
        try:
            with session_scope(self.url) as session:
                incident_id = new_message(session, self.principal(request), text, caller, location, callback, age)
        except ActionError as error:
            yield f"**Refused:** {error}", keep, keep, keep, keep, keep
            return
        if self.settings.redis_url is not None:
            try_hand_over(incident_id, text)
        short = incident_id[:8]
        yield f"Accepted: incident {short}, triage running. The form is ready for the next call.", "", "", "", None, ""
        deadline = time.monotonic() + TRIAGE_WAIT_S
        while time.monotonic() < deadline:
            with session_scope(self.url) as session:
                place = queue_place(session, incident_id)
            if place is not None:
                esi_level, number = place
                message = f"Accepted: ESI {esi_level}, {ordinal(number)} in queue (incident {short})."
                yield message, keep, keep, keep, keep, keep
                return
            time.sleep(TRIAGE_POLL_S)
        yield f"Accepted: incident {short}; triage has not answered yet: see the queue.", keep, keep, keep, keep, keep

    def refresh_dashboard(self, shown: Any, request: gr.Request) -> tuple[Any, Any, Any, Any, Any]:
        """The dashboard: the floor's NFPA 1225 panel and this month's T-CPR figures, then the engine's figure, drawn
        again only when what it shows changed since this console's last one (`shown`, its signature): a figure costs
        about 0.6 s of CPU to draw, and the page asks every 30 s while it is on screen."""
        require(self.principal(request), (Role.DISPATCHER, Role.SUPERVISOR), "see the dashboard")
        with session_scope(self.url) as session:
            now = dt.datetime.now(dt.UTC)
            data, weeks = dashboard_data(session, now), weekly_agreement(session, now)
            floor, tcpr = render_floor(floor_data(session, now)), tcpr_panel(session, now)
        signature = (dashboard_signature(data), tuple(weeks))
        if signature == shown:
            return floor, tcpr, gr.skip(), gr.skip(), shown
        return floor, tcpr, dashboard_figure(data), render_waits(data) + render_agreement(weeks, now), signature

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
    incident: IncidentTab
    units_tab: gr.Tab
    units_html: gr.HTML
    units_refresh: gr.Button
    search_text: gr.Textbox
    search_hours: gr.Number
    search_button: gr.Button
    search_results: gr.HTML
    text: gr.Textbox
    caller: gr.Textbox
    callback: gr.Textbox
    age: gr.Number
    location: gr.Textbox
    submit: gr.Button
    accepted: gr.Markdown
    dashboard_tab: gr.Tab
    floor: gr.HTML
    tcpr: gr.HTML
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
            view.incident = incident_layout(card_choices())
        with gr.Tab("Units", id="units", visible=False) as view.units_tab:
            view.units_html = gr.HTML(elem_id="units-view")
            view.units_refresh = gr.Button("Refresh", size="sm", elem_id="units-refresh")
        with gr.Tab("Recent calls", id="recent"):
            _recent_tab(view)
        with gr.Tab("New message", id="new"):
            view.text = gr.Textbox(label="What the caller says", lines=5, elem_id="new-text")
            with gr.Row():
                view.caller = gr.Textbox(label="Caller", elem_id="new-caller")
                view.callback = gr.Textbox(label="Call-back number", elem_id="new-callback")
                view.age = gr.Number(
                    label="Patient's age (years)", precision=0, minimum=0, maximum=130, elem_id="new-age"
                )
            view.location = gr.Textbox(label="Location", elem_id="new-location")
            view.submit = gr.Button("Submit", variant="primary", elem_id="new-submit")
            view.accepted = gr.Markdown(elem_id="new-result")
        with gr.Tab("Dashboard", id="dashboard", visible=False) as view.dashboard_tab:
            view.floor = gr.HTML(elem_id="dashboard-floor")  # the floor's figures first, apart from the engine's
            view.tcpr = gr.HTML(elem_id="dashboard-tcpr")
            gr.HTML("<h3 class='dashboard-part'>Guidance engine (the LLM's queue and speed)</h3>")
            view.plot = gr.Plot(elem_id="dashboard-plot", show_label=False)  # its "Plot" badge covered a panel
            view.agreement = gr.HTML(elem_id="dashboard-agreement")
            view.refresh = gr.Button("Refresh", elem_id="dashboard-refresh")
        with gr.Tab("Audit", id="audit", visible=False) as view.audit_tab:
            _audit_tab(view)
    return view


def _recent_tab(view: _View) -> None:
    """Search the recent calls, closed ones included (a dispatcher's look back; the audit is the supervisors')."""
    with gr.Row():
        view.search_text = gr.Textbox(
            label="Words, address or call-back number (empty: every call)", elem_id="recent-text", scale=3
        )
        view.search_hours = gr.Number(label="Last hours", value=RECENT_HOURS, elem_id="recent-hours", scale=1)
    view.search_button = gr.Button("Search", elem_id="recent-search")
    view.search_results = gr.HTML(elem_id="recent-results")


def card_choices() -> list[tuple[str, str]]:
    """The protocol cards a dispatcher may switch to: (id: title, id); none when the library cannot be read (the
    switch then says so)."""
    try:
        library = default_library()
    except CardError:
        return []
    return [(f"{card_id}: {card.title}", card_id) for card_id in library.ids() if (card := library.get(card_id, "en"))]


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
    """The events: the incident's (`app.console.incident_tab`), the units, the recent calls, the new message, the
    dashboard, the audit, the page load."""
    v, h = view, handlers
    # The queue is pushed by the server (`app.console.queue_stream`, the page's script); the open incident is
    # reloaded when the page sees it change. Nothing polls.
    wire_incident(v.incident, h.incident, v.selected, v.tabs, (v.reload_button, v.open_button))
    v.units_refresh.click(h.units, outputs=[v.units_html], show_progress="hidden")
    v.units_tab.select(h.units, outputs=[v.units_html])
    v.search_button.click(h.search_recent, inputs=[v.search_text, v.search_hours], outputs=[v.search_results])
    form = [v.text, v.caller, v.callback, v.age, v.location]
    # No concurrency limit: the confirmation waits up to TRIAGE_WAIT_S for triage, and another console's typed call
    # must not queue behind it (Gradio's default is one at a time per event).
    v.submit.click(h.new_message, inputs=form, outputs=[v.accepted, *form], concurrency_limit=None)
    drawn = gr.State(None)  # the signature of the dashboard this console shows
    dashboard = [v.floor, v.tcpr, v.plot, v.agreement, drawn]
    v.refresh.click(h.refresh_dashboard, inputs=[drawn], outputs=dashboard, show_progress="hidden")
    v.dashboard_tab.select(h.refresh_dashboard, inputs=[drawn], outputs=dashboard)
    audit_inputs = [v.audit_incident, v.audit_actor, v.audit_action, v.audit_hours]
    v.search.click(h.search_audit, inputs=audit_inputs, outputs=[v.table, v.csv_link])
    v.audit_tab.select(h.search_audit, inputs=audit_inputs, outputs=[v.table, v.csv_link])  # the last day on open
    blocks.load(
        h.whoami, outputs=[v.who, v.incident.dispatch_actions, v.audit_tab, v.search, v.dashboard_tab, v.units_tab]
    )
