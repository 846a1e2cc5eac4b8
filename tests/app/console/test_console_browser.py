"""The console in real headless Chromium (Debian `chromium`, driven by Playwright) against the whole product:
redis-server, the web app, a Celery worker and the engine worker. Also takes the console's screenshots
(`make screenshots` writes them to docs/img/)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from standardwebhooks.webhooks import Webhook

from tests.app.console.pages import action_data
from tests.app.stack import ROOT, Stack, start_product

playwright_api = pytest.importorskip("playwright.sync_api", reason="installed by `make test`")

SECRET = "whsec_" + base64.b64encode(b"console-test-secret-32-random-by").decode()
IMAGES = Path(os.environ.get("TRIAGE_SCREENSHOTS_DIR") or tempfile.mkdtemp(prefix="console-screenshots-"))
"""A scratch directory, so that the tests leave the checkout as they found it; `make screenshots` points this at
docs/img to refresh the README's pictures."""
CALLS = {
    "critical": "My husband collapsed and he is not breathing, no pulse, please hurry",
    "moderate": "Woman with abdominal pain since this morning, vomiting twice, she can walk",
    "minor": "I twisted my ankle yesterday and it is a bit swollen, I can walk on it, no other problem",
}


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise RuntimeError("Debian's chromium is not installed (apt-get install chromium; `make test` does)")
    return found


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, small_model_dir: Path) -> Iterator[Stack]:
    deployment = start_product(
        tmp_path_factory.mktemp("console"), small_model_dir, SECRET, {"TRIAGE_MAX_NEW_TOKENS": "48"}
    )
    for name, role in (("dana", "dispatcher"), ("carl", "call-taker"), ("sue", "supervisor")):
        subprocess.run(
            [
                sys.executable,
                "-m",
                "app.cli.main",
                "users",
                "add",
                name,
                "--role",
                role,
                "--password",
                f"{name}-password",
            ],
            env=deployment.env,
            cwd=ROOT,
            check=True,
        )
    try:
        yield deployment
    finally:
        deployment.stop_all()


def post_call(stack: Stack, key: str, text: str) -> str:
    body = json.dumps({"text": text, "caller": "test caller"})
    now = dt.datetime.now(dt.UTC)
    headers = {
        "webhook-id": key,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(SECRET).sign(key, now, body),
    }
    response = httpx.post(f"http://127.0.0.1:{stack.web_port}/v1/intake/cad", content=body, headers=headers)
    assert response.status_code == 202, response.text
    return str(response.json()["incident_id"])


def signed_in_page(browser: Any, stack: Stack, name: str) -> Any:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{stack.web_port}/console/")
    assert "/login" in page.url  # signed out: sent to sign in
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{name}-password")
    page.click("button[type=submit]")
    page.wait_for_selector("#whoami", timeout=60_000)
    page.wait_for_function(f"document.querySelector('#whoami').innerText.includes('{name}')", timeout=30_000)
    return page


def queue_levels(page: Any) -> list[tuple[str, str]]:
    return [
        (row.get_attribute("data-id"), row.get_attribute("data-esi"))
        for row in page.query_selector_all("#queue tr.incident")
    ]


def wait_for(condition: Any, timeout_s: float = 60, what: str = "") -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def gradio_call(stack: Stack, cookies: list[dict[str, Any]], api_name: str, data: list[Any]) -> str:
    """Call a console handler directly over Gradio's HTTP API with a session's cookies (no buttons involved)."""
    jar = {cookie["name"]: cookie["value"] for cookie in cookies}
    base = f"http://127.0.0.1:{stack.web_port}/console/gradio_api"
    own = {"Origin": f"http://127.0.0.1:{stack.web_port}"}  # as the console's page sends it
    started = httpx.post(f"{base}/call/{api_name}", json={"data": data}, cookies=jar, headers=own, timeout=30)
    started.raise_for_status()
    stream = httpx.get(f"{base}/call/{api_name}/{started.json()['event_id']}", cookies=jar, timeout=30)
    return stream.text


def test_the_console_end_to_end_in_chromium(stack: Stack, browser: Any) -> None:
    dana = signed_in_page(browser, stack, "dana")
    ids = {key: post_call(stack, f"browser-{key}", text) for key, text in CALLS.items()}

    # The queue shows them most urgent first, with their ESI badges.
    def classified() -> list[tuple[str, str]] | None:
        levels = queue_levels(dana)
        return levels if len(levels) == 3 and all(level for _, level in levels) else None

    levels = wait_for(classified, what="three classified incidents in the queue")
    assert levels[0][0] == ids["critical"]
    assert [int(level) for _, level in levels] == sorted(int(level) for _, level in levels)
    assert levels[0][1] == "1" and levels[-1][0] == ids["minor"]
    # The arrest's row names its protocol card; the minor call has none.
    assert dana.inner_text(f"#queue tr[data-id='{ids['critical']}'] .card-tag") == "card: CPR adult"
    assert dana.locator(f"#queue tr[data-id='{ids['minor']}'] .card-tag").count() == 0
    IMAGES.mkdir(parents=True, exist_ok=True)
    dana.screenshot(path=str(IMAGES / "console-queue.png"), full_page=True)

    # Open the least urgent one and watch its guidance arrive (the test model's: refused, below).
    dana.click(f"#queue tr[data-id='{ids['minor']}']")
    dana.wait_for_selector("#incident-view .message", timeout=30_000)
    assert "twisted my ankle" in dana.inner_text("#incident-view")
    # The head says when the call arrived and counts its wait up on the page (the server sends no clock).
    first_tick = dana.inner_text("#incident-view .wait-clock")
    wait_for(lambda: dana.inner_text("#incident-view .wait-clock") != first_tick, what="the wait clock to tick")
    assert "arrived " in dana.inner_text("#incident-view .incident-status")
    # The tiny test model's answer is never real guidance: the checker refuses it, and the view says it is a test
    # model's.
    finished = "Guidance refused by the checker: read the protocol card alone"
    wait_for(lambda: dana.locator("#guidance label span").first.inner_text() == finished, what="guidance finished")
    assert "test model: not real guidance" in dana.inner_text("#incident-view .test-model")
    # One line for the floor, and no refused text to read: the checker's reasons are the supervisors'.
    assert dana.inner_text("#incident-view .checker-refused") == finished
    assert dana.input_value("#guidance textarea") == ""
    assert dana.input_value("#disposition input") == ""  # no disposition is chosen for the dispatcher
    dana.screenshot(path=str(IMAGES / "console-incident.png"), full_page=True)

    # Override it to ESI 1 with a reason: the queue reorders and the audit entry appears.
    dana.locator("#override-level label").filter(has_text=re.compile(r"^\s*1\s*$")).click()
    dana.fill("#override-reason textarea", "caller now reports he fainted")
    dana.click("#override")
    wait_for(lambda: "Overridden to ESI 1" in dana.inner_text("#action-result"), what="the override to be confirmed")
    wait_for(lambda: "override" in dana.inner_text("#history"), what="the override in the incident history")
    assert "caller now reports he fainted" in dana.inner_text("#history")
    dana.get_by_role("tab", name="Queue").click()
    wait_for(
        lambda: [incident for incident, _ in queue_levels(dana)][:2] == [ids["critical"], ids["minor"]],
        what="the overridden incident to move up",
    )

    # A call typed in "New message" is accepted and the form is cleared for the next one.
    dana.get_by_role("tab", name="New message").click()
    dana.fill("#new-text textarea", "Neighbour fell off a ladder, conscious, wrist deformed")
    dana.fill("#new-caller textarea", "Neighbour")
    dana.click("#new-submit")
    wait_for(lambda: dana.inner_text("#new-result").startswith("Accepted: "), what="the typed call to be accepted")
    assert (dana.input_value("#new-text textarea"), dana.input_value("#new-caller textarea")) == ("", "")
    dana.get_by_role("tab", name="Queue").click()

    # A new ESI 1 call raises the alert: banner and title (also in a background tab).
    post_call(stack, "browser-alert", "Child not breathing after choking, turning blue")
    wait_for(lambda: "URGENT" in dana.title(), what="the title to announce an urgent incident")
    assert dana.is_visible("#urgent-banner")

    # A call-taker sees no override controls, and the server refuses the override anyway.
    carl = signed_in_page(browser, stack, "carl")
    carl.click(f"#queue tr[data-id='{ids['moderate']}']")
    carl.wait_for_selector("#incident-view .message", timeout=30_000)
    assert not carl.is_visible("#override")
    override = action_data(ids["moderate"], level=1, reason="no")
    refused = gradio_call(stack, carl.context.cookies(), "action_override", override)
    assert "Refused" in refused and "call-taker may not override" in refused
    assert "Refused" not in gradio_call(stack, dana.context.cookies(), "action_claim", action_data(ids["moderate"]))

    # The supervisor's audit view lists the override; the dashboard draws.
    sue = signed_in_page(browser, stack, "sue")
    sue.get_by_role("tab", name="Audit").click()
    sue.fill("#audit-user textarea", "dana")
    sue.click("#audit-search")
    wait_for(lambda: "caller now reports he fainted" in sue.inner_text("#audit-table"), what="the audit entry")
    audit = sue.inner_text("#audit-table")
    assert "status: new → claimed; claimed by: none → dana" in audit and "ESI override" in audit
    assert "{" not in audit and "claimed_by" not in audit  # in words: no dicts, no field names, no user ids
    assert sue.get_attribute("#audit-csv-link", "class") == "download-button"
    sue.get_by_role("tab", name="Dashboard").click()
    sue.wait_for_selector("#dashboard-plot img", timeout=60_000)  # its screenshot: test_audit_dashboard_browser.py

    # Signed out, the console and its event endpoints refuse (the old cookie is dead on the server).
    cookies = dana.context.cookies()
    dana.click("#sign-out")
    dana.wait_for_url("**/login", timeout=30_000)
    dana.goto(f"http://127.0.0.1:{stack.web_port}/console/")
    assert "/login" in dana.url
    jar = {cookie["name"]: cookie["value"] for cookie in cookies}
    assert httpx.get(f"http://127.0.0.1:{stack.web_port}/console/config", cookies=jar).status_code == 401
    assert (
        httpx.post(
            f"http://127.0.0.1:{stack.web_port}/console/gradio_api/call/action_claim",
            json={"data": []},
            cookies=jar,
            headers={"Origin": f"http://127.0.0.1:{stack.web_port}"},
        ).status_code
        == 401
    )


CARD_CALLS = {
    "en": "My husband is 62 years old, he collapsed in the kitchen, he is not breathing and has no pulse",
    "es": "Mi esposo tiene 62 años, se desmayó en la cocina, no respira y no tiene pulso, por favor apúrense",
}


def test_an_esi_1_incident_reads_its_card_in_english_and_spanish_in_chromium(stack: Stack, browser: Any) -> None:
    dana = signed_in_page(browser, stack, "dana")
    ids = {language: post_call(stack, f"browser-card-{language}", text) for language, text in CARD_CALLS.items()}
    rows = {language: f"#queue tr[data-id='{incident_id}']" for language, incident_id in ids.items()}
    wait_for(lambda: all(dana.locator(f"{row} .card-tag").count() for row in rows.values()), what="the cards' rows")
    assert [dana.get_attribute(row, "data-esi") for row in rows.values()] == ["1", "1"]
    assert [dana.inner_text(f"{row} .card-tag") for row in rows.values()] == ["card: CPR adult", "card: CPR adult"]
    IMAGES.mkdir(parents=True, exist_ok=True)
    dana.locator("#queue").screenshot(path=str(IMAGES / "console-card-queue.png"))

    # The English arrest: the card after the call's facts; a click on a step marks it done and strikes it through.
    dana.click(rows["en"])
    dana.wait_for_selector("#incident-view .protocol-card", timeout=30_000)
    card = dana.locator("#incident-view .protocol-card")
    assert card.get_attribute("lang") == "en"
    assert card.locator("h3").inner_text().startswith("Read to caller: Adult cardiac arrest: hands-only CPR")
    card.locator("li[data-step='1']").click()
    wait_for(lambda: "Step 1 marked done." in dana.inner_text("#action-result"), what="step 1 to be marked done")
    wait_for(lambda: card.locator("li.step-done").count() == 1, what="step 1 struck through")
    assert card.locator("li[data-step='1']").get_attribute("data-done") == "1"
    dana.screenshot(path=str(IMAGES / "console-card-en.png"), full_page=True)

    # The Spanish arrest: the same card in Spanish, to read as written.
    dana.get_by_role("tab", name="Queue").click()
    dana.click(rows["es"])
    wait_for(lambda: dana.locator("#incident-view .protocol-card[lang='es']").count() == 1, what="the Spanish card")
    title = dana.inner_text("#incident-view .protocol-card h3")
    assert title.startswith("Read to caller: Paro cardíaco en adulto: RCP solo con las manos")
    assert dana.locator("#incident-view .protocol-card li.step-done").count() == 0
    # Nothing is left said of the English incident's step.
    wait_for(lambda: dana.inner_text("#action-result").strip() == "", what="the last action's result cleared")
    dana.screenshot(path=str(IMAGES / "console-card-es.png"), full_page=True)
