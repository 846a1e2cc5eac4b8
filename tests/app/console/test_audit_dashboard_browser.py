"""The supervisor's audit and dashboard, and the console at small and second-monitor sizes, in real headless
Chromium (Debian `chromium`, Playwright) against the web app on a database filled as the product fills it: intake
stores the calls, triage classifies them, the engine worker records their outcomes, dispatchers claim, note and
override. Also takes the dashboard's and the audit's screenshots (`make screenshots` writes them to docs/img/)."""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from app.auth.accounts import Principal, add_user
from app.console.service import add_note, claim
from app.db.migrate import upgrade
from app.db.models import Incident, Role, utcnow
from app.db.session import session_scope
from app.engine_worker.outcomes import Served, record_finished, write_guidance
from app.incidents import pipeline
from app.incidents.overrides import record_override
from app.intake.schemas import IntakeMessage
from app.redis.local import free_port
from app.settings import Settings
from scheduler.redis_heap import HeapItem
from tests.app.console.test_console_browser import IMAGES, wait_for
from tests.app.triage_stub import classify_with, plain_result

playwright_api = pytest.importorskip("playwright.sync_api", reason="installed by `make test`")

DANA = Principal("dana", Role.DISPATCHER)
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# (text, ESI level, queue wait in s, first token in s): the case, one ESI 2 call waiting 530 s
CALLS = [
    ("Man collapsed in the street, not breathing, bystander doing CPR", 1, 2.1, 0.8),
    ("Woman with crushing chest pain for twenty minutes, sweating, nauseous", 2, 0.4, 0.9),
    ("Teenager with a severe asthma attack, inhaler not helping, can barely talk", 2, 0.6, 1.1),
    ("Elderly man with chest tightness and shortness of breath since this morning", 2, 530.0, 1.4),
    ("Child with a high fever and a rash that does not fade under a glass", 2, 0.5, 0.7),
    ("Cut on the forearm from a kitchen knife, bleeding controlled with a towel", 4, 12.0, 2.0),
]


def seed(url: str) -> dict[str, str]:
    """The calls as intake, triage and the engine worker store them, then a dispatcher's claim, note and override;
    the incident ids by ESI level and wait (`"2:530"`)."""
    ids = {}
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dana-password")
        add_user(session, "sue", "supervisor", "sue-password")
    with pytest.MonkeyPatch.context() as monkeypatch:
        for index, (text, level, wait, ttft) in enumerate(CALLS):
            accepted = utcnow() - dt.timedelta(seconds=wait + ttft + 5)
            monkeypatch.setattr(pipeline, "utcnow", lambda accepted=accepted: accepted)
            with session_scope(url) as session:
                incident_id, _ = pipeline.store_message(session, "cad", f"seed-{index}", IntakeMessage(text=text))
            assert classify_with(monkeypatch, url, incident_id, plain_result(level)) == "classified"
            write_guidance(
                url, incident_id, f"Test guidance for ESI {level}: stay on the line with the caller.", 120, "tiny"
            )
            served = Served("cpu", "tiny", wait, ttft, 120, 0)
            assert record_finished(url, incident_id, HeapItem(incident_id, level, 1.0, 0, 1), served, accepted) == level
            ids[f"{level}:{wait:g}"] = incident_id
    with session_scope(url) as session:
        claim(session, DANA, ids["2:530"])
        add_note(session, DANA, ids["2:530"], "caller's daughter on the line, patient now grey")
        incident = session.get(Incident, ids["2:530"])
        assert incident is not None
        record_override(session, incident, 1, "now grey and confused", "dana")
    return ids


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, dict[str, str]]]:
    """The web app on a seeded SQLite database (no Redis, no workers: what these pages show is in the database)."""
    import uvicorn

    from app.api.main import create_app

    url = f"sqlite:///{tmp_path_factory.mktemp('audit-dashboard') / 'console.db'}"
    upgrade(url)
    ids = seed(url)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(Settings(database_url=url), reconciler=False), port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield port, ids
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def signed_in(browser: Any, port: int, name: str, width: int = 1400, height: int = 900) -> Any:
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.goto(f"http://127.0.0.1:{port}/console/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{name}-password")
    page.click("button[type=submit]")
    page.wait_for_function(f"document.querySelector('#whoami')?.innerText.includes('{name}')", timeout=60_000)
    return page


def audit_rows(page: Any) -> list[list[str]]:
    return [
        [cell.inner_text().strip() for cell in row.query_selector_all("[role=gridcell]")]
        for row in page.query_selector_all("#audit-table [role=row][data-index]")
    ]


def test_the_audit_shows_the_last_day_on_open_in_names_and_short_ids(
    console: tuple[int, dict[str, str]], browser: Any
) -> None:
    port, ids = console
    sue = signed_in(browser, port, "sue")
    sue.get_by_role("tab", name="Audit").click()  # no Search pressed
    wait_for(lambda: "ESI override" in sue.inner_text("#audit-table"), what="the audit's last day on open")
    rows = audit_rows(sue)
    label = f"{ids['2:530'][:8]} · Elderly man with chest tightness and shortness of breath…"
    override, note, claimed = rows[:3]
    assert override[1:] == [label, "dana", "ESI override", "ESI level: 2 → 1", "now grey and confused"]
    assert note[1:] == [label, "dana", "note", "", "caller's daughter on the line, patient now grey"]
    assert claimed[1:] == [label, "dana", "claimed", "status: new → claimed; claimed by: none → dana", ""]
    assert len(rows) == 3 + 2 * len(CALLS)  # each call received and triaged
    assert UUID.search(sue.inner_text("#audit-table")) is None  # no user id, no full incident id
    assert f"({len(rows)} events;" in sue.inner_text("#audit-csv")
    IMAGES.mkdir(parents=True, exist_ok=True)
    sue.screenshot(path=str(IMAGES / "console-audit.png"), full_page=True)
    sue.context.close()


def test_the_dashboard_shows_each_levels_worst_wait(console: tuple[int, dict[str, str]], browser: Any) -> None:
    port, _ = console
    sue = signed_in(browser, port, "sue")
    sue.get_by_role("tab", name="Dashboard").click()
    sue.wait_for_selector("#dashboard-plot img", timeout=60_000)
    waits = [
        [cell.inner_text() for cell in row.query_selector_all("td")]
        for row in sue.query_selector_all("#dashboard-agreement table.waits tbody tr")
    ]
    assert waits == [
        ["ESI 1", "1", "2.1 s", "2.1 s", "2.1 s"],
        ["ESI 2", "4", "0.50 s", "530 s", "530 s"],  # the 530 s call is the worst, shown
        ["ESI 3", "no calls"],
        ["ESI 4", "1", "12 s", "12 s", "12 s"],
        ["ESI 5", "no calls"],
    ]
    assert "Plot" not in sue.inner_text("#dashboard-plot")  # no label over the first panel
    image = sue.locator("#dashboard-plot img").bounding_box()
    assert image is not None and image["width"] >= 1000
    sue.screenshot(path=str(IMAGES / "console-dashboard.png"), full_page=True)
    sue.context.close()


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (960, 1080)])
def test_the_console_works_on_a_small_screen_and_a_narrow_second_monitor_window(
    console: tuple[int, dict[str, str]], browser: Any, width: int, height: int
) -> None:
    port, ids = console
    dana = signed_in(browser, port, "dana", width, height)
    dana.get_by_role("tab", name="Queue").click()
    wait_for(lambda: dana.locator("#queue tr.incident").count() == len(CALLS), what="the open incidents in the queue")
    overflow = dana.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px at {width}x{height}"
    dana.click(f"#queue tr[data-id='{ids['2:530']}']")
    dana.wait_for_selector("#incident-view .message", timeout=30_000)
    assert "chest tightness" in dana.inner_text("#incident-view")
    dana.screenshot(path=str(IMAGES / f"console-{width}x{height}.png"))  # what the dispatcher sees first
    # dana holds this call, so its first action is Dispatch (no Claim): beside the incident, on screen
    dispatch = dana.locator("#dispatch").bounding_box()
    assert dispatch is not None and dispatch["x"] + dispatch["width"] <= width
    dana.locator("#add-note").scroll_into_view_if_needed()
    assert dana.is_visible("#add-note")
    dana.context.close()
