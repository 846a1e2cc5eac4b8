"""The classify worker's warm-up: the models loaded once, before the calls, in each pool process of a real worker."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from celery.signals import worker_process_init

from app.incidents.pipeline import triager_for
from app.redis.local import start_redis_server
from app.settings import Settings
from app.worker.warm_up import WARM_UP_UID, install_warm_up, warm_up_triage
from tests.app.stack import ROOT
from tests.app.worker.test_heartbeat import stop_worker_and_redis, wait_for
from triage_models.language import _built_detector

WARMED_UP = re.compile(r"INFO/ForkPoolWorker-(\d+)\] triage_warmed_up seconds=\d+\.\d")


def test_warm_up_leaves_the_models_loaded_for_the_first_task(tmp_path: Path) -> None:
    settings = Settings(model_dir=tmp_path / "model", redis_url=None)
    _built_detector.cache_clear()
    warm_up_triage(settings)
    assert _built_detector.cache_info().currsize == 1
    assert triager_for(str(tmp_path / "model"), settings) is triager_for(str(tmp_path / "model"), settings)


def test_the_warm_up_is_connected_once_however_often_it_is_installed() -> None:
    install_warm_up()
    install_warm_up()
    uids = [key[0] for key, _receiver in worker_process_init.receivers]
    assert uids.count(WARM_UP_UID) == 1


def test_a_celery_worker_warms_up_its_pool_process_before_any_call(tmp_path: Path) -> None:
    server, url = start_redis_server(tmp_path / "redis", appendonly=False)
    env = {**os.environ, "TRIAGE_REDIS_URL": url, "TRIAGE_QUEUE_PREFIX": "warm-up"}
    env |= {"TRIAGE_DATABASE_URL": f"sqlite:///{tmp_path / 'triage.db'}", "TRIAGE_MODEL_DIR": str(tmp_path / "model")}
    log_path = tmp_path / "worker.log"
    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "worker"], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        wait_for(lambda: WARMED_UP.search(log_path.read_text()) is not None or worker.poll() is not None, 300, "warm")
        assert [match.group(1) for match in WARMED_UP.finditer(log_path.read_text())] == ["1"], log_path.read_text()
        assert "Task triage.classify" not in log_path.read_text()
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=60) == 0
    finally:
        stop_worker_and_redis(worker, server)
