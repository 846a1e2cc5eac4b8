"""A classify worker loads its triage and language models before it takes a call, and says ready only then.

The worker's main process warms up when it starts (Celery's `celeryd_after_setup`: its logging is set up, its pool
not yet started): the triage model, the knowledge, the spelling lists and both of lingua's detectors. Its pool
processes are forked from it warm, so a pool process that restarts (a crash, a recycled child) serves its first call
at once. The worker's heartbeat, which `/readyz` reads, starts only after this (`worker_ready`).

No pool process builds lingua's models itself: lingua builds them on a Rust thread pool that a forked child inherits
without its threads, so a build in a child never ends (and holds the interpreter while it waits). Loaded before the
fork, the models are shared by every child, and reading a call needs no thread (`tests/app/worker/test_warm_up.py`
forks a warmed process as the pool does).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from app.incidents.pipeline import triager_for
from app.settings import Settings, get_settings
from triage_models.language import precise_models_loaded

log = logging.getLogger(__name__)

WARM_UP_UID = "triage-dispatch:warm-up"
"""The warm-up's receiver's id on Celery's `celeryd_after_setup`."""


def warm_up_triage(settings: Settings | None = None) -> float:
    """Load the triage models (`triager_for`) and everything their first classifications would load
    (`Triager.warm_up`); the seconds it took."""
    settings = settings or get_settings()
    started = time.monotonic()
    triager_for(str(settings.model_dir) if settings.model_dir else None, settings).warm_up()
    seconds = time.monotonic() - started
    loaded = "now" if precise_models_loaded() else "not loaded"
    log.info("triage_warmed_up seconds=%.1f precise_language_models=%s", seconds, loaded)
    return seconds


def _warm_up_before_the_pool(**_: Any) -> None:
    # A failure here stops the worker from starting, which its supervisor (`serve`, systemd, compose) restarts:
    # a worker that says ready must be one that can classify.
    warm_up_triage()


def install_warm_up() -> None:
    """Warm the worker's main process up, lingua's models included, before its pool forks (its heartbeat, and so
    readiness, waits for it)."""
    from celery.signals import celeryd_after_setup

    # Celery's signals hold receivers weakly by default: this must stay connected; the uid keeps one, however many
    # Celery apps this process builds. (`worker_init` comes before Celery sets its logging up: the warm-up's own line
    # would be lost.)
    celeryd_after_setup.connect(_warm_up_before_the_pool, weak=False, dispatch_uid=WARM_UP_UID)
