"""`bench console`: is the console still responsive with many open incidents? Measured side by side with a small
queue (the baseline) in the same run: the server's queue refresh (query + HTML), and in real Chromium the time
between two queue refreshes on screen and from a click on a row to the incident on screen."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import shutil
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.auth import add_user
from app.console.render import render_queue
from app.console.service import open_queue
from app.db.migrate import upgrade
from app.db.models import Classification, Incident, utcnow
from app.db.session import session_scope
from app.local_redis import free_port
from app.settings import Settings
from triage_models.generator import generate


@dataclass(frozen=True, slots=True)
class ConsoleFigures:
    incidents: int
    server_refresh_ms: float
    html_kb: float
    screen_refresh_interval_ms: float | None
    click_to_incident_ms: float | None


def seed(database_url: str, count: int) -> None:
    """`count` open, classified incidents of mixed levels, arrived over the last ten minutes."""
    now = utcnow()
    messages = list(generate(count, seed=5))
    with session_scope(database_url) as session:
        for index, message in enumerate(messages):
            incident = Incident(
                source="bench",
                webhook_id=f"bench-{index}",
                text=message.text,
                accepted_at=now - dt.timedelta(seconds=600 * index / max(1, count)),
                esi_level=message.esi_level,
                model_level=message.esi_level,
                chief_complaint=message.text[:100],
                guidance_state="queued",
            )
            session.add(incident)
            session.flush()
            session.add(
                Classification(
                    incident_id=incident.id,
                    esi_level=message.esi_level,
                    classifier_level=message.esi_level,
                    decision_point="C",
                    probabilities={str(level): 0.2 for level in range(1, 6)},
                    evidence=[],
                    predicted_output_tokens=200,
                    model_version="bench",
                    backend="bench",
                )
            )


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


def browser_figures(port: int, chromium: str, rows: int) -> tuple[float, float]:
    """(mean ms between queue updates on screen over 8 s, ms from a click on a row to the incident shown)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"http://127.0.0.1:{port}/console/")
        page.fill("input[name=username]", "bench")
        page.fill("input[name=password]", "bench-password")
        page.click("button[type=submit]")
        page.wait_for_function(f"document.querySelectorAll('#queue tr.incident').length === {rows}", timeout=120_000)
        page.evaluate(
            """() => { window.__updates = [];
            new MutationObserver(() => window.__updates.push(performance.now()))
              .observe(document.querySelector('#queue-view'), {childList: true, subtree: true}); }"""
        )
        time.sleep(8)
        stamps: list[float] = page.evaluate("window.__updates")
        distinct = [stamp for index, stamp in enumerate(stamps) if index == 0 or stamp - stamps[index - 1] > 50]
        intervals = [later - earlier for earlier, later in itertools.pairwise(distinct)]
        target = page.query_selector_all("#queue tr.incident")[rows // 2]
        incident_id = target.get_attribute("data-id")
        began = time.perf_counter()
        target.click()
        page.wait_for_function(
            f"document.querySelector('#queue tr.selected[data-id=\"{incident_id}\"]') !== null"
            " && document.querySelector('#incident-view .message') !== null",
            timeout=60_000,
        )
        click_ms = (time.perf_counter() - began) * 1000
        browser.close()
    return (statistics.mean(intervals) if intervals else float("nan")), click_ms


def measure(incidents: int, use_browser: bool) -> ConsoleFigures:
    import uvicorn

    from app.api.main import create_app

    with tempfile.TemporaryDirectory(prefix="bench-console-") as scratch:
        url = f"sqlite:///{Path(scratch) / 'console.db'}"
        upgrade(url)
        seed(url, incidents)
        with session_scope(url) as session:
            add_user(session, "bench", "dispatcher", "bench-password")
        server_ms, html_kb = server_refresh(url)
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not use_browser or chromium is None:
            return ConsoleFigures(incidents, server_ms, html_kb, None, None)
        port = free_port()
        server = uvicorn.Server(
            uvicorn.Config(create_app(Settings(database_url=url), reconciler=False), port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        try:
            interval_ms, click_ms = browser_figures(port, chromium, incidents)
        finally:
            server.should_exit = True
            thread.join(timeout=10)
    return ConsoleFigures(incidents, server_ms, html_kb, interval_ms, click_ms)


def run_console_bench(incidents: int = 500, baseline: int = 10, use_browser: bool = True) -> dict[str, Any]:
    large, small = measure(incidents, use_browser), measure(baseline, use_browser)
    return {"incidents": dataclasses.asdict(large), "baseline": dataclasses.asdict(small)}
