"""The classify worker's warm-up: the models loaded in the worker's main process before its pool forks, and the
worker's heartbeat (what `/readyz` reads) only after it; a process forked from a warmed one reads calls at once."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from celery.signals import celeryd_after_setup

from app.incidents.pipeline import triager_for
from app.redis.local import start_redis_server
from app.settings import Settings
from app.worker.warm_up import WARM_UP_UID, install_warm_up, warm_up_triage
from tests.app.stack import ROOT
from tests.app.worker.test_heartbeat import stop_worker_and_redis, wait_for
from triage_models.language import precise_models_loaded

WARMED_UP = re.compile(r"INFO/(\w+)\] triage_warmed_up seconds=\d+\.\d precise_language_models=now")
BEATING = re.compile(r"INFO/MainProcess\] worker heartbeat started")


def test_warm_up_leaves_the_models_loaded_for_the_first_task(tmp_path: Path) -> None:
    settings = Settings(model_dir=tmp_path / "model", redis_url=None)
    warm_up_triage(settings)
    assert precise_models_loaded()
    assert triager_for(str(tmp_path / "model"), settings) is triager_for(str(tmp_path / "model"), settings)


def test_the_warm_up_is_connected_once_however_often_it_is_installed() -> None:
    install_warm_up()
    install_warm_up()
    assert [key[0] for key, _receiver in celeryd_after_setup.receivers].count(WARM_UP_UID) == 1


def test_a_process_forked_from_a_warmed_one_reads_a_call_in_every_language_at_once(tmp_path: Path) -> None:
    """As Celery's prefork pool does: the warmed main process forks, and the child classifies (lingua's precise
    detector included, for a call the common words cannot place) without building anything."""
    settings = Settings(model_dir=tmp_path / "model", redis_url=None)
    warm_up_triage(settings)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child reports through the pipe)
        os.close(read)
        triager = triager_for(str(tmp_path / "model"), settings)
        levels = [triager.classify(text).language.code for text in ("mi esposo no respira", "Chồng tôi bị té")]
        os.write(write, ",".join(levels).encode())
        os._exit(0)
    os.close(write)
    deadline = time.monotonic() + 60
    while os.waitpid(child, os.WNOHANG) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(child, signal.SIGKILL)
            raise AssertionError("the forked child did not classify within 60 s")
        time.sleep(0.1)
    assert os.read(read, 100).decode() == "es,vi"


def test_a_celery_worker_says_ready_only_after_its_warm_up(tmp_path: Path) -> None:
    server, url = start_redis_server(tmp_path / "redis", appendonly=False)
    env = {**os.environ, "TRIAGE_REDIS_URL": url, "TRIAGE_QUEUE_PREFIX": "warm-up"}
    env |= {"TRIAGE_DATABASE_URL": f"sqlite:///{tmp_path / 'triage.db'}", "TRIAGE_MODEL_DIR": str(tmp_path / "model")}
    log_path = tmp_path / "worker.log"
    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "worker"], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        wait_for(lambda: BEATING.search(log_path.read_text()) is not None or worker.poll() is not None, 300, "ready")
        text = log_path.read_text()
        warmed, beating = WARMED_UP.search(text), BEATING.search(text)
        assert warmed is not None and beating is not None, text
        assert (warmed.group(1), warmed.start() < beating.start()) == ("MainProcess", True)
        assert "Task triage.classify" not in text
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=60) == 0
    finally:
        stop_worker_and_redis(worker, server)
