"""Each classify worker process loads its triage and language models as it starts, not on a call."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from app.incidents.pipeline import triager_for
from app.settings import Settings, get_settings

log = logging.getLogger(__name__)

WARM_UP_UID = "triage-dispatch:warm-up"
"""The warm-up's receiver's id on Celery's `worker_process_init`."""


def warm_up_triage(settings: Settings | None = None) -> float:
    """Load the triage models (`triager_for`) and everything their first classifications would load
    (`Triager.warm_up`); the seconds it took. Left to the first calls, lingua's models alone take seconds to load on
    the first call whose language is unclear, and every call queued behind it (an arrest among them) waits."""
    settings = settings or get_settings()
    started = time.monotonic()
    triager_for(str(settings.model_dir) if settings.model_dir else None, settings).warm_up()
    seconds = time.monotonic() - started
    log.info("triage_warmed_up seconds=%.1f", seconds)
    return seconds


def _warm_up_in_background() -> None:
    try:
        warm_up_triage()
    # Whatever failed (a model directory being replaced, say) fails again, with its reason, on the first call's
    # task, which retries: the warm-up only moves a cost, it must not take the worker down.
    except Exception as error:
        log.warning("triage warm-up failed (the first call loads the models instead): %s", error)


def install_warm_up() -> None:
    """Warm up every pool process of the classify worker as it starts (`worker_process_init`), in a thread: the
    process takes its first task at once, and a task that comes during the warm-up waits for it at the models'
    locks instead of loading them a second time."""
    from celery.signals import worker_process_init

    def on_process_init(**_: Any) -> None:
        threading.Thread(target=_warm_up_in_background, name="triage-warm-up", daemon=True).start()

    # Celery's signals hold receivers weakly by default: this closure must stay connected; the uid keeps it one,
    # however many Celery apps this process builds.
    worker_process_init.connect(on_process_init, weak=False, dispatch_uid=WARM_UP_UID)
