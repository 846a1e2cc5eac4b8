"""The console's session as a dispatcher meets it in real headless Chromium, against a real uvicorn: Gradio's own
events run through the session guard (`app/console/gradio_guard.py`), and one session per user (a second screen's
sign-in ends the first, which says why)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.api.main import create_app
from app.auth.accounts import add_user
from app.db.migrate import upgrade
from app.db.session import session_scope
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from app.settings import Settings
from tests.app.live_server import loopback_config, serving

pytest.importorskip("playwright.sync_api", reason="installed by `make test`")


@dataclass
class Site:
    console: str
    database_url: str
    incident_id: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('sessions')) / 'sessions.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dana-password")
        incident_id, _ = store_message(session, "cad", "two-screens-1", IntakeMessage(text="Chest pain, sweating"))
    config = loopback_config(create_app(Settings(database_url=url), reconciler=False))
    with serving(config):
        yield Site(f"http://127.0.0.1:{config.port}", url, incident_id)


def signed_in_console(browser: Any, site: Site) -> Any:
    """A new screen (its own cookies) signed in as dana, the queue streamed onto it."""
    page = browser.new_context().new_page()
    page.goto(f"{site.console}/console/")
    page.fill("input[name=username]", "dana")
    page.fill("input[name=password]", "dana-password")
    page.click("button[type=submit]")
    page.wait_for_selector(f"#queue tr.incident[data-id='{site.incident_id}']", timeout=60_000)
    return page


def test_the_console_s_own_gradio_events_run_in_its_session(site: Site, browser: Any) -> None:
    """The page's session hash is namespaced by the guard, its heartbeat is open, and its events are answered: an
    incident opens and a claim is confirmed."""
    page = signed_in_console(browser, site)
    heartbeats: list[int] = []
    page.on("response", lambda answer: "/heartbeat/" in answer.url and heartbeats.append(answer.status))
    page.click(f"#queue tr.incident[data-id='{site.incident_id}']")
    page.wait_for_selector("#incident-view .message", timeout=30_000)
    assert "Chest pain, sweating" in page.inner_text("#incident-view")
    page.click("#claim")
    page.wait_for_function("document.querySelector('#action-result').innerText.includes('Claimed.')", timeout=30_000)
    page.reload()  # a new page: a new heartbeat
    page.wait_for_selector(f"#queue tr.incident[data-id='{site.incident_id}']", timeout=60_000)
    page.wait_for_timeout(1000)
    assert heartbeats and set(heartbeats) == {200}
    page.context.close()


def test_signing_in_on_a_second_screen_signs_the_first_out_and_it_says_why(site: Site, browser: Any) -> None:
    first = signed_in_console(browser, site)
    second = signed_in_console(browser, site)
    # The first screen's queue stream ends with its session; it does not sit there looking live.
    first.wait_for_url("**/login?**", timeout=30_000)
    assert "You were signed out here: your user signed in on another screen" in first.inner_text("body")
    second.reload()
    second.wait_for_selector(f"#queue tr.incident[data-id='{site.incident_id}']", timeout=60_000)
    assert "/console/" in second.url
    for page in (first, second):
        page.context.close()
