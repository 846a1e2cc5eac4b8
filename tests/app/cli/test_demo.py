"""The newcomer's first run against a real `serve`: the setup link it prints, then `triage-dispatch demo` fills the
queue with classified calls."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from sqlalchemy import create_engine, func, select

from app.cli.demo import SAMPLE_CALLS
from app.db.models import Incident, User
from app.redis.local import free_port
from tests.app.cli.test_serve import ROOT, start_serve, tiny_llama, wait_for_children

__all__ = ["tiny_llama"]  # the module-scoped model fixture, shared with test_serve


def demo(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", "demo", "--url", url],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_demo_says_when_nothing_answers() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = demo(url)
    assert result.returncode == 1
    assert f"nothing answers at {url} (ConnectError): start `triage-dispatch serve` first" in result.stdout


def test_serve_prints_a_setup_link_and_demo_fills_the_queue(
    tmp_path: Path, tiny_llama: Path, small_model_dir: Path
) -> None:
    port = free_port()
    serve = start_serve(tmp_path, tiny_llama, small_model_dir, port)
    try:
        wait_for_children(serve, port, tmp_path)
        log = " ".join((tmp_path / "serve.log").read_text(errors="replace").split())
        found = re.search(rf"create the first supervisor at (http://127\.0\.0\.1:{port}/setup\?token=[\w-]+)", log)
        assert found is not None, log
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as browser:
            assert browser.get(found.group(1)).status_code == 200
            token = found.group(1).split("token=")[1]
            form = {"token": token, "username": "sue", "password": "first-supervisor", "password2": "first-supervisor"}
            created = browser.post("/setup", data=form)
            assert (created.status_code, created.headers["location"]) == (303, "/console/")
            assert browser.get("/console/").status_code == 200  # signed in as sue
            assert browser.get("/", follow_redirects=False).headers["location"] == "/console/"
        result = demo(f"http://127.0.0.1:{port}")
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.count("202 ") == len(SAMPLE_CALLS) == 8
        database = create_engine(f"sqlite:///{tmp_path / 'triage.db'}")
        deadline = time.monotonic() + 120
        with database.connect() as connection:
            while time.monotonic() < deadline:
                classified = connection.scalar(
                    select(func.count()).select_from(Incident).where(Incident.esi_level.is_not(None))
                )
                if classified == len(SAMPLE_CALLS):
                    break
                time.sleep(0.5)
            assert classified == len(SAMPLE_CALLS)
            assert connection.scalar(select(func.count()).select_from(Incident).where(Incident.source == "demo")) == 8
            assert connection.execute(select(User.name, User.role)).all() == [("sue", "supervisor")]
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=90)
