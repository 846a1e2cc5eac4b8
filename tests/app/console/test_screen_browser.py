"""The dispatcher's screen in real headless Chromium at 1280x720, on incidents stored and classified as the product
does it (`store_message`, then `classify_incident` with chosen triage results) and engine heartbeats in Redis: wait
clocks coloured against each level's deadline and recoloured live, complaints that keep the red flags, location and
source columns, an urgent alert that names its calls and opens the first, one level everywhere after an override,
actions that match the incident's state, forms cleared once used, the guidance state in words above every tab, and a
typed call confirmed with its level and place. Also takes screenshots (`make screenshots` writes them to docs/img/)."""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import select

from app.api.main import create_app
from app.auth.accounts import add_user
from app.console import ui
from app.db.migrate import upgrade
from app.db.models import Incident, IncidentEvent, utcnow
from app.db.session import session_scope
from app.incidents import pipeline
from app.intake.schemas import IntakeMessage
from app.redis.keys import ENGINE_HEARTBEAT
from app.settings import Settings
from tests.app.api.test_card_actions_api import ARREST_TEXT, arrest_result
from tests.app.console.test_console_browser import IMAGES, wait_for
from tests.app.live_server import loopback_config, serving
from tests.app.triage_stub import FakeHeap, StubTriager, plain_result, red_flag_result
from triage_models.result import DecisionPoint, TriageResult

playwright_api = pytest.importorskip("playwright.sync_api", reason="installed by `make test`")

VIEWPORT = {"width": 1280, "height": 720}
CHEST_CALL = (
    "Hi, this is about my father, he is 82 and has been feeling unwell since this morning, he is sweating a lot and "
    "now says he has crushing chest pain going to his left arm for maybe an hour"
)
CHEST_COMPLAINT = "…sweating a lot and now says he has crushing chest pain going to his left arm for maybe an hour"
GREEN, AMBER, RED = "rgb(200, 230, 201)", "rgb(255, 179, 0)", "rgb(183, 28, 28)"
"""The wait cells' backgrounds (render.CSS: .wait-ok, .wait-warn, .wait-late)."""


def chest_result() -> TriageResult:
    """ESI 2: the chest-pain flag, far past the message's first 120 characters."""
    return red_flag_result(
        plain_result(2),
        CHEST_CALL,
        "crushing chest pain",
        rule_id="B-CHEST-PAIN",
        decision_point=DecisionPoint.B,
        description="chest pain: consider ESI 2",
        floor=False,
    )


def triage(text: str) -> TriageResult:
    """The stub triage's answer by the message: the arrest is ESI 1 with its card, the chest pain ESI 2, a sprain
    ESI 3 (with a "level 3" in it) or the level a message names ("level 5: ...")."""
    if "not breathing" in text:
        return arrest_result()
    if text == CHEST_CALL:
        return chest_result()
    named = re.search(r"level (\d)", text)
    return plain_result(int(named.group(1)) if named else 4)


class TextTriager(StubTriager):
    def __init__(self) -> None:
        super().__init__(plain_result(4))

    def classify(self, message: str | bytes) -> TriageResult:
        return triage(message if isinstance(message, str) else message.decode())


@dataclass
class Site:
    console: str
    url: str
    redis: redis.Redis
    prefix: str

    def store(self, text: str, location: str | None = None, waited_s: float = 0.0, source: str = "cad") -> str:
        """A call stored as intake stores it, `waited_s` ago; the classifier thread classifies it."""
        with session_scope(self.url) as session:
            message = IntakeMessage(text=text, location=location, caller="test caller")
            incident_id, _ = pipeline.store_message(session, source, f"w-{uuid.uuid4()}", message)
            session.get(Incident, incident_id).accepted_at = utcnow() - dt.timedelta(seconds=waited_s)  # type: ignore[union-attr]
        wait_for(lambda: self.classified(incident_id), 30, f"{incident_id} classified")
        return incident_id

    def classified(self, incident_id: str) -> bool:
        with session_scope(self.url) as session:
            return session.scalar(select(Incident.esi_level).where(Incident.id == incident_id)) is not None

    def backdate(self, incident_id: str, waited_s: float) -> float:
        """Move the call's arrival `waited_s` back from now; the arrival (epoch seconds)."""
        accepted = utcnow() - dt.timedelta(seconds=waited_s)
        with session_scope(self.url) as session:
            session.get(Incident, incident_id).accepted_at = accepted  # type: ignore[union-attr]
        return accepted.timestamp()

    def actions(self, incident_id: str) -> list[tuple[str, str]]:
        with session_scope(self.url) as session:
            rows = session.execute(
                select(IncidentEvent.actor, IncidentEvent.action)
                .where(IncidentEvent.incident_id == incident_id)
                .order_by(IncidentEvent.id)
            ).all()
            return [(actor, action) for actor, action in rows]

    def heartbeat(self, **beat: Any) -> None:
        """One engine worker's heartbeat, as the engine worker writes it (the status cache reads it within 2 s)."""
        self.redis.set(f"{self.prefix}:{ENGINE_HEARTBEAT}:engine-1", json.dumps(beat))


def classify_pending(url: str, stop: threading.Event) -> None:
    """The Celery worker's part: every stored, unclassified call through the real `classify_incident`."""
    settings, heap = Settings(database_url=url), FakeHeap()
    while not stop.wait(0.2):
        with session_scope(url) as session:
            pending = session.scalars(select(Incident.id).where(Incident.esi_level.is_(None))).all()
        for incident_id in pending:
            pipeline.classify_incident(settings, heap, incident_id)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> Iterator[Site]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('screen')) / 'screen.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dana-password")
    prefix = f"screen-{uuid.uuid4().hex[:8]}"
    settings = Settings(database_url=url, redis_url=redis_url, queue_prefix=prefix)
    stop = threading.Event()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "triager_for", lambda *args, **kwargs: TextTriager())
        patch.setattr(ui, "try_hand_over", lambda *args, **kwargs: None)  # the thread below is the worker
        worker = threading.Thread(target=classify_pending, args=(url, stop), daemon=True)
        worker.start()
        config = loopback_config(create_app(settings, reconciler=False))
        client = redis.Redis.from_url(redis_url)
        try:
            with serving(config):
                site = Site(f"http://127.0.0.1:{config.port}", url, client, prefix)
                site.heartbeat(ok=True, state="serving", detail="", model="qwen2.5-0.5b")
                yield site
        finally:
            stop.set()
            worker.join(timeout=10)


def signed_in(browser: Any, site: Site) -> Any:
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.goto(f"{site.console}/console/")
    page.fill("input[name=username]", "dana")
    page.fill("input[name=password]", "dana-password")
    page.click("button[type=submit]")
    page.wait_for_function("document.querySelector('#whoami')?.innerText.includes('dana')", timeout=60_000)
    return page


def row(page: Any, incident_id: str) -> str:
    return f"#queue tr[data-id='{incident_id}']"


def cells(page: Any, incident_id: str) -> dict[str, str]:
    """The row's cells by column heading."""
    heads = [head.inner_text() for head in page.query_selector_all("#queue thead th")]
    values = [cell.inner_text() for cell in page.query_selector_all(f"{row(page, incident_id)} td")]
    return dict(zip(heads, values, strict=True))


def wait_colour(page: Any, incident_id: str) -> tuple[str, str]:
    """The row's wait cell: (class, computed background colour)."""
    found = page.eval_on_selector(
        f"{row(page, incident_id)} td[data-since]", "cell => [cell.className, getComputedStyle(cell).backgroundColor]"
    )
    return str(found[0]), str(found[1])


def arrived(page: Any, incident_id: str, since: float) -> None:
    """Wait until the page's row carries the arrival `since` (the stream sends a moved arrival within a tick)."""
    cell = f"{row(page, incident_id)} td[data-since]"
    wait_for(lambda: abs(float(page.get_attribute(cell, "data-since")) - since) < 0.01, what=f"{incident_id} arrival")


def fits(page: Any) -> bool:
    """Nothing wider than the 1280-pixel window (no sideways scrolling)."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_the_queue_shows_clocks_against_each_level_s_deadline_and_an_alert_that_opens_its_call(
    site: Site, browser: Any
) -> None:
    calls = {
        "arrest": site.store(ARREST_TEXT, "12 Main St"),
        "chest": site.store(CHEST_CALL, "4 Elm Road"),
        "sprain": site.store("Sprained wrist, level 3, can move fingers", source="console"),
        "cut": site.store("Small cut on the finger, level 4", "9 Pine Ave"),
        "cough": site.store("Cough for a week, level 5", "1 Oak Lane"),
    }
    page = signed_in(browser, site)
    wait_for(lambda: page.locator("#queue tr.incident").count() == 5, what="the five calls in the queue")
    # Their arrivals set once the page shows them (a slow page load must not move a clock past its colour).
    waits = {"arrest": 70, "chest": 48, "sprain": 30, "cut": 500, "cough": 1300}
    # ESI 1: 60 s, red | ESI 2: 60 s, amber from 45 | ESI 3: 180 s, green | ESI 4: 600 s, amber from 450 | ESI 5: red
    arrivals = {name: site.backdate(calls[name], waited_s) for name, waited_s in waits.items()}
    for name, since in arrivals.items():
        arrived(page, calls[name], since)
    order = [element.get_attribute("data-id") for element in page.query_selector_all("#queue tr.incident")]
    assert order == [calls[name] for name in ("arrest", "chest", "sprain", "cut", "cough")]
    colours = {name: wait_colour(page, incident_id) for name, incident_id in calls.items()}
    assert colours == {
        "arrest": ("wait-late", RED),
        "chest": ("wait-warn", AMBER),
        "sprain": ("wait-ok", GREEN),
        "cut": ("wait-warn", AMBER),
        "cough": ("wait-late", RED),
    }
    assert [head.inner_text() for head in page.query_selector_all("#queue thead th")] == [
        "ESI",
        "waiting",
        "chief complaint",
        "location",
        "source",
        "status · units",
        "claimed by",
        "guidance",
    ]
    assert cells(page, calls["chest"])["chief complaint"] == CHEST_COMPLAINT
    arrest = cells(page, calls["arrest"])
    assert (arrest["chief complaint"], arrest["location"], arrest["source"]) == (
        "He collapsed and is not breathing card: CPR adult",
        "12 Main St",
        "cad",
    )
    assert (cells(page, calls["sprain"])["location"], cells(page, calls["sprain"])["source"]) == ("", "console")
    assert page.get_attribute(f"{row(page, calls['cut'])} td[data-since]", "title") == "target 10:00 for ESI 4"
    assert fits(page)
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMAGES / "console-queue-clocks.png"), full_page=True)

    # The page recolours a clock by itself: the sprain (ESI 3, amber from 135 s = 2:15) arrives at 125 s; the
    # server sends nothing more, and the cell turns amber as its clock passes 2:15, never before.
    arrived(page, calls["sprain"], site.backdate(calls["sprain"], 125))
    seen: list[tuple[str, str]] = []

    def amber() -> bool:
        found = page.eval_on_selector(
            f"{row(page, calls['sprain'])} td[data-since]", "cell => [cell.textContent, cell.className]"
        )
        seen.append((str(found[0]), str(found[1])))
        return seen[-1][1] == "wait-warn"

    wait_for(amber, 30, "the clock to turn amber")
    assert seen[0][1] == "wait-ok"
    assert all((clock >= "2:15") == (cls == "wait-warn") for clock, cls in seen), seen
    assert wait_colour(page, calls["sprain"]) == ("wait-warn", AMBER)

    # The unclaimed urgent calls already waiting when dana signed in were alerted at once; a click opens the first.
    assert page.inner_text("#urgent-banner") == (
        "NEW: ESI 1 · CPR adult · 12 Main St | ESI 2 · …sweating a lot and now says he has… · 4 Elm Road"
        " - click to open"
    )
    page.click("#urgent-banner")
    wait_for(lambda: "collapsed" in page.inner_text("#incident-view"), what="the first alerted call to open")
    page.get_by_role("tab", name="Queue").click()

    # A new ESI 1 call: the alert names it and a click opens it.
    fresh = site.store(f"Second call: {ARREST_TEXT}", "14 Oak Lane")
    wait_for(lambda: page.is_visible("#urgent-banner"), what="the urgent alert")
    assert page.inner_text("#urgent-banner") == "NEW: ESI 1 · CPR adult · 14 Oak Lane - click to open"
    assert page.title() == "(1) URGENT - triage-dispatch console"
    page.screenshot(path=str(IMAGES / "console-queue-alert.png"), full_page=True)
    page.click("#urgent-banner")
    wait_for(lambda: "Second call" in page.inner_text("#incident-view"), what="the alerted call to open")
    assert not page.is_visible("#urgent-banner") and page.title() == "triage-dispatch console"
    assert page.get_attribute(f"{row(page, fresh)}", "class") == "incident selected"


def test_an_incident_says_one_level_offers_what_its_state_allows_and_acts_once(site: Site, browser: Any) -> None:
    incident_id = site.store(CHEST_CALL, "6 Elm Road", waited_s=20)  # not at the first one's address: no duplicate
    page = signed_in(browser, site)
    page.click(row(page, incident_id), timeout=30_000)
    page.wait_for_selector("#incident-view .triage", timeout=30_000)
    assert page.inner_text("#incident-view .incident-head .esi") == "ESI 2"
    assert page.inner_text("#incident-view .triage").startswith("classifier ESI 2 · final ESI 2 · decision point C")
    # Claim and Dispatch are the primary actions; Override ESI is not the loudest.
    variants = {button: page.get_attribute(button, "class").split() for button in ("#claim", "#dispatch", "#override")}
    assert ["primary" in classes for classes in variants.values()] == [True, True, False]
    assert "secondary" in variants["#override"]
    assert fits(page)
    page.screenshot(path=str(IMAGES / "console-incident-before-override.png"), full_page=True)

    # Override to ESI 3: badge, detail line and queue badge say 3; the level and reason are cleared.
    page.locator("#override-level label").filter(has_text=re.compile(r"^\s*3\s*$")).click()
    page.fill("#override-reason textarea", "caller says the pain eased, walking")
    page.click("#override")
    wait_for(lambda: "Overridden to ESI 3" in page.inner_text("#action-result"), what="the override confirmed")
    wait_for(lambda: page.inner_text("#incident-view .incident-head .esi") == "ESI 3 ✎", what="the badge at ESI 3")
    assert page.inner_text("#incident-view .triage").startswith(
        "classifier ESI 2 · final ESI 3 (override of triage ESI 2) · decision point C"
    )
    assert page.input_value("#override-reason textarea") == ""
    assert page.locator("#override-level input:checked").count() == 0
    wait_for(lambda: page.text_content(f"{row(page, incident_id)} .esi") == "ESI 3 ✎", what="the queue's badge")
    page.screenshot(path=str(IMAGES / "console-incident-after-override.png"), full_page=True)

    # Claim: done once; the button goes (this dispatcher holds it), and claiming again records nothing.
    page.click("#claim")
    wait_for(lambda: page.inner_text("#action-result") == "Claimed.", what="the claim")
    wait_for(lambda: not page.is_visible("#claim"), what="the Claim button to go")
    # A note: added once, the box cleared; an empty second click is refused and adds nothing.
    page.fill("#note textarea", "crew asked for the gate code")
    page.click("#add-note")
    wait_for(lambda: page.inner_text("#action-result") == "Note added.", what="the note")
    assert page.input_value("#note textarea") == ""
    page.click("#add-note")
    wait_for(lambda: "the note is empty" in page.inner_text("#action-result"), what="the empty note refused")
    assert site.actions(incident_id) == [
        ("system:intake:cad", "received"),
        ("system:classifier", "classified"),
        ("dana", "override"),
        ("dana", "claim"),
        ("dana", "note"),
    ]

    # Close: notes only from then on.
    page.click("#disposition input")
    page.get_by_role("option", name="transported").click()
    page.click("#close")
    wait_for(lambda: page.is_visible("#incident-view .closed-line"), what="the closed incident")
    assert page.inner_text("#incident-view .closed-line") == "Closed (transported): notes only."
    assert [page.is_visible(button) for button in ("#claim", "#dispatch", "#override", "#close", "#add-note")] == [
        False,
        False,
        False,
        False,
        True,
    ]
    page.screenshot(path=str(IMAGES / "console-incident-closed.png"), full_page=True)


def test_the_guidance_state_is_in_words_on_every_tab_and_a_typed_call_is_confirmed_with_its_place(
    site: Site, browser: Any
) -> None:
    page = signed_in(browser, site)
    queued = site.store("Back pain after lifting, level 4", "2 Mill St")
    page.click(row(page, queued), timeout=30_000)
    page.wait_for_selector("#incident-view .guidance-state", timeout=30_000)

    site.heartbeat(ok=True, state="serving", detail="", model="builtin:tiny-llama")
    wait_for(lambda: page.is_visible("#engine-banner .engine-banner"), what="the test-model banner")
    assert page.inner_text("#engine-banner") == (
        "Guidance comes from a test model: it is not real guidance. Read the protocol card to the caller."
    )

    reason = "model m is not on this machine; trying again (attempt 3)"
    site.heartbeat(ok=False, state="unavailable", detail=reason, model="m")
    wait_for(lambda: "Guidance is down" in page.inner_text("#engine-banner"), what="the down banner on this tab")
    # The queued row changed (its guidance cell): the page reloads the open incident by itself.
    wait_for(
        lambda: page.inner_text("#incident-view .guidance-state") == "guidance unavailable: read the protocol card",
        what="the incident's guidance state in words a dispatcher acts on",
    )
    page.get_by_role("tab", name="Queue").click()
    assert page.inner_text(f"{row(page, queued)} td:last-child") == "guidance unavailable"
    page.get_by_role("tab", name="New message").click()
    assert page.inner_text("#engine-banner").startswith("Guidance is down: read the protocol card to the caller.")
    assert reason not in page.inner_text("#engine-banner")  # setup detail: the supervisors' banner

    # A typed call: accepted with the level triage gave it and its place among the open calls.
    with session_scope(site.url) as session:
        ahead = session.scalars(select(Incident.id).where(Incident.status != "closed", Incident.esi_level == 1)).all()
    page.fill("#new-text textarea", f"Typed: {ARREST_TEXT}")
    page.fill("#new-location textarea", "7 Bay Road")
    page.click("#new-submit")
    wait_for(lambda: page.inner_text("#new-result").startswith("Accepted: ESI"), what="the confirmation with a level")
    place = len(ahead) + 1
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place, "th")
    assert re.fullmatch(
        rf"Accepted: ESI 1, {place}{suffix} in queue \(incident [0-9a-f]{{8}}\)\.", page.inner_text("#new-result")
    )
    assert page.input_value("#new-text textarea") == ""
    site.heartbeat(ok=True, state="serving", detail="", model="qwen2.5-0.5b")
    wait_for(lambda: not page.is_visible("#engine-banner .engine-banner"), what="the banner to go")
