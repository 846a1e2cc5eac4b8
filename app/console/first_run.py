"""The first run: a one-time setup link, printed by `serve` while there is no user, creates the first supervisor."""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets
import threading

from fastapi import FastAPI, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy import func, select
from starlette.concurrency import run_in_threadpool

from app.auth.accounts import add_user
from app.auth.user_rules import MIN_PASSWORD_CHARS, password_problem, user_name_problem
from app.console.sessions import open_session, set_session_cookie
from app.db.models import Role, User
from app.db.session import session_scope
from app.settings import Settings

SETUP_PATH = "/setup"
SETUP_PAGE = """<!doctype html><html><head><title>First run - triage-dispatch</title>
<style>body{{font-family:system-ui,sans-serif;background:#eceff1;display:flex;justify-content:center;padding-top:8vh}}
form,div.box{{background:#fff;padding:32px;border-radius:8px;box-shadow:0 2px 8px #0002;width:360px}}
input{{width:100%;padding:8px;margin:6px 0 14px;box-sizing:border-box}}
button{{width:100%;padding:10px;background:#1565c0;color:#fff;border:0;border-radius:4px;font-size:16px}}
.error{{color:#b71c1c}}</style></head><body>{body}</body></html>"""
SETUP_FORM = """<form method="post" action="/setup"><h2>triage-dispatch: first run</h2>
<p>Create the first supervisor. Supervisors add the other users (<code>triage-dispatch users add</code>).</p>{error}
<input type="hidden" name="token" value="{token}">
<label>User (letters, digits, '.', '_' or '-')<input name="username" autocomplete="username" value="{name}"
 autofocus></label>
<label>Password (at least {min_chars} characters)<input name="password" type="password"
 autocomplete="new-password"></label>
<label>Password again<input name="password2" type="password" autocomplete="new-password"></label>
<button type="submit">Create and sign in</button></form>"""
GONE = """<div class="box"><h2>This setup link is no longer valid</h2><p>The first user exists, or the link is not
the one <code>triage-dispatch serve</code> printed. <a href="/login">Sign in</a>, or ask a supervisor for an account.
</p></div>"""


def needs_setup(database_url: str) -> bool:
    """Whether there is no user at all (the first run)."""
    with session_scope(database_url) as session:
        return not session.scalar(select(func.count()).select_from(User))


class SetupLink:
    """A one-time token (kept as its SHA-256) for the first supervisor; spent by the first account it creates."""

    def __init__(self, token: str) -> None:
        self._sha256 = hashlib.sha256(token.encode()).hexdigest()
        self._spent = False
        self._lock = threading.Lock()

    @staticmethod
    def issue() -> tuple[str, SetupLink]:
        token = secrets.token_urlsafe(24)
        return token, SetupLink(token)

    def valid(self, token: str) -> bool:
        offered = hashlib.sha256(token.encode()).hexdigest()
        return not self._spent and hmac.compare_digest(offered, self._sha256)

    def create_first_supervisor(self, settings: Settings, token: str, name: str, password: str) -> str | None:
        """The new supervisor's session token; None if the link is spent or invalid, or a user exists already."""
        with self._lock:
            if not self.valid(token):
                return None
            with session_scope(settings.database_url) as session:
                if session.scalar(select(func.count()).select_from(User)):
                    self._spent = True
                    return None
                session_token = open_session(session, add_user(session, name, Role.SUPERVISOR, password))
            self._spent = True  # after the commit: a failed one leaves the link usable
            return session_token


def setup_form_error(name: str, password: str, password2: str) -> str:
    """Why the form cannot create the user ("" if it can): the rule `users add` holds too, then the two passwords."""
    problem = user_name_problem(name) or password_problem(password, name)
    if problem:
        return f"{problem[0].upper()}{problem[1:]}."
    if password != password2:
        return "The two passwords differ."
    return ""


def add_setup_routes(app: FastAPI, settings: Settings, link: SetupLink) -> None:
    """GET and POST /setup for the link's token: the form, then the first supervisor, signed in."""

    def page(token: str, name: str = "", error: str = "", status: int = 200) -> HTMLResponse:
        message = f'<p class="error">{html.escape(error)}</p>' if error else ""
        form = SETUP_FORM.format(
            token=html.escape(token), name=html.escape(name), error=message, min_chars=MIN_PASSWORD_CHARS
        )
        return HTMLResponse(SETUP_PAGE.format(body=form), status_code=status)

    def gone() -> HTMLResponse:
        return HTMLResponse(SETUP_PAGE.format(body=GONE), status_code=404)

    @app.get(SETUP_PATH, response_class=HTMLResponse)
    def setup_form(token: str = "") -> HTMLResponse:
        if not link.valid(token) or not needs_setup(settings.database_url):
            return gone()
        return page(token)

    @app.post(SETUP_PATH)
    async def setup(request: Request) -> Response:
        form = await request.form()
        token, name = str(form.get("token") or ""), str(form.get("username") or "")
        password, password2 = str(form.get("password") or ""), str(form.get("password2") or "")
        if not link.valid(token):
            return gone()
        error = setup_form_error(name, password, password2)
        if error:
            return page(token, name, error, status=422)
        session_token = await run_in_threadpool(link.create_first_supervisor, settings, token, name, password)
        if session_token is None:
            return gone()
        response = RedirectResponse("/console/", status_code=303)
        set_session_cookie(response, session_token, settings.session_cookie_secure)
        return response
