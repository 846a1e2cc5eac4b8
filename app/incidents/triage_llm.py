"""The `llm` triage backend through the product's own engine: a `TextGenerator` over `Engine` on its own loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app.engine_worker.factory import build_engine, load_tokenizer, resolve_model, serving_positions
from app.settings import Settings
from scheduler.engines.base import Engine, EngineError, EngineRequest

log = logging.getLogger(__name__)

TRIAGE_ESI_LEVEL = 1
"""Triage prompts are the most urgent work the engine has: a call not yet triaged may be an ESI 1, and its guidance
cannot even be queued until its level is known, so its triage must never wait behind queued guidance. The answer is
short (at most `MAX_NEW_TOKENS`), so it delays the guidance already running very little."""
START_RETRY_S = 60.0
"""After a failed engine start, classifications fall back at once for this long before a start is tried again."""


@dataclass(frozen=True, slots=True)
class LoadedEngine:
    """A started engine, its model's tokenizer, and the longest sequence it serves (None: not known)."""

    engine: Engine
    tokenizer: Any
    max_positions: int | None = None


Loader = Callable[[], Awaitable[LoadedEngine]]
"""Builds and starts an engine; awaited on the generator's own event loop."""


def prompt_token_ids(tokenizer: Any, prompt: str) -> list[int]:
    """The prompt as a user turn in the tokenizer's chat template when it has one (as `TransformersGenerator`
    does), else the plain prompt."""
    if getattr(tokenizer, "chat_template", None):
        ids = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=True
        )
        if isinstance(ids, dict) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return [int(token) for token in ids]
    return [int(token) for token in tokenizer(prompt)["input_ids"]]


class EngineGenerator:
    """A `TextGenerator` over the product's `Engine`: the engine steps on its own event-loop thread, so the
    synchronous `generate` can be called from the Celery classify task. Greedy (engines decode greedily).

    The engine starts in the background as soon as the generator is built. Whenever it is not running within
    `timeout_s` (its start included), fails, rejects a prompt or does not finish in time, `generate` raises and the
    `Triager` falls back.
    """

    def __init__(self, loader: Loader, timeout_s: float = 20.0, name: str = "engine") -> None:
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self.timeout_s = timeout_s
        self.name = name
        self.submitted = 0
        self.finished = 0
        """Requests handed to the engine, and those it finished (their answers decoded)."""
        self.last_token_ids: tuple[int, ...] = ()
        self._loader = loader
        self._lock = threading.Lock()
        self._started: concurrent.futures.Future[LoadedEngine] | None = None
        self._retry_at = 0.0
        self._closed = False
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"triage-llm-{name}", daemon=True)
        self._thread.start()
        self._start()

    # ----- the engine ------------------------------------------------------------------------------------

    def _start(self) -> concurrent.futures.Future[LoadedEngine]:
        """The engine's start, begun now if it never was, or again once `START_RETRY_S` after a failure."""
        with self._lock:
            if self._closed:
                raise EngineError(f"the triage {self.name} engine is closed")
            started = self._started
            failed = started is not None and started.done() and started.exception() is not None
            if started is None or (failed and time.monotonic() >= self._retry_at):
                started = self._started = asyncio.run_coroutine_threadsafe(self._load(), self._loop)
            return started

    async def _load(self) -> LoadedEngine:
        try:
            return await self._loader()
        except BaseException as error:
            log.error("llm triage: the %s engine did not start: %s", self.name, error)
            self._retry_at = time.monotonic() + START_RETRY_S
            raise

    def wait_started(self, timeout_s: float) -> LoadedEngine:
        """Block until the engine runs (for tools and tests); raises what the start raised."""
        return self._start().result(timeout=timeout_s)

    def _engine(self, deadline: float) -> LoadedEngine:
        started = self._start()
        try:
            return started.result(timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            if started.done():
                raise
            raise TimeoutError(f"the {self.name} engine is still starting (waited {self.timeout_s:g} s)") from None
        except Exception as error:
            raise EngineError(f"the {self.name} engine did not start: {error}") from error

    # ----- TextGenerator --------------------------------------------------------------------------------

    def generate(self, prompt: str, max_new_tokens: int) -> str:
        """Complete a prompt through the engine as ESI 1 work; raises on any failure or past the timeout."""
        deadline = time.monotonic() + self.timeout_s
        loaded = self._engine(deadline)
        ids = prompt_token_ids(loaded.tokenizer, prompt)
        if loaded.max_positions is not None and len(ids) + max_new_tokens > loaded.max_positions:
            raise ValueError(
                f"the prompt ({len(ids)} tokens) and answer ({max_new_tokens}) exceed the model's "
                f"{loaded.max_positions} positions"
            )
        request = EngineRequest(
            f"triage-{uuid.uuid4().hex}", tuple(ids), TRIAGE_ESI_LEVEL, max_new_tokens, max_new_tokens
        )
        future = asyncio.run_coroutine_threadsafe(self._complete(loaded.engine, request), self._loop)
        try:
            tokens = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            if future.done():  # the engine's own error, not our wait
                raise
            future.cancel()  # the request is aborted in the engine (see `_complete`)
            raise TimeoutError(f"no answer from the {self.name} engine within {self.timeout_s:g} s") from None
        return str(loaded.tokenizer.decode(tokens, skip_special_tokens=True))

    async def _complete(self, engine: Engine, request: EngineRequest) -> list[int]:
        """The request's tokens; a request left unfinished (timed out, failed) is aborted in the engine."""
        stream = engine.submit(request)  # a rejection raises here: nothing to abort
        self.submitted += 1
        tokens: list[int] = []
        finished = False
        try:
            async for chunk in stream:
                tokens.extend(chunk.token_ids)
                finished = chunk.finished
        finally:
            if not finished:
                engine.abort(request.request_id)
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        self.finished += 1
        self.last_token_ids = tuple(tokens)
        return tokens

    def close(self, timeout_s: float = 60.0) -> None:
        """Stop the engine (waiting for a start under way) and the loop thread; later calls raise."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            started = self._started
        try:
            if started is not None:
                loaded = started.result(timeout=timeout_s)
                asyncio.run_coroutine_threadsafe(loaded.engine.stop(), self._loop).result(timeout=timeout_s)
        except Exception as error:  # a start that failed has nothing to stop
            log.warning("llm triage: stopping the %s engine: %s", self.name, error)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout_s)
            if not self._thread.is_alive():
                self._loop.close()


def started_loader(engine: Engine, tokenizer: Any, max_positions: int | None = None) -> Loader:
    """A loader that starts a given engine (tests and tools)."""

    async def load() -> LoadedEngine:
        await engine.start()
        return LoadedEngine(engine, tokenizer, max_positions)

    return load


def settings_loader(settings: Settings) -> Loader:
    """A loader that builds and starts the engine exactly as the engine worker does (`build_engine`,
    `resolve_model`, `load_tokenizer`, `serving_positions`)."""

    async def load() -> LoadedEngine:
        model = await asyncio.to_thread(resolve_model, settings.model)
        engine = await asyncio.to_thread(build_engine, settings)
        log.info("llm triage: starting the %s engine with %s", settings.engine, model)
        await engine.start()
        try:
            tokenizer = await asyncio.to_thread(load_tokenizer, model)
            positions = await asyncio.to_thread(serving_positions, engine, model)
        except BaseException:
            await engine.stop()
            raise
        return LoadedEngine(engine, tokenizer, positions)

    return load


_generators: dict[tuple[object, ...], EngineGenerator] = {}
_generators_lock = threading.Lock()


def _engine_key(settings: Settings) -> tuple[object, ...]:
    return (
        settings.engine,
        settings.model,
        settings.engine_num_blocks,
        settings.engine_block_size,
        settings.engine_max_batch_tokens,
        settings.engine_max_requests,
        settings.vllm_gpu_memory_utilization,
        settings.vllm_kv_cache_gib,
        settings.vllm_max_model_len,
        settings.vllm_enforce_eager,
        settings.vllm_kv_offloading_gib,
        settings.triage_llm_timeout_s,
    )


def engine_generator(settings: Settings) -> EngineGenerator:
    """The process's generator for these engine settings: built (and its engine started) once, kept across
    triage model reloads."""
    key = _engine_key(settings)
    with _generators_lock:
        generator = _generators.get(key)
        if generator is None:
            generator = EngineGenerator(settings_loader(settings), settings.triage_llm_timeout_s, settings.engine)
            _generators[key] = generator
        return generator


def close_engine_generators() -> None:
    """Stop every engine this process started for triage (at shutdown, and between tests)."""
    with _generators_lock:
        generators = list(_generators.values())
        _generators.clear()
    for generator in generators:
        generator.close()
