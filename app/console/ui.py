"""The console: sign-in pages on the FastAPI app, and the Gradio Blocks mounted at /console behind the session."""

from __future__ import annotations

import datetime as dt
import html
import tempfile
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import gradio as gr
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import select

from app.auth import Principal
from app.console.dashboard import dashboard_data, dashboard_figure, render_agreement, weekly_agreement
from app.console.render import CSS, HEAD, render_incident, render_queue
from app.console.service import (
    DISPATCH_ROLES,
    DISPOSITIONS,
    ActionError,
    ForbiddenError,
    add_note,
    audit_events,
    claim,
    close,
    events_csv,
    incident_detail,
    mark_dispatched,
    open_queue,
    override,
    require,
)
from app.console.sessions import COOKIE, SESSION_HOURS, principal_for_session, sign_in, sign_out
from app.db.models import Role, User
from app.db.session import session_scope
from app.intake.schemas import IntakeMessage
from app.overrides import propagate_override
from app.pipeline import store_message, try_hand_over
from app.settings import Settings

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
    '<button type="submit" id="sign-out" style="text-decoration:underline;color:#1565c0">Sign out</button></form>'
)


def install_console(app: FastAPI, settings: Settings) -> None:
    """Sign-in routes, the redirect for signed-out visitors, and the Gradio console at /console."""

    def current(request: Request) -> Principal | None:
        with session_scope(settings.database_url) as session:
            return principal_for_session(session, request.cookies.get(COOKIE))

    @app.get("/login", response_class=HTMLResponse)
    def login_form(next: str = "/console/", error: str = "") -> str:
        text = LOGIN_ERRORS.get(error, "")
        message = f'<p class="error">{text}</p>' if text else ""
        return LOGIN_PAGE.format(error=message, next=html.escape(_safe_next(next)))

    @app.post("/login")
    async def login(request: Request) -> Response:
        form = await request.form()
        name, password = str(form.get("username") or ""), str(form.get("password") or "")
        target = _safe_next(str(form.get("next") or "/console/"))
        with session_scope(settings.database_url) as session:
            token = sign_in(session, name, password)
        if token is None:
            return RedirectResponse(f"/login?next={quote(target)}&error=credentials", status_code=303)
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(
            COOKIE,
            token,
            max_age=SESSION_HOURS * 3600,
            httponly=True,
            samesite="lax",
            secure=settings.env == "production",
        )
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

    gr.mount_gradio_app(
        app,
        build_console(settings),
        path="/console",
        auth_dependency=auth_dependency,
        css=CSS,
        head=HEAD,
        footer_links=[],
        show_error=True,
    )


def _safe_next(target: str) -> str:
    """Only paths on this site (no open redirect)."""
    return target if target.startswith("/") and not target.startswith("//") else "/console/"


def build_console(settings: Settings) -> gr.Blocks:
    """The console's Blocks; every handler finds the user from the session and checks the role itself."""
    url = settings.database_url
    exports = Path(tempfile.mkdtemp(prefix="triage-audit-"))

    def principal(request: gr.Request) -> Principal | None:
        name = getattr(request, "username", None)
        if not name:
            return None
        with session_scope(url) as session:
            user = session.scalar(select(User).where(User.name == name, User.active.is_(True)))
            return Principal(user.name, Role(user.role)) if user is not None else None

    def whoami(request: gr.Request) -> tuple[str, Any, Any, Any, Any]:
        who = principal(request)
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

    def refresh_queue(selected: str, request: gr.Request) -> str:
        require(principal(request), (Role.CALL_TAKER, *DISPATCH_ROLES), "see the queue")
        with session_scope(url) as session:
            return render_queue(open_queue(session), selected)

    def refresh_incident(selected: str, request: gr.Request) -> tuple[str, str, str]:
        require(principal(request), (Role.CALL_TAKER, *DISPATCH_ROLES), "see incidents")
        with session_scope(url) as session:
            return render_incident(incident_detail(session, selected) if selected else None)

    def open_incident(selected: str, request: gr.Request) -> tuple[Any, str, str, str]:
        view = refresh_incident(selected, request)
        return gr.Tabs(selected="incident"), *view

    def act(
        action: str, selected: str, level: Any, reason: str, disposition: str, note: str, request: gr.Request
    ) -> str:
        who = principal(request)
        try:
            with session_scope(url) as session:
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
            if action == "override":  # after the commit: the heap and the engine
                where = propagate_override(settings, selected, int(level))
                return f"Overridden to ESI {int(level)} ({where})."
            return f"Done: {action}."
        except (ForbiddenError, ActionError) as error:
            return f"**Refused:** {error}"

    def new_message(text: str, caller: str, location: str, request: gr.Request) -> str:
        require(principal(request), (Role.CALL_TAKER, *DISPATCH_ROLES), "enter calls")
        try:
            message = IntakeMessage(text=text, caller=caller or None, location=location or None)
        except ValueError as error:
            return f"**Refused:** {error}"
        with session_scope(url) as session:
            incident_id, _ = store_message(session, "console", f"console-{uuid.uuid4()}", message)
        if settings.redis_url is not None:
            try_hand_over(incident_id)
        return f"Accepted: incident {incident_id}."

    def refresh_dashboard(request: gr.Request) -> tuple[Any, str]:
        require(principal(request), (Role.DISPATCHER, Role.SUPERVISOR), "see the dashboard")
        with session_scope(url) as session:
            now = dt.datetime.now(dt.UTC)
            figure = dashboard_figure(dashboard_data(session, now))
            return figure, render_agreement(weekly_agreement(session, now), now)

    def search_audit(
        incident_id: str, actor: str, action: str, minutes: float, request: gr.Request
    ) -> tuple[list[list[str]], str | None]:
        who = principal(request)
        minutes = min(max(float(minutes or 0), 0.0), 60 * 24 * 366)
        since = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=minutes) if minutes else None
        with session_scope(url) as session:
            events = audit_events(session, who, incident_id.strip(), actor.strip(), action.strip(), since)
        rows = [
            [
                event["at"],
                event["incident"],
                event["actor"],
                event["action"],
                str(event["before"]),
                str(event["after"]),
                event["reason"],
            ]
            for event in events
        ]
        assert who is not None  # audit_events refused anyone else
        export = exports / f"audit-{who.name}.csv"  # one file per supervisor, replaced by each search
        export.write_text(events_csv(events))
        return rows, str(export)

    with gr.Blocks(title="triage-dispatch console") as blocks:
        gr.HTML('<div id="urgent-banner" title="click to acknowledge"></div>')
        who = gr.HTML(elem_id="whoami")
        selected = gr.Textbox(elem_id="selected-id", visible="hidden")
        open_button = gr.Button("open", elem_id="open-incident", visible="hidden")
        with gr.Tabs() as tabs:
            with gr.Tab("Queue", id="queue"):
                queue_html = gr.HTML(elem_id="queue-view")
            with gr.Tab("Incident", id="incident"):
                with gr.Row():
                    with gr.Column(scale=3):
                        incident_html = gr.HTML(elem_id="incident-view")
                        guidance = gr.Textbox(
                            label="Guidance (streaming)", lines=12, interactive=False, elem_id="guidance"
                        )
                    with gr.Column(scale=2):
                        with gr.Group(visible=False) as dispatch_actions:
                            with gr.Row():
                                claim_button = gr.Button("Claim", elem_id="claim")
                                dispatch_button = gr.Button("Mark dispatched", elem_id="dispatch")
                            level = gr.Radio([1, 2, 3, 4, 5], label="Override ESI level", elem_id="override-level")
                            reason = gr.Textbox(label="Reason (required)", elem_id="override-reason")
                            override_button = gr.Button("Override ESI", variant="primary", elem_id="override")
                            disposition = gr.Dropdown(list(DISPOSITIONS), label="Disposition", elem_id="disposition")
                            close_button = gr.Button("Close incident", elem_id="close")
                        note = gr.Textbox(label="Note", elem_id="note")
                        note_button = gr.Button("Add note", elem_id="add-note")
                        result = gr.Markdown(elem_id="action-result")
                history = gr.HTML(elem_id="history")
            with gr.Tab("New message", id="new"):
                text = gr.Textbox(label="What the caller says", lines=5, elem_id="new-text")
                caller = gr.Textbox(label="Caller", elem_id="new-caller")
                location = gr.Textbox(label="Location", elem_id="new-location")
                submit = gr.Button("Submit", variant="primary", elem_id="new-submit")
                accepted = gr.Markdown(elem_id="new-result")
            with gr.Tab("Dashboard", id="dashboard", visible=False) as dashboard_tab:
                plot = gr.Plot(elem_id="dashboard-plot")
                agreement = gr.HTML(elem_id="dashboard-agreement")
                refresh = gr.Button("Refresh", elem_id="dashboard-refresh")
            with gr.Tab("Audit", id="audit", visible=False) as audit_tab:
                with gr.Row():
                    audit_incident = gr.Textbox(label="Incident id")
                    audit_actor = gr.Textbox(label="User", elem_id="audit-user")
                    audit_action = gr.Dropdown(
                        ["", "received", "classified", "claim", "override", "dispatch", "close", "note"],
                        label="Action",
                        elem_id="audit-action",
                    )
                    audit_minutes = gr.Number(label="Last minutes (0 = all)", value=60)
                search = gr.Button("Search", elem_id="audit-search")
                table = gr.Dataframe(
                    headers=["at", "incident", "actor", "action", "before", "after", "reason"], elem_id="audit-table"
                )
                csv_file = gr.File(label="CSV export", elem_id="audit-csv")

        timer = gr.Timer(1.0)
        timer.tick(refresh_queue, inputs=[selected], outputs=[queue_html], show_progress="hidden")
        timer.tick(
            refresh_incident, inputs=[selected], outputs=[incident_html, guidance, history], show_progress="hidden"
        )
        open_button.click(open_incident, inputs=[selected], outputs=[tabs, incident_html, guidance, history])
        for button, action in (
            (claim_button, "claim"),
            (dispatch_button, "dispatch"),
            (override_button, "override"),
            (close_button, "close"),
            (note_button, "note"),
        ):
            button.click(
                _bind(act, action),
                inputs=[selected, level, reason, disposition, note],
                outputs=[result],
                api_name=f"action_{action}",
            )
        submit.click(new_message, inputs=[text, caller, location], outputs=[accepted])
        refresh.click(refresh_dashboard, outputs=[plot, agreement])
        dashboard_tab.select(refresh_dashboard, outputs=[plot, agreement])
        search.click(
            search_audit, inputs=[audit_incident, audit_actor, audit_action, audit_minutes], outputs=[table, csv_file]
        )
        blocks.load(whoami, outputs=[who, dispatch_actions, audit_tab, search, dashboard_tab])
        blocks.load(refresh_queue, inputs=[selected], outputs=[queue_html])
    built: gr.Blocks = blocks
    return built


def _bind(act: Any, action: str) -> Any:
    def handler(selected: str, level: Any, reason: str, disposition: str, note: str, request: gr.Request) -> str:
        result: str = act(action, selected, level, reason, disposition, note, request)
        return result

    handler.__name__ = f"action_{action}"
    return handler
