"""Starting the engine worker's engine: retried with backoff while the model cannot be loaded, its state published."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.engine_worker.builtin_models import BUILTIN_TINY
from app.engine_worker.cost_model import measure_cost_model
from app.engine_worker.factory import build_engine, load_tokenizer, resolve_model, serving_positions
from app.engine_worker.incident_rows import warm_card_library
from app.settings import Settings
from scheduler.engines.base import Engine

log = logging.getLogger(__name__)

START_BACKOFF_S = (5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 300.0)
"""Seconds before the next attempt to start the engine, after the 1st, 2nd, ... failure (the last one repeats)."""
STATE_EVERY_S = 2.0
"""How often the state is published while loading or waiting (the heartbeat key expires after 10 s)."""
OFFLINE_HINT = (
    f"offline, set TRIAGE_MODEL={BUILTIN_TINY} (test guidance, not for the floor) or TRIAGE_MODEL to a local "
    "model directory"
)
_NETWORK_WORDS = ("couldn't connect", "could not connect", "offline", "name or service not known", "connection")
_NETWORK_CLASSES = ("LocalEntryNotFoundError", "OfflineModeIsEnabled", "ConnectError", "ConnectionError")


@dataclass(frozen=True, slots=True)
class StartedEngine:
    """A started engine with what serving needs from its model."""

    engine: Engine
    tokenizer: Any
    model_name: str
    max_positions: int


def explain_start_failure(model: str, engine: str, error: BaseException) -> str:
    """Why the engine could not start, in an operator's words, with what to set."""
    text = str(error).lower()
    classes = {cls.__name__ for cls in type(error).__mro__}
    looks_like_path = model.startswith(("/", ".", "~")) or Path(model).expanduser().exists()
    if looks_like_path and not (Path(model).expanduser() / "config.json").is_file():
        return (
            f"model directory {model} not found (no config.json there): set TRIAGE_MODEL to a model directory, "
            f"or {BUILTIN_TINY} to try the product"
        )
    if classes & set(_NETWORK_CLASSES) or any(word in text for word in _NETWORK_WORDS):
        return f"model {model} is not on this machine and cannot be downloaded (no connection): {OFFLINE_HINT}"
    if isinstance(error, MemoryError) or "out of memory" in text:
        return f"not enough memory to load {model}: choose a smaller model (TRIAGE_MODEL) or fewer KV blocks"
    first_line = (str(error).strip().splitlines() or [""])[0][:200]
    return f"the {engine} engine could not start {model}: {type(error).__name__}: {first_line}"


async def _start_once(settings: Settings) -> StartedEngine:
    # The card library is read beside the engine's start (it takes seconds of its own), not on the first call that
    # has a card: without this an arrest waited five seconds for its guidance behind calls that had none.
    cards = asyncio.ensure_future(asyncio.to_thread(warm_card_library))
    try:
        return await _start_engine_once(settings)
    finally:
        await cards  # a thread cannot be stopped: a failed start waits for it too


async def _start_engine_once(settings: Settings) -> StartedEngine:
    model = await asyncio.to_thread(resolve_model, settings.model)
    engine = await asyncio.to_thread(build_engine, settings)
    log.info("engine worker: starting %s engine with %s", settings.engine, model)
    await start_or_stop(engine)
    try:
        tokenizer = await asyncio.to_thread(load_tokenizer, model)
        max_positions = await asyncio.to_thread(serving_positions, engine, model)
        cache_tokens = settings.engine_num_blocks * settings.engine_block_size
        await measure_cost_model(settings, engine, len(tokenizer), min(max_positions, cache_tokens) // 2)
    except BaseException:
        with contextlib.suppress(Exception):
            await engine.stop()
        raise
    name = settings.model if settings.model == BUILTIN_TINY else Path(model).name if Path(model).exists() else model
    return StartedEngine(engine, tokenizer, name, max_positions)


async def start_engine(
    settings: Settings,
    publish: Callable[[dict[str, Any]], Awaitable[None]],
    backoff_s: Sequence[float] = START_BACKOFF_S,
) -> StartedEngine:
    """Start the engine, trying again after each failure (`backoff_s`) until it starts or the task is cancelled;
    meanwhile `publish` gets the state every `STATE_EVERY_S`: loading, or unavailable with the reason."""
    attempt, reason = 0, ""
    while True:
        attempt += 1
        state: dict[str, Any] = {"ok": False, "state": "loading", "detail": f"loading model {settings.model}"}
        if reason:  # a retry stays "unavailable" with the last failure: no amber "starting" flash every attempt
            state = {"ok": False, "state": "unavailable", "detail": f"{reason}; trying again (attempt {attempt})"}
        state["attempt"] = attempt
        starting = asyncio.ensure_future(_start_once(settings))
        try:
            while not starting.done():
                await publish({**state, "since": time.time()})
                await asyncio.wait([starting], timeout=STATE_EVERY_S)
        except asyncio.CancelledError:  # a stop signal: the start stops what it started (`start_or_stop`)
            starting.cancel()
            with contextlib.suppress(BaseException):
                await starting
            raise
        error = starting.exception()
        if error is None:
            return starting.result()
        reason = explain_start_failure(settings.model, settings.engine, error)
        wait_s = backoff_s[min(attempt, len(backoff_s)) - 1]
        log.error("engine worker: guidance unavailable: %s (attempt %d; next in %.0f s)", reason, attempt, wait_s)
        log.debug("engine start failure", exc_info=error)
        state = {"ok": False, "state": "unavailable", "detail": reason, "attempt": attempt, "retry_in_s": wait_s}
        until = time.monotonic() + wait_s
        while (left := until - time.monotonic()) > 0:
            await publish(state)
            await asyncio.sleep(min(STATE_EVERY_S, left))


ABORT_EVERY_S = 0.5
"""While a stopped start has not ended, the engine is told again this often (`Engine.abort_start`): a process it
makes after one call is ended at the next."""


async def start_or_stop(engine: Engine) -> None:
    """Start the engine; cancelled meanwhile (a stop signal), make the start end at once (`Engine.abort_start`: the
    vLLM engine ends the processes loading the model, which on a GPU would hold its memory for minutes), wait for it,
    which runs in a thread and cannot be interrupted, then stop what it started: a half-started engine's threads
    kept the process alive for ever."""
    starting = asyncio.ensure_future(engine.start())
    try:
        await asyncio.shield(starting)
    except asyncio.CancelledError:
        log.info("engine worker: stopping the %s engine's start", engine.name)
        while not starting.done():  # a second stop signal must not end the wait either
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.to_thread(engine.abort_start)
                await asyncio.wait([starting], timeout=ABORT_EVERY_S)
        if not starting.cancelled() and starting.exception() is not None:
            log.info("engine worker: the start ended: %s", starting.exception())
        await engine.stop()
        raise
    except BaseException:
        with contextlib.suppress(Exception):
            await engine.stop()
        raise
