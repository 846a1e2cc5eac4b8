"""Cross-site request forgery from another port of the same host, in real headless Chromium: a page there that
auto-submits a form and fires `fetch` at the console, with a signed-in dispatcher's cookie, changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.api.main import create_app
from app.auth.accounts import add_user
from app.db.migrate import upgrade
from app.db.models import Incident, IncidentEvent
from app.db.session import session_scope
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from tests.app.console.test_console_browser import chromium_path
from tests.app.live_server import loopback_config, page_server, serving

playwright_api = pytest.importorskip("playwright.sync_api", reason="installed by `make test`")

FORM_ATTACK = """<!doctype html><html><body onload="document.forms[0].submit()">
<form method="post" action="{console}/v1/incidents/{incident}/claim"><input name="x" value="1"></form></body></html>"""
FETCH_ATTACK = """<!doctype html><html><body><script>
const console_ = "{console}";
Promise.allSettled([
  fetch(console_ + "/v1/incidents/{incident}/dispatch", {{method: "POST", mode: "no-cors", credentials: "include"}}),
  fetch(console_ + "/v1/incidents/{incident}/claim", {{method: "POST", mode: "no-cors", credentials: "include",
    headers: {{"Content-Type": "text/plain"}}, body: "{{}}"}}),
  fetch(console_ + "/logout", {{method: "POST", mode: "no-cors", credentials: "include"}}),
]).then(() => {{ document.title = "sent"; }});
</script></body></html>"""


@dataclass
class Site:
    console: str
    database_url: str
    incident_id: str

    def state(self) -> tuple[str, list[tuple[str, str]]]:
        """The incident's status and its audit events (actor, action)."""
        with session_scope(self.database_url) as session:
            incident = session.get(Incident, self.incident_id)
            assert incident is not None
            events = session.execute(
                select(IncidentEvent.actor, IncidentEvent.action)
                .where(IncidentEvent.incident_id == self.incident_id)
                .order_by(IncidentEvent.id)
            ).all()
            return incident.status, [(actor, action) for actor, action in events]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('csrf')) / 'csrf.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dana-password")
        incident_id, _ = store_message(session, "cad", "csrf-1", IntakeMessage(text="Chest pain, sweating"))
    config = loopback_config(create_app(Settings(database_url=url), reconciler=False))
    with serving(config):
        yield Site(f"http://127.0.0.1:{config.port}", url, incident_id)


def test_a_page_on_another_port_cannot_claim_with_the_dispatcher_s_cookie(site: Site) -> None:
    pages = {
        "/form.html": FORM_ATTACK.format(console=site.console, incident=site.incident_id),
        "/fetch.html": FETCH_ATTACK.format(console=site.console, incident=site.incident_id),
    }
    with playwright_api.sync_playwright() as playwright, page_server(pages) as attacker:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        page = browser.new_context().new_page()
        sign_in(page, site)
        assert site.state() == ("new", [("system:intake:cad", "received")])

        page.goto(f"{attacker}/form.html")  # the form posts itself: the browser lands on the console's answer
        page.wait_for_url(f"{site.console}/v1/incidents/{site.incident_id}/claim", timeout=30_000)
        assert "cross-origin request refused" in page.inner_text("body")
        assert f"Origin '{attacker}'" in page.inner_text("body")

        page.goto(f"{attacker}/fetch.html")
        page.wait_for_function("document.title === 'sent'", timeout=30_000)
        assert site.state() == ("new", [("system:intake:cad", "received")])

        # Still signed in (the forged sign-out was refused), and the console's own page may claim.
        page.goto(f"{site.console}/console/")
        page.wait_for_selector("#whoami", timeout=60_000)
        status = page.evaluate(
            f"fetch('/v1/incidents/{site.incident_id}/claim', {{method: 'POST'}}).then(answer => answer.status)"
        )
        assert status == 200
        assert site.state() == ("claimed", [("system:intake:cad", "received"), ("dana", "claim")])
        browser.close()


def sign_in(page: Any, site: Site) -> None:
    """Through the console's own sign-in form (its POST carries the console's origin)."""
    page.goto(f"{site.console}/console/")
    page.fill("input[name=username]", "dana")
    page.fill("input[name=password]", "dana-password")
    page.click("button[type=submit]")
    page.wait_for_selector("#whoami", timeout=60_000)
