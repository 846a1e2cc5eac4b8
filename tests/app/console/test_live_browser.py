"""The knowledge's reading and the live call in real headless Chromium: an incident's protocol with its key questions
ticked as answered (in the call's language), a call that names no medical problem, a live call's transcript, level
history and T-CPR clock refreshed on their own as the call goes on, and the dashboard's T-CPR panel. Calls are read
by the real knowledge (`knowledge_triager`: no trained model). Takes screenshots of them (`make screenshots`)."""

from __future__ import annotations

import datetime as dt
import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import select, update

from app.api.main import create_app
from app.auth.accounts import add_user
from app.console import ui
from app.console.live_panel import QUOTE_CLOSE, QUOTE_OPEN
from app.console.tcpr_panel import this_month
from app.db.migrate import upgrade
from app.db.models import Incident, IncidentEvent, LiveCall
from app.db.session import session_scope
from app.incidents import pipeline
from app.intake.schemas import IntakeMessage
from app.live.events import CallEvent, EventKind, Track
from app.live.retriage import read_again
from app.live.store import record_event
from app.redis.keys import ENGINE_HEARTBEAT
from app.settings import Settings
from tests.app.console.test_console_browser import IMAGES, wait_for
from tests.app.console.test_screen_browser import VIEWPORT
from tests.app.live_server import loopback_config, serving
from tests.app.triage_stub import FakeHeap, knowledge_triager

playwright_api = pytest.importorskip("playwright.sync_api", reason="installed by `make test`")

ARREST_ASKED = (
    "CT: 911, what is the address of your emergency?\nC: 88 Birch Road.\n"
    "C: My husband just collapsed, he's not breathing.\nCT: Is he awake?\nC: No, he doesn't answer."
)
ARREST_ES = "CT: 911, ¿cuál es su emergencia?\nC: Mi esposo se desmayó y no respira.\nCT: ¿Está despierto?\nC: No."
RIDE = "I need a ride to the airport"
ANSWERED_AGO_S = 120.0
"""The live call was answered this long before the test: its utterances' times (offsets below) are in the past."""
LIVE_CALL = [
    (1, 2.0, Track.CALL_TAKER, "911, what is the address of your emergency?"),
    (2, 6.0, Track.CALLER, "It's 14 Alder Lane."),
    (3, 11.0, Track.CALLER, "My husband just collapsed in the kitchen."),
    (4, 15.0, Track.CALL_TAKER, "Is he breathing?"),
    (5, 19.0, Track.CALLER, "No, he's not breathing."),
]
COMPRESSION = (6, 41.0, Track.CALL_TAKER, "Push hard and fast in the center of the chest.")


@dataclass
class Site:
    console: str
    url: str

    def call(self, text: str) -> str:
        """A typed call stored as intake stores it; the classifier thread reads it."""
        with session_scope(self.url) as session:
            incident_id, _ = pipeline.store_message(session, "cad", f"w-{uuid.uuid4()}", IntakeMessage(text=text))
        wait_for(lambda: self.level(incident_id) is not None, 30, f"{incident_id} triaged")
        return incident_id

    def level(self, incident_id: str) -> int | None:
        with session_scope(self.url) as session:
            return session.scalar(select(Incident.esi_level).where(Incident.id == incident_id))


def say(url: str, answered: dt.datetime, utterance: tuple[int, float, Track, str], final: bool = True) -> str:
    """One utterance of the live call "live-1" as the segment webhook records it; the caller's final words (and the
    first compression) are read again at once, as the re-triage task does, the audit events of the reading dated
    when the words were said (the test replays the call faster than it was spoken). The incident's id."""
    sequence, offset_s, track, text = utterance
    spoken = answered + dt.timedelta(seconds=offset_s)
    event = CallEvent(
        source="cad",
        vendor="segments",
        call_id="live-1",
        sequence=sequence,
        kind=EventKind.UTTERANCE,
        spoken_at=spoken,
        track=track,
        text=text,
        final=final,
        answered_at=answered,
        offset_s=offset_s,
    )
    with session_scope(url) as session:
        incident_id = record_event(session, event, dt.datetime.now(dt.UTC)).incident_id
    if final and (track == Track.CALLER or sequence == COMPRESSION[0]):
        read_again(url, incident_id, knowledge_triager().classify)
    with session_scope(url) as session:
        fresh = IncidentEvent.created_at > answered + dt.timedelta(seconds=COMPRESSION[1] + 1)
        session.execute(
            update(IncidentEvent)
            .where(IncidentEvent.incident_id == incident_id, IncidentEvent.action != "received", fresh)
            .values(created_at=spoken)
        )
    return incident_id


def classify_typed(url: str, stop: threading.Event) -> None:
    """The Celery worker's part for typed calls (live calls are read by `say`)."""
    settings, heap = Settings(database_url=url), FakeHeap()
    while not stop.wait(0.2):
        with session_scope(url) as session:
            pending = session.scalars(
                select(Incident.id).where(
                    Incident.esi_level.is_(None), Incident.id.not_in(select(LiveCall.incident_id))
                )
            ).all()
        for incident_id in pending:
            pipeline.classify_incident(settings, heap, incident_id)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> Iterator[Site]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('live')) / 'live.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dana-password")
        add_user(session, "sue", "supervisor", "sue-password")
    settings = Settings(database_url=url, redis_url=redis_url, queue_prefix=f"live-{uuid.uuid4().hex[:8]}")
    stop = threading.Event()
    triager = knowledge_triager()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "triager_for", lambda *args, **kwargs: triager)
        patch.setattr(ui, "try_hand_over", lambda *args, **kwargs: None)  # the thread below is the worker
        worker = threading.Thread(target=classify_typed, args=(url, stop), daemon=True)
        worker.start()
        config = loopback_config(create_app(settings, reconciler=False))
        # A real model serves, as far as the console can tell (an engine worker's heartbeat): the banner is quiet.
        beat = {"ok": True, "state": "serving", "detail": "", "model": "qwen2.5-0.5b"}
        redis.Redis.from_url(redis_url).set(f"{settings.queue_prefix}:{ENGINE_HEARTBEAT}:engine-1", json.dumps(beat))
        try:
            with serving(config):
                yield Site(f"http://127.0.0.1:{config.port}", url)
        finally:
            stop.set()
            worker.join(timeout=10)


def signed_in(browser: Any, site: Site, name: str) -> Any:
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.goto(f"{site.console}/console/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{name}-password")
    page.click("button[type=submit]")
    page.wait_for_function(f"document.querySelector('#whoami')?.innerText.includes('{name}')", timeout=60_000)
    return page


def opened(page: Any, incident_id: str, words: str) -> None:
    page.get_by_role("tab", name="Queue").click()
    page.click(f"#queue tr[data-id='{incident_id}']", timeout=30_000)
    wait_for(lambda: words in page.inner_text("#incident-view"), what=f"the incident with {words!r}")


def checklist(page: Any) -> list[str]:
    return [item.inner_text() for item in page.query_selector_all("#incident-view ul.key-questions li")]


def test_an_incident_shows_its_protocol_and_key_questions_ticked_in_the_call_s_language(
    site: Site, browser: Any
) -> None:
    english, spanish, ride = site.call(ARREST_ASKED), site.call(ARREST_ES), site.call(RIDE)
    dana = signed_in(browser, site, "dana")
    opened(dana, english, "Protocol: Cardiac or respiratory arrest")
    head = dana.inner_text("#incident-view .protocol-reading h4")
    assert head == "Protocol: Cardiac or respiratory arrest · 2 of 4 key questions answered"
    assert checklist(dana) == [
        "✓ Is the person awake?",
        "☐ Is the person breathing normally?",
        "✓ Is the person breathing?",
        "☐ Is there an AED (defibrillator) nearby?",
    ]
    facts = dana.inner_text("#incident-view .call-facts").lower()  # the labels are set in capitals by the style
    assert facts.startswith("address 88 birch road read from the call: confirm")  # the caller's answer, posted whole
    IMAGES.mkdir(parents=True, exist_ok=True)
    dana.screenshot(path=str(IMAGES / "console-key-questions.png"), full_page=True)
    opened(dana, spanish, "¿Está respirando?")
    assert checklist(dana) == [
        "✓ ¿Está despierta la persona?",
        "☐ ¿Respira normalmente?",
        "✓ ¿Está respirando?",
        "☐ ¿Hay un desfibrilador (DEA) cerca?",
    ]
    opened(dana, ride, "No medical problem named")
    assert dana.inner_text("#incident-view .protocol-reading h4") == "No medical problem named (ESI 5)"
    assert checklist(dana) == [
        "☐ Is anyone hurt or sick?",
        "☐ Does anyone there depend on oxygen or other powered medical equipment?",
    ]


def live_rows(page: Any) -> list[str]:
    return [
        row.inner_text().replace("\t", " | ") for row in page.query_selector_all("#incident-view tr[data-sequence]")
    ]


def levels(page: Any) -> list[str]:
    return [item.inner_text() for item in page.query_selector_all("#incident-view ol.level-history li")]


def test_a_live_call_shows_its_transcript_levels_and_tcpr_clock_as_the_call_goes_on(site: Site, browser: Any) -> None:
    answered = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=ANSWERED_AGO_S)
    incident_id = ""
    for utterance in LIVE_CALL:
        incident_id = say(site.url, answered, utterance)
    say(site.url, answered, (7, 21.0, Track.CALLER, "Oh God, what do I"), final=False)
    dana = signed_in(browser, site, "dana")
    wait_for(lambda: "live · 5 utterances" in dana.inner_text("#queue-view"), what="the live call's row")
    opened(dana, incident_id, "Transcript (5 utterances)")
    assert live_rows(dana) == [
        "0:02 | Call-taker | 911, what is the address of your emergency?",
        "0:06 | Caller | It's 14 Alder Lane.",
        "0:11 | Caller | My husband just collapsed in the kitchen.",
        "0:15 | Call-taker | Is he breathing?",
        "0:19 | Caller | No, he's not breathing.",
        "0:21 | Caller | Oh God, what do I …",
    ]
    assert levels(dana) == [
        # an address alone names no complaint: ESI 3, never a guessed calm level
        f"0:06 ESI 3 first reading {QUOTE_OPEN}It's 14 Alder Lane.{QUOTE_CLOSE}",
        f"0:11 ESI 3 → ESI 2 raised {QUOTE_OPEN}collapsed{QUOTE_CLOSE}",
        f"0:19 ESI 2 → ESI 1 raised {QUOTE_OPEN}not breathing{QUOTE_CLOSE}",
    ]
    address = dana.inner_text("#incident-view .call-facts .address")
    assert address.lower() == "address 14 alder lane read from the call: confirm"  # until a dispatcher confirms it
    tcpr = "T-CPR · arrest recognised 0:19 (target 1:00, met) · first compression not yet"
    assert dana.inner_text("#incident-view .tcpr-clock") == tcpr
    IMAGES.mkdir(parents=True, exist_ok=True)
    dana.screenshot(path=str(IMAGES / "console-live-call.png"), full_page=True)
    say(site.url, answered, COMPRESSION)  # nobody clicks: the row's new utterance reloads the open incident
    compressed = "T-CPR · arrest recognised 0:19 (target 1:00, met) · first compression 0:41 (target 1:30, met)"
    wait_for(lambda: dana.inner_text("#incident-view .tcpr-clock") == compressed, 30, "the first compression")
    assert live_rows(dana)[-2:] == [
        "0:41 | Call-taker | Push hard and fast in the center of the chest.",
        "0:21 | Caller | Oh God, what do I …",  # the caller's words still being spoken stay last
    ]


def test_the_dashboard_shows_this_month_s_tcpr_figures_against_the_aha_targets(site: Site, browser: Any) -> None:
    month = this_month(dt.datetime.now(dt.UTC) - dt.timedelta(seconds=ANSWERED_AGO_S))
    with session_scope(site.url) as session:
        assert session.scalar(select(LiveCall.first_compression_at)) is not None  # the live call above, finished
    sue = signed_in(browser, site, "sue")
    sue.get_by_role("tab", name="Dashboard").click()
    wait_for(lambda: "Telecommunicator CPR" in sue.inner_text("#dashboard-tcpr"), 60, "the T-CPR panel")
    assert sue.inner_text("#dashboard-tcpr table caption") == (
        f"Telecommunicator CPR, {month}: 1 live call, 1 cardiac arrest (AHA targets from the answer)"
    )
    rows = [row.inner_text().split("\t") for row in sue.query_selector_all("#dashboard-tcpr tbody tr")]
    assert rows == [
        ["arrest recognised", "1 (100%)", "0:19 (target 1:00, met)", "1 of 1 (100%)"],
        ["first compression (T-CPR given)", "1 (100%)", "0:41 (target 1:30, met)", "1 of 1 (100%)"],
    ]
    IMAGES.mkdir(parents=True, exist_ok=True)
    sue.locator("#dashboard-tcpr").screenshot(path=str(IMAGES / "console-dashboard-tcpr.png"))
