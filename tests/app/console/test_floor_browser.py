"""The dispatch floor in real headless Chromium, on calls stored as intake stores them and triaged by the shipped
triage model: units dispatched and moved on with the clock stopped at dispatch, one owner per call (a take-over with
a reason, told to the one who lost it), a stale action refused, the queue's order and the urgent alert, the incident
top down, a duplicate flagged, merged and searched for, a correction, the limits and the history's pages, and the
dashboard's NFPA 1225 panel; the units a dispatcher chose stay chosen while the incident reloads. Takes the README's
screenshots of them (`make screenshots`)."""

from __future__ import annotations

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
from app.db.models import Incident, IncidentEvent, Unit
from app.db.session import session_scope
from app.incidents import pipeline
from app.incidents.ownership import state_token
from app.incidents.pipeline import CallContact
from app.intake.schemas import IntakeMessage
from app.redis.keys import ENGINE_HEARTBEAT
from app.settings import Settings
from app.units.dispatching import assign_units, change_unit_status
from app.units.roster import UnitSpec, add_units
from app.units.statuses import BACK_IN_SERVICE
from tests.app.console.pages import action_data
from tests.app.console.test_console_browser import IMAGES, wait_for
from tests.app.console.test_screen_browser import VIEWPORT, classify_pending
from tests.app.live_server import loopback_config, serving

playwright_api = pytest.importorskip("playwright.sync_api", reason="installed by `make test`")

ARREST = "My husband is 62, he collapsed in the kitchen and he is not breathing"
CHEST = "My husband is 58, he has crushing chest pain and he is sweating a lot"
SPLINTER = "EMERGENCY!! my son got a splinter in his finger and it hurts"
DROWNING = "My 4 year old drowned in the pool, he is not breathing"
UNITS = [UnitSpec("M12", "medic", "Station 3"), UnitSpec("A7", "ambulance", "Station 3"), UnitSpec("E4", "engine")]


@dataclass
class Floor:
    console: str
    url: str

    def call(
        self, text: str, location: str | None = None, caller: str | None = None, contact: CallContact | None = None
    ) -> str:
        """A call stored as intake stores it; the classifier thread triages it with the shipped model."""
        with session_scope(self.url) as session:
            message = IntakeMessage(text=text, location=location, caller=caller)
            incident_id, _ = pipeline.store_message(session, "cad", f"w-{uuid.uuid4()}", message, contact=contact)
        wait_for(lambda: self.level(incident_id) is not None, 60, f"{incident_id} triaged")
        return incident_id

    def level(self, incident_id: str) -> int | None:
        with session_scope(self.url) as session:
            return session.scalar(select(Incident.esi_level).where(Incident.id == incident_id))

    def actions(self, incident_id: str) -> list[tuple[str, str]]:
        with session_scope(self.url) as session:
            rows = session.execute(
                select(IncidentEvent.actor, IncidentEvent.action)
                .where(IncidentEvent.incident_id == incident_id)
                .order_by(IncidentEvent.id)
            ).all()
            return [(actor, action) for actor, action in rows]

    def state(self, incident_id: str) -> str:
        with session_scope(self.url) as session:
            incident = session.get(Incident, incident_id)
            assert incident is not None
            return state_token(incident)


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> Iterator[Floor]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('floor')) / 'floor.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dana-password")
        add_user(session, "sam", "dispatcher", "sam-password")
        add_user(session, "sue", "supervisor", "sue-password")
        add_units(session, UNITS, "test")
    settings = Settings(database_url=url, redis_url=redis_url, queue_prefix=f"floor-{uuid.uuid4().hex[:8]}")
    stop = threading.Event()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ui, "try_hand_over", lambda *args, **kwargs: None)  # the thread below is the worker
        worker = threading.Thread(target=classify_pending, args=(url, stop), daemon=True)
        worker.start()
        config = loopback_config(create_app(settings, reconciler=False))
        # A real model serves, as far as the console can tell (an engine worker's heartbeat): the banner is quiet.
        beat = {"ok": True, "state": "serving", "detail": "", "model": "qwen2.5-0.5b"}
        redis.Redis.from_url(redis_url).set(f"{settings.queue_prefix}:{ENGINE_HEARTBEAT}:engine-1", json.dumps(beat))
        try:
            with serving(config):
                yield Floor(f"http://127.0.0.1:{config.port}", url)
        finally:
            stop.set()
            worker.join(timeout=10)


def signed_in(browser: Any, floor: Floor, name: str) -> Any:
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.goto(f"{floor.console}/console/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{name}-password")
    page.click("button[type=submit]")
    page.wait_for_function(f"document.querySelector('#whoami')?.innerText.includes('{name}')", timeout=60_000)
    return page


def row(incident_id: str) -> str:
    return f"#queue tr[data-id='{incident_id}']"


def queue_tab(page: Any) -> bool:
    """Whether the queue tab is on screen, choosing it when it is not (a tab chosen by an event still under way, as
    the incident tab after a link was clicked, can take the screen back after one click on the queue)."""
    if page.is_visible("#queue-view") and not page.is_visible("#incident-view"):
        return True
    page.get_by_role("tab", name="Queue").click()
    return False


def opened(page: Any, incident_id: str, words: str) -> None:
    wait_for(lambda: queue_tab(page), what="the queue tab")
    page.click(row(incident_id), timeout=30_000)
    wait_for(lambda: words in page.inner_text("#incident-view"), what=f"the incident with {words!r}")


def said(page: Any, words: str) -> None:
    try:
        wait_for(lambda: words in page.inner_text("#action-result"), what=f"the console to say {words!r}")
    except AssertionError as error:
        raise AssertionError(f"{error}; it says {page.inner_text('#action-result')!r}") from None


def choose_units(page: Any, *names: str) -> None:
    """Choose each unit in the dispatch list, then wait until the list shows them all (on a loaded machine a click on
    the dispatch button before the list has taken the choice sends fewer units)."""
    for name in names:
        page.click("#dispatch-units input")
        page.get_by_role("option", name=re.compile(rf"^{name} ")).click()
    page.keyboard.press("Escape")
    wait_for(lambda: all(name in page.inner_text("#dispatch-units") for name in names), what=f"{names} chosen")


def test_units_are_dispatched_and_moved_on_and_the_clock_stops_at_dispatch(floor: Floor, browser: Any) -> None:
    arrest = floor.call(ARREST, "12 Main St", "+1 555 010 0100")
    dana = signed_in(browser, floor, "dana")
    opened(dana, arrest, "collapsed in the kitchen")
    dana.click("#claim")
    said(dana, "Claimed.")
    choose_units(dana, "M12", "E4")
    dana.click("#dispatch")
    said(dana, "Dispatched M12, E4.")
    wait_for(lambda: dana.locator("#incident-view .units tr").count() == 2, what="the units on the incident")
    # The incident's units move on with a click; each change is timed and audited.
    dana.click("#incident-view .units tr[data-unit='M12'] button[data-status='en route']")
    said(dana, "M12: en route.")
    wait_for(
        lambda: "en route" in dana.inner_text("#incident-view .units tr[data-unit='M12'] .unit-status"),
        what="M12 en route on the incident",
    )
    dana.click("#incident-view .units tr[data-unit='M12'] button[data-status='on scene']")
    said(dana, "M12: on scene.")
    wait_for(lambda: "en route to on scene 0:" in dana.inner_text("#incident-view .intervals"), what="the intervals")
    assert dana.inner_text("#incident-view .intervals").startswith("NFPA 1225: answer to dispatch 0:")
    # The queue row: its clock stopped (grey) at the dispatch, its units with their status and the time since.
    dana.get_by_role("tab", name="Queue").click()
    wait_for(lambda: "M12 on scene" in dana.inner_text(f"{row(arrest)} td.status"), what="the row's units")
    assert dana.get_attribute(f"{row(arrest)} td:nth-child(2)", "class") == "wait-stopped"
    stopped = dana.inner_text(f"{row(arrest)} td:nth-child(2)")
    assert re.fullmatch(r"0:\d\d", stopped)
    assert re.fullmatch(r"M12 on scene 0:\d\d E4 dispatched 0:\d\d", dana.inner_text(f"{row(arrest)} td.status"))
    others = [
        floor.call("Twisted ankle on the stairs, can walk", "3 Hill Rd"),
        floor.call(CHEST, "4 Elm Road", "555 010 0999"),
        floor.call("Cough and a sore throat for three days", "9 Pine Ave"),
    ]
    wait_for(lambda: all(dana.get_attribute(row(other), "data-esi") for other in others), what="the others triaged")
    IMAGES.mkdir(parents=True, exist_ok=True)
    dana.screenshot(path=str(IMAGES / "console-queue-units.png"), full_page=True)
    dana.wait_for_timeout(1500)
    assert dana.inner_text(f"{row(arrest)} td:nth-child(2)") == stopped  # stopped: no longer counting
    assert floor.actions(arrest)[2:] == [
        ("dana", "claim"),
        ("dana", "dispatch"),
        ("dana", "unit_status"),
        ("dana", "unit_status"),
    ]

    # The units tab: every unit, and E4 put back in service from there.
    dana.get_by_role("tab", name="Units").click()
    wait_for(lambda: "E4" in dana.inner_text("#units-view"), what="the roster")
    dana.click("#units-view tr[data-unit='E4'] button[data-status='back in service']")
    wait_for(lambda: "available" in dana.inner_text("#units-view tr[data-unit='E4']"), what="E4 available again")

    # An ESI 1 call no unit reached: closing asks for the reason first.
    fall = floor.call("Grandpa is not breathing after a fall", "8 Birch Ave")
    opened(dana, fall, "after a fall")
    wait_for(lambda: dana.is_visible("#close-reason"), what="the close confirmation's reason")
    dana.click("#disposition input")
    dana.get_by_role("option", name="other").click()
    dana.click("#close")
    said(dana, "no unit reached the scene: confirm closing it without one and say why")
    dana.fill("#close-reason textarea", "the family drove him to the hospital")
    dana.click("#close")
    said(dana, "Closed.")
    dana.context.close()


def test_a_reload_keeps_the_units_chosen_and_says_when_one_was_sent_elsewhere_meanwhile(
    floor: Floor, browser: Any
) -> None:
    bus = floor.call("A woman on the bus is not breathing", "20 Depot St")
    elsewhere = floor.call("Man fell off a ladder, his leg is bent", "21 Depot St")
    dana = signed_in(browser, floor, "dana")
    opened(dana, bus, "on the bus")
    choose_units(dana, "A7", "E4")
    with session_scope(floor.url) as session:  # another dispatcher sends E4 to another call meanwhile
        other = session.get(Incident, elsewhere)
        assert other is not None
        assign_units(session, other, ["E4"], "sam")
    # The incident reloads (as it does when its row changes, and each second while its guidance is written): the
    # choice stays, and E4 says it is gone.
    dana.evaluate("document.querySelector('#reload-incident').click()")
    wait_for(lambda: "E4 · no longer available" in dana.inner_text("#dispatch-units"), what="E4 marked gone")
    assert "A7" in dana.inner_text("#dispatch-units")
    dana.click("#dispatch")
    said(dana, "E4 is dispatched on incident")
    assert floor.actions(bus)[2:] == []  # refused as a whole: A7 not sent alone
    with session_scope(floor.url) as session:
        change_unit_status(session, "E4", BACK_IN_SERVICE, "sam")
    dana.evaluate("document.querySelector('#reload-incident').click()")
    wait_for(lambda: "E4 · engine" in dana.inner_text("#dispatch-units"), what="E4 available again")
    dana.click("#dispatch")
    said(dana, "Dispatched A7, E4.")
    with session_scope(floor.url) as session:  # the roster as the other tests found it
        for name in ("A7", "E4"):
            change_unit_status(session, name, BACK_IN_SERVICE, "dana")
    dana.context.close()


def test_one_owner_per_call_a_take_over_is_told_and_a_stale_action_is_refused(floor: Floor, browser: Any) -> None:
    from tests.app.console.test_console_browser import gradio_call

    call = floor.call(CHEST, "4 Elm Road", "555 010 0200")
    dana, sam = signed_in(browser, floor, "dana"), signed_in(browser, floor, "sam")
    opened(dana, call, "crushing chest pain")
    opened(sam, call, "crushing chest pain")
    offered = floor.state(call)  # what both screens show now
    dana.click("#claim")
    said(dana, "Claimed.")
    # sam's view updates: no Claim, a Take over that needs a reason, and nothing else to do on dana's call.
    wait_for(lambda: sam.is_visible("#take-over") and not sam.is_visible("#claim"), what="sam offered a take-over")
    assert not sam.is_visible("#dispatch") and "held by dana" in sam.inner_text("#incident-view .incident-status")
    sam.click("#take-over")
    said(sam, "a take-over needs a reason")
    sam.fill("#take-over-reason textarea", "dana is on a CPR call")
    sam.click("#take-over")
    said(sam, "Taken over: the dispatcher who held it is told.")
    # dana is told above every tab, and her screen follows.
    wait_for(lambda: "sam took over" in dana.inner_text("#engine-banner"), what="dana told of the take-over")
    assert "from you" in dana.inner_text("#engine-banner") and "dana is on a CPR call" in dana.inner_text(
        "#engine-banner"
    )
    wait_for(lambda: dana.is_visible("#take-over"), what="dana's view to show the call is sam's")
    # An action offered in the state dana's screen showed before is refused and changes nothing.
    stale = gradio_call(
        floor_stack(floor), dana.context.cookies(), "action_override", action_data(call, offered, level=1, reason="x")
    )
    assert "the call changed since you saw it: now claimed (you saw new); held by sam (you saw nobody)" in stale
    assert floor.actions(call)[-2:] == [("dana", "claim"), ("sam", "take_over")]
    dana.context.close()
    sam.context.close()


def floor_stack(floor: Floor) -> Any:
    """What `gradio_call` needs of a stack: the web port."""

    @dataclass
    class Port:
        web_port: int

    return Port(int(floor.console.rsplit(":", 1)[1]))


def test_the_queue_puts_unclaimed_calls_first_and_alerts_for_those_waiting_at_sign_in(
    floor: Floor, browser: Any
) -> None:
    claimed = floor.call("Man not breathing in the lobby", "1 Tower Plaza")
    waiting = floor.call("Child not breathing in the garden", "2 Tower Plaza")
    sue = signed_in(browser, floor, "sue")
    opened(sue, claimed, "in the lobby")
    sue.click("#claim")
    said(sue, "Claimed.")
    sue.context.close()
    # dana signs in with an unclaimed ESI 1 waiting: the alert names it at once.
    dana = signed_in(browser, floor, "dana")
    wait_for(lambda: dana.is_visible("#urgent-banner"), what="the alert for the call waiting at sign-in")
    assert "2 Tower Plaza" in dana.inner_text("#urgent-banner") and "1 Tower Plaza" not in dana.inner_text(
        "#urgent-banner"
    )
    order = [element.get_attribute("data-id") for element in dana.query_selector_all("#queue tr.incident")]
    assert order.index(waiting) < order.index(claimed)  # unclaimed first, whatever the arrival
    # An override that makes the call on screen urgent raises no "NEW" bar for it.
    minor = floor.call("Cough for two days, no fever", "5 Low St")
    dana.click("#urgent-banner")  # opens the first: on screen before the queue is looked at again
    wait_for(lambda: dana.is_visible("#incident-view") and not dana.is_visible("#urgent-banner"), what="it opened")
    opened(dana, minor, "Cough for two days")
    dana.locator("#override-level label").filter(has_text=re.compile(r"^\s*2\s*$")).click()
    dana.fill("#override-reason textarea", "caller now breathless")
    dana.click("#override")
    said(dana, "Overridden to ESI 2")
    wait_for(lambda: dana.get_attribute(row(minor), "data-esi") == "2", what="the row at ESI 2")
    dana.wait_for_timeout(1500)
    assert not dana.is_visible("#urgent-banner")
    dana.context.close()


def test_the_incident_reads_top_down_and_a_duplicate_is_flagged_merged_and_found(floor: Floor, browser: Any) -> None:
    first = floor.call(DROWNING, "14 Lake Drive", "555 010 0300")
    second = floor.call("Neighbour here, a little boy was pulled out of a pool", "14 lake dr.")
    splinter = floor.call(SPLINTER, "77 Oak St")
    dana = signed_in(browser, floor, "dana")
    wait_for(lambda: "possible duplicate of" in dana.inner_text(row(second)), what="the duplicate's mark")
    assert dana.inner_text(f"{row(splinter)} td.complaint") == "my son got a splinter in his finger and it hurts"
    # Card chips cannot be taken for a level: outlined, not the ESI 4 green.
    chip = dana.eval_on_selector(f"{row(first)} .card-tag", "el => getComputedStyle(el).backgroundColor")
    assert chip == "rgb(255, 255, 255)"
    # The drowned four-year-old's incident: level, complaint, address and call-back first, then the card, which
    # asks nothing about power lines or hanging.
    opened(dana, first, "drowned in the pool")
    view = dana.inner_text("#incident-view")
    places = [view.index(words) for words in ("ESI 1", "drowned in the pool", "14 Lake Drive", "555 010 0300")]
    assert places == sorted(places) and places[-1] < view.index("Read to caller")
    asked = dana.inner_text("#incident-view .card-questions") + dana.inner_text("#incident-view .card-steps")
    assert "power" not in asked and "hanging" not in asked and "Reach or throw something" in asked
    dana.screenshot(path=str(IMAGES / "console-incident-top.png"), full_page=True)
    # The second call: flagged with a link to the first, merged with a reason.
    opened(dana, second, "pulled out of a pool")
    assert "Possible duplicate of" in dana.inner_text("#incident-view .duplicate-line")
    dana.screenshot(path=str(IMAGES / "console-duplicate.png"), full_page=True)
    dana.click("#incident-view .duplicate-line a")
    wait_for(lambda: "drowned in the pool" in dana.inner_text("#incident-view"), what="the link to open the first")
    opened(dana, second, "pulled out of a pool")
    dana.fill("#merge-reason textarea", "same boy, same pool")
    dana.click("#merge")
    said(dana, "Merged")
    wait_for(lambda: "Merged into" in dana.inner_text("#incident-view"), what="the merged call's link")
    # A correction with a reason: the address, triaged again when the text changes.
    opened(dana, splinter, "splinter")
    dana.click("#correct-call")
    dana.fill("#fix-location textarea", "77 Oak Street, back door")
    dana.fill("#fix-reason textarea", "caller gave the back door")
    dana.click("#correct")
    said(dana, "Corrected.")
    wait_for(lambda: "77 Oak Street, back door" in dana.inner_text("#incident-view .call-facts"), what="the address")
    # Recent calls, the merged (closed) one included.
    dana.get_by_role("tab", name="Recent calls").click()
    dana.fill("#recent-text textarea", "lake dr")
    dana.click("#recent-search")
    wait_for(lambda: dana.locator("#recent-results tr.incident").count() == 2, what="both calls at the address")
    assert "closed" in dana.inner_text("#recent-results")
    dana.context.close()


def test_notes_are_limited_and_the_history_is_paged(floor: Floor, browser: Any) -> None:
    busy = floor.call("Back pain for a week", "6 Pine Ct")
    with session_scope(floor.url) as session:  # a long history, as a busy call gathers
        for number in range(60):
            session.add(
                IncidentEvent(incident_id=busy, actor="carl", action="note", before={}, after={}, reason=f"n{number}")
            )
    dana = signed_in(browser, floor, "dana")
    opened(dana, busy, "Back pain")
    assert dana.inner_text("#history .history-page") == "History: 50 of 62 events"
    dana.click("#history-older")
    wait_for(lambda: "History: 12 of 62 events" in dana.inner_text("#history"), what="the older page")
    dana.click("#history-newest")
    wait_for(lambda: "History: 50 of 62 events" in dana.inner_text("#history"), what="the newest page again")
    dana.fill("#note textarea", "x" * 2001)
    dana.click("#add-note")
    said(dana, "the note is 2001 characters; 2000 at most")
    assert dana.input_value("#note textarea") == "x" * 2001  # kept: nothing typed is lost
    dana.context.close()


def test_the_dashboard_shows_the_floor_s_nfpa_1225_intervals_apart_from_the_engine(floor: Floor, browser: Any) -> None:
    with session_scope(floor.url) as session:
        session.add(Unit(name="M15", kind="medic", station="Station 5"))
    sue = signed_in(browser, floor, "sue")
    chest = floor.call(CHEST, "9 Cedar Way")
    opened(sue, chest, "crushing chest pain")
    choose_units(sue, "M15")
    sue.click("#dispatch")
    said(sue, "Dispatched M15.")
    sue.click("#incident-view .units tr[data-unit='M15'] button[data-status='en route']")
    said(sue, "M15: en route.")
    sue.get_by_role("tab", name="Dashboard").click()
    wait_for(lambda: sue.is_visible("#floor-panel"), what="the floor panel")
    panel = sue.inner_text("#floor-panel")
    assert "Dispatch floor: NFPA 1225 intervals" in panel and "not the guidance engine's" in panel
    assert re.search(r"ESI 2\s+0:\d\d / 0:\d\d \(1\)\s+0:\d\d / 0:\d\d \(1\)\s+none yet\s+1 of 1 \(100%\)", panel)
    assert "chest pain" in sue.inner_text("#floor-panel .floor-calls")
    floor_box = sue.locator("#floor-panel").bounding_box()
    engine = sue.locator("h3.dashboard-part").bounding_box()
    assert floor_box is not None and engine is not None and floor_box["y"] < engine["y"]  # apart, and first
    sue.locator("#dashboard-floor").screenshot(path=str(IMAGES / "console-dashboard-floor.png"))
    sue.context.close()
