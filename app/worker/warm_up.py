"""A classify worker loads its triage and language models before it takes a call, and says ready only then.

The worker's main process warms up when it starts (Celery's `worker_init`, before its pool exists): the triage
model, the knowledge, the spelling lists and lingua's quick detector. Its pool processes are forked from it warm, so a
pool process that restarts (a crash, a recycled child) serves its first call at once. The worker's heartbeat, which
`/readyz` reads, starts only after this (`worker_ready`). Each pool process then loads lingua's precise models in a
thread of its own; until they are loaded, a call whose language the common words cannot settle is read by the quick
detector (see `triage_models.language`). The main process loads no thread of lingua's: it must not hold one when it
forks.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from app.incidents.pipeline import triager_for
from app.settings import Settings, get_settings
from triage_models.language import PreciseModels, load_language_models

log = logging.getLogger(__name__)

WARM_UP_UID = "triage-dispatch:warm-up"
"""The warm-up's receivers' id on Celery's `worker_init` and `worker_process_init`."""


def warm_up_triage(settings: Settings | None = None, precise_language_models: PreciseModels = "now") -> float:
    """Load the triage models (`triager_for`) and everything their first classifications would load
    (`Triager.warm_up`); the seconds it took."""
    settings = settings or get_settings()
    started = time.monotonic()
    triager_for(str(settings.model_dir) if settings.model_dir else None, settings).warm_up(precise_language_models)
    seconds = time.monotonic() - started
    log.info("triage_warmed_up seconds=%.1f precise_language_models=%s", seconds, precise_language_models)
    return seconds


def _warm_up_before_the_pool(**_: Any) -> None:
    # A failure here stops the worker from starting, which its supervisor (`serve`, systemd, compose) restarts:
    # a worker that says ready must be one that can classify.
    warm_up_triage(precise_language_models="deferred")


def _precise_models_in_this_process(**_: Any) -> None:
    load_language_models("background")


def install_warm_up() -> None:
    """Warm the worker's main process up before its pool starts (its heartbeat, and so readiness, waits for it), and
    have each pool process load lingua's precise models in the background."""
    from celery.signals import worker_init, worker_process_init

    # Celery's signals hold receivers weakly by default: these must stay connected; the uid keeps each one, however
    # many Celery apps this process builds.
    worker_init.connect(_warm_up_before_the_pool, weak=False, dispatch_uid=WARM_UP_UID)
    worker_process_init.connect(_precise_models_in_this_process, weak=False, dispatch_uid=WARM_UP_UID)
