"""`bench console`: is the console still responsive with many open incidents? Measured side by side with a small
queue (the baseline) in the same run: the server's queue refresh (query + HTML), and in real Chromium the time
between two queue refreshes on screen, what an idle console receives, from a click on a row to the incident on screen
and from an incident's commit (intake) to its row on screen."""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
import itertools
import shutil
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from app.auth.accounts import add_user
from app.console.render import render_queue
from app.console.service import open_queue
from app.db.migrate import upgrade
from app.db.models import Classification, Incident, IncidentStatus, Unit, UnitAssignment, UnitStatus, utcnow
from app.db.session import session_scope
from app.redis.local import free_port
from app.settings import Settings
from triage_models.generator import generate

QUEUE_LIMIT = inspect.signature(open_queue).parameters["limit"].default
"""The most rows the console's queue lists (`open_queue`'s default, which the queue stream uses)."""


@dataclass(frozen=True, slots=True)
class ConsoleFigures:
    incidents: int
    server_refresh_ms: float
    html_kb: float
    screen_refresh_interval_ms: float | None
    click_to_incident_ms: float | None
    kb_per_minute: float | None = None
    """What one open console (on its queue, nothing clicked) receives from the server per minute (Chromium's
    network events: every response and stream chunk, headers included)."""
    requests_per_minute: float | None = None
    intake_to_row_ms: float | None = None
    """Median of `INTAKE_SAMPLES`: from a new incident's commit to its row on the console's screen."""
    shown_rows: int | None = None
    """Rows the console lists (the queue shows at most `open_queue`'s limit)."""


UNIT_STATUSES = (UnitStatus.DISPATCHED, UnitStatus.EN_ROUTE, UnitStatus.ON_SCENE, UnitStatus.TRANSPORTING)


def seed(database_url: str, count: int) -> None:
    """`count` open, classified incidents of mixed levels, arrived over the last ten minutes, as a floor working
    through a backlog holds them: one in ten unclaimed, one in ten claimed by the bench user, the rest dispatched with
    one unit (every other one with two: 1.5 units a call), the units in the statuses a call takes them through. The
    queue lists unclaimed calls first and dispatched ones last, so at 5,000 its 1,000 rows hold 500 dispatched rows
    with their units."""
    now = utcnow()
    messages = list(generate(count, seed=5))
    with session_scope(database_url) as session:
        user = add_user(session, "bench", "dispatcher", "bench-password")
        units = 0
        for index, message in enumerate(messages):
            accepted = now - dt.timedelta(seconds=600 * index / max(1, count))
            incident_id = add_classified(session, f"bench-{index}", message.text, message.esi_level, accepted)
            incident = session.get(Incident, incident_id)
            assert incident is not None
            if index % 10 == 1:
                incident.status, incident.claimed_by = IncidentStatus.CLAIMED.value, user.id
            elif index % 10 > 1:
                incident.status, incident.claimed_by = IncidentStatus.DISPATCHED.value, user.id
                incident.dispatched_at = accepted + dt.timedelta(seconds=40)
                for _ in range(1 + index % 2):
                    add_unit_on_call(
                        session, f"U{units}", incident_id, UNIT_STATUSES[units % 4], incident.dispatched_at
                    )
                    units += 1


def add_unit_on_call(session: Session, name: str, incident_id: str, status: str, dispatched_at: dt.datetime) -> None:
    """A unit on the incident in `status`, its assignment stamped up to it."""
    session.add(
        Unit(name=name, kind="medic", station="bench", status=status, status_at=dispatched_at, incident_id=incident_id)
    )
    reached = UNIT_STATUSES.index(UnitStatus(status))
    times = {
        field: dispatched_at + dt.timedelta(seconds=60 * step)
        for step, field in enumerate(("dispatched_at", "en_route_at", "on_scene_at", "transporting_at"))
        if step <= reached
    }
    session.add(UnitAssignment(incident_id=incident_id, unit_name=name, dispatched_by="bench", **times))


def add_classified(session: Session, webhook_id: str, text: str, esi_level: int, accepted_at: dt.datetime) -> str:
    """One open incident as intake and triage store it (the incident and its classification); its id."""
    incident = Incident(
        source="bench",
        webhook_id=webhook_id,
        text=text,
        accepted_at=accepted_at,
        esi_level=esi_level,
        model_level=esi_level,
        chief_complaint=text[:100],
        guidance_state="queued",
    )
    session.add(incident)
    session.flush()
    session.add(
        Classification(
            incident_id=incident.id,
            esi_level=esi_level,
            classifier_level=esi_level,
            decision_point="C",
            probabilities={str(level): 0.2 for level in range(1, 6)},
            evidence=[],
            predicted_output_tokens=200,
            model_version="bench",
            backend="bench",
        )
    )
    return incident.id


def server_refresh(database_url: str, rounds: int = 30) -> tuple[float, float]:
    """Mean ms of one queue refresh (query and HTML) and the HTML's size in kB."""
    times, size = [], 0
    for _ in range(rounds):
        began = time.perf_counter()
        with session_scope(database_url) as session:
            page = render_queue(open_queue(session))
        times.append(time.perf_counter() - began)
        size = len(page.encode())
    return statistics.mean(times) * 1000, size / 1024


INTAKE_SAMPLES = 5
"""New incidents committed one at a time while the console watches (the median is reported)."""
TRAFFIC_WINDOW_S = 60.0
"""How long the traffic of an idle open console is counted: a whole minute (15 s, scaled up, varied twentyfold from
run to run with whether a keep-alive or a changed row fell in the window)."""


@dataclass(frozen=True, slots=True)
class BrowserFigures:
    screen_refresh_interval_ms: float
    click_to_incident_ms: float
    kb_per_minute: float
    requests_per_minute: float
    intake_to_row_ms: float
    shown_rows: int


def _traffic(page: Any, window_s: float) -> tuple[float, float]:
    """(kB received, requests sent) by the page in `window_s`, scaled to a minute; a stream's chunks count as they
    arrive (`Network.dataReceived`)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    received = [0]
    requests = [0]
    cdp.on("Network.dataReceived", lambda event: received.__setitem__(0, received[0] + event["encodedDataLength"]))
    cdp.on("Network.requestWillBeSent", lambda _: requests.__setitem__(0, requests[0] + 1))
    page.wait_for_timeout(window_s * 1000)  # lets Playwright deliver the events meanwhile (time.sleep would not)
    cdp.detach()
    scale = 60.0 / window_s
    return received[0] / 1024 * scale, requests[0] * scale


def intake_to_row(page: Any, database_url: str, samples: int = INTAKE_SAMPLES) -> float:
    """Median ms from a new ESI 1 incident's commit to its row on the page (each waited for before the next)."""
    times = []
    for index in range(samples):
        with session_scope(database_url) as session:
            incident_id = add_classified(
                session, f"bench-intake-{index}", "Man collapsed, not breathing, no pulse", 1, utcnow()
            )
            session.commit()
            began = time.perf_counter()
        page.wait_for_function(
            f"document.querySelector('#queue tr.incident[data-id=\"{incident_id}\"]') !== null",
            timeout=60_000,
            polling="raf",
        )
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def browser_figures(port: int, chromium: str, rows: int, database_url: str) -> BrowserFigures:
    """Mean ms between queue updates on screen over 8 s, traffic per minute of an idle console, ms from a click
    on a row to the incident shown, and ms from intake to the row on screen."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"http://127.0.0.1:{port}/console/")
        page.fill("input[name=username]", "bench")
        page.fill("input[name=password]", "bench-password")
        page.click("button[type=submit]")
        shown = min(rows, QUEUE_LIMIT)
        page.wait_for_function(f"document.querySelectorAll('#queue tr.incident').length === {shown}", timeout=300_000)
        page.evaluate(
            """() => { window.__updates = [];
            new MutationObserver(() => window.__updates.push(performance.now())).observe(
              document.querySelector('#queue-view'), {childList: true, subtree: true, characterData: true}); }"""
        )
        kb_per_minute, requests_per_minute = _traffic(page, TRAFFIC_WINDOW_S)
        stamps: list[float] = page.evaluate("window.__updates")
        distinct = [stamp for index, stamp in enumerate(stamps) if index == 0 or stamp - stamps[index - 1] > 50]
        intervals = [later - earlier for earlier, later in itertools.pairwise(distinct)]
        target = page.query_selector_all("#queue tr.incident")[shown // 2]
        incident_id = target.get_attribute("data-id")
        began = time.perf_counter()
        target.click()
        page.wait_for_function(
            f"document.querySelector('#queue tr.selected[data-id=\"{incident_id}\"]') !== null"
            " && document.querySelector('#incident-view .message') !== null",
            timeout=60_000,
        )
        click_ms = (time.perf_counter() - began) * 1000
        page.get_by_role("tab", name="Queue").click()
        intake_ms = intake_to_row(page, database_url)
        browser.close()
    interval_ms = statistics.mean(intervals) if intervals else float("nan")
    return BrowserFigures(interval_ms, click_ms, kb_per_minute, requests_per_minute, intake_ms, shown)


def measure(incidents: int, use_browser: bool) -> ConsoleFigures:
    import uvicorn

    from app.api.main import create_app

    with tempfile.TemporaryDirectory(prefix="bench-console-") as scratch:
        url = f"sqlite:///{Path(scratch) / 'console.db'}"
        upgrade(url)
        seed(url, incidents)
        server_ms, html_kb = server_refresh(url)
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not use_browser or chromium is None:
            return ConsoleFigures(incidents, server_ms, html_kb, None, None)
        port = free_port()
        server = uvicorn.Server(
            uvicorn.Config(
                create_app(Settings(database_url=url), reconciler=False),
                port=port,
                log_level="warning",
                timeout_graceful_shutdown=3,
            )
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        try:
            seen = browser_figures(port, chromium, incidents, url)
        finally:
            server.should_exit = True
            thread.join(timeout=10)
    return ConsoleFigures(
        incidents,
        server_ms,
        html_kb,
        seen.screen_refresh_interval_ms,
        seen.click_to_incident_ms,
        seen.kb_per_minute,
        seen.requests_per_minute,
        seen.intake_to_row_ms,
        seen.shown_rows,
    )


def run_console_bench(incidents: int = 500, baseline: int = 10, use_browser: bool = True) -> dict[str, Any]:
    large, small = measure(incidents, use_browser), measure(baseline, use_browser)
    return {"incidents": dataclasses.asdict(large), "baseline": dataclasses.asdict(small)}
