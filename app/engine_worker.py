"""The engine worker: takes incidents from the Redis heap as the engine has room, streams guidance into the
database, records outcomes, and applies overrides to requests already in the engine.

Urgent first: an ESI 1-2 incident at the head of the heap goes into the engine at once even when it is full (the
engine's scheduler then preempts for it); less urgent ones wait until the engine has room. Each taken incident is
leased and the lease renewed while it is served; a worker that dies stops renewing and the heap gives the
incident to the next worker. Outcome and "done" are committed before the lease is acknowledged.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import update

from app.api.main import ENGINE_HEARTBEAT
from app.db.models import Guidance, GuidanceState, Incident, Outbox, Outcome, utcnow
from app.db.session import session_scope
from app.guidance.prompt import GUIDANCE_PROMPT_VERSION, guidance_messages
from app.metrics import count_engine, record_observation
from app.queueing import OVERRIDE_CHANNEL, heap_for, redis_client
from app.settings import DATA_DIR, Settings
from scheduler.engines.base import Engine, EngineError, EngineRequest, RequestRejectedError
from scheduler.redis_heap import HeapItem

log = logging.getLogger(__name__)

BUILTIN_TINY = "builtin:tiny-llama"
"""A tiny random-weight Llama built locally: for offline smoke runs and tests (its guidance is gibberish)."""
URGENT_LEVEL = 2
GUIDANCE_FLUSH_S = 0.5
MAX_DELIVERIES = 5
"""An incident the engine has failed on this many times is recorded as failed instead of retried forever."""


def resolve_model(name: str) -> str:
    """A model path or hub id; `builtin:tiny-llama` is built into the data directory on first use."""
    if name != BUILTIN_TINY:
        return name
    from scheduler.bench.tiny_models import build_tiny_llama

    directory = DATA_DIR / "models"
    if not (directory / "tiny-llama" / "config.json").is_file():
        build_tiny_llama(directory)
    return str(directory / "tiny-llama")


def build_engine(settings: Settings) -> Engine:
    """The engine named in settings, sized from settings."""
    model = resolve_model(settings.model)
    if settings.engine == "hf":
        from scheduler.engines.hf import HFEngine, HFEngineConfig

        return HFEngine(
            HFEngineConfig(
                model_path=model,
                num_blocks=settings.engine_num_blocks,
                block_size=settings.engine_block_size,
                max_batch_tokens=settings.engine_max_batch_tokens,
                max_requests_per_batch=settings.engine_max_requests,
            )
        )
    from scheduler.engines.vllm_engine import VLLMEngine, VLLMEngineConfig

    return VLLMEngine(
        VLLMEngineConfig(
            model=model,
            max_num_seqs=settings.engine_max_requests * 4,
            gpu_memory_utilization=settings.vllm_gpu_memory_utilization,
            kv_offloading_gib=settings.vllm_kv_offloading_gib,
        )
    )


@dataclass(slots=True)
class _Serving:
    item: HeapItem
    task: asyncio.Task[None] | None = None
    handed_s: float = 0.0
    started_wall: dt.datetime = field(default_factory=utcnow)


class EngineWorker:
    """One engine, fed from the shared heap."""

    def __init__(
        self, settings: Settings, engine: Engine, tokenizer: Any, model_name: str, max_positions: int = 4096
    ) -> None:
        if settings.redis_url is None:
            raise ValueError("the engine worker needs TRIAGE_REDIS_URL")
        self.settings = settings
        self.engine = engine
        self.tokenizer = tokenizer
        self.model_name = model_name
        self.client = redis_client(settings.redis_url)
        self.heap = heap_for(settings.redis_url, settings.queue_prefix)
        self.consumer = f"{socket.gethostname()}:{os.getpid()}"
        self.capacity = settings.engine_max_requests
        self.serving: dict[str, _Serving] = {}
        cache_tokens = settings.engine_num_blocks * settings.engine_block_size
        self.max_prompt_tokens = max(64, min(cache_tokens // 2, max_positions - settings.max_new_tokens))
        self._stop = asyncio.Event()

    # ----- the loop ---------------------------------------------------------------------------------------

    async def run(self) -> None:
        tasks = [
            asyncio.create_task(self._renew_leases()),
            asyncio.create_task(self._heartbeat()),
            asyncio.create_task(self._listen_overrides()),
        ]
        try:
            while not self._stop.is_set():
                took = await asyncio.to_thread(self._take_available)
                for item in took:
                    self._serve(item)
                await asyncio.sleep(0.02 if took else 0.05)
        finally:
            for task in tasks:
                task.cancel()

    def stop(self) -> None:
        self._stop.set()

    def _take_available(self) -> list[HeapItem]:
        """Lease what the engine has room for, and any urgent incident at the head regardless of room."""
        taken: list[HeapItem] = []
        while True:
            room = len(self.serving) + len(taken) < self.capacity
            try:
                item = self.heap.pop_lease(self.consumer, self.settings.engine_lease_s, 0 if room else URGENT_LEVEL)
            except Exception as error:  # Redis away: try again on the next pass
                log.warning("engine worker: cannot read the heap: %s", error)
                return taken
            if item is None:
                return taken
            taken.append(item)

    def _serve(self, item: HeapItem) -> None:
        if item.item_id in self.serving:  # handed to us again (after a Redis restart): we are serving it
            self.serving[item.item_id].item = item
            return
        serving = _Serving(item)
        self.serving[item.item_id] = serving
        serving.task = asyncio.create_task(self._generate(serving))

    # ----- one incident -----------------------------------------------------------------------------------

    async def _generate(self, serving: _Serving) -> None:
        item = serving.item
        incident_id = item.item_id
        try:
            loaded = await asyncio.to_thread(self._load, incident_id)
            if loaded is None:  # finished meanwhile, or gone
                await asyncio.to_thread(self.heap.ack, incident_id, self.consumer)
                return
            prompt, level, predicted, queued_at, accepted_at = loaded
            request = EngineRequest(
                incident_id,
                tuple(prompt),
                level,
                max(1, min(predicted, self.settings.max_new_tokens)),
                self.settings.max_new_tokens,
            )
            handed_s = time.monotonic()
            handed_wall = utcnow()
            queue_wait_s = max(0.0, (handed_wall - (queued_at or accepted_at)).total_seconds())
            tokens: list[int] = []
            first_token_s: float | None = None
            last_flush = 0.0
            try:
                stream = self.engine.submit(request)
            except RequestRejectedError as error:
                await asyncio.to_thread(self._fail, incident_id, item, str(error), queue_wait_s, accepted_at)
                return
            async for chunk in stream:
                tokens.extend(chunk.token_ids)
                if chunk.token_ids and first_token_s is None:
                    first_token_s = chunk.emitted_s
                    await asyncio.to_thread(self._set_state, incident_id, GuidanceState.GENERATING)
                if chunk.finished or chunk.emitted_s - last_flush >= GUIDANCE_FLUSH_S:
                    last_flush = chunk.emitted_s
                    await asyncio.to_thread(self._write_guidance, incident_id, list(tokens))
            timing = self.engine.timings.get(incident_id)
            ttft_s = None if first_token_s is None else max(0.0, first_token_s - handed_s)
            await asyncio.to_thread(
                self._finish,
                incident_id,
                item,
                list(tokens),
                queue_wait_s,
                ttft_s,
                accepted_at,
                timing.evictions if timing is not None else 0,
            )
        except EngineError as error:
            self.serving.pop(incident_id, None)  # before the release: a pop that follows must serve it anew
            if item.deliveries >= MAX_DELIVERIES:
                log.error(
                    "engine failed on %s %d times (%s); recording the failure", incident_id, item.deliveries, error
                )
                await asyncio.to_thread(self._fail_after_errors, incident_id, item, str(error))
            else:
                log.error("engine failed on %s: %s; giving it back to the heap", incident_id, error)
                await asyncio.to_thread(self.heap.release, incident_id, self.consumer)
        except Exception:
            log.exception(
                "engine worker failed on %s; the lease will expire and another worker will retry", incident_id
            )
        finally:
            if self.serving.get(incident_id) is serving:  # not a newer delivery of the same incident
                del self.serving[incident_id]

    def _load(self, incident_id: str) -> tuple[list[int], int, int, dt.datetime | None, dt.datetime] | None:
        with session_scope(self.settings.database_url) as session:
            incident = session.get(Incident, incident_id)
            if incident is None or incident.guidance_state in (GuidanceState.DONE, GuidanceState.FAILED):
                return None
            classification = incident.classifications[-1] if incident.classifications else None
            flags = [str(item.get("rule_id")) for item in classification.evidence] if classification else []
            level = incident.esi_level or 5
            incident.guidance_state = GuidanceState.PREFILLING.value
            incident.engine_seen_at = utcnow()
            prompt = self._prompt(incident.text, level, flags)
            return prompt, level, incident.predicted_output_tokens or 0, incident.queued_at, incident.accepted_at

    def _prompt(self, text: str, level: int, flags: list[str]) -> list[int]:
        messages = guidance_messages(text, level, flags)
        if getattr(self.tokenizer, "chat_template", None):
            ids = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
            if isinstance(ids, dict) or hasattr(ids, "keys"):
                ids = ids["input_ids"]
            prompt = [int(token) for token in ids]
        else:
            plain = "\n\n".join(message["content"] for message in messages) + "\n\nGUIDANCE:\n"
            prompt = [int(token) for token in self.tokenizer(plain)["input_ids"]]
        if len(prompt) > self.max_prompt_tokens:  # keep the instructions' end and the call's start and end
            keep = self.max_prompt_tokens
            prompt = prompt[: keep // 2] + prompt[-(keep - keep // 2) :]
        return prompt

    def _set_state(self, incident_id: str, state: GuidanceState) -> None:
        with session_scope(self.settings.database_url) as session:
            incident = session.get(Incident, incident_id)
            if incident is not None and incident.guidance_state not in (GuidanceState.DONE, GuidanceState.FAILED):
                incident.guidance_state = state.value

    def _write_guidance(self, incident_id: str, tokens: list[int]) -> None:
        text = self.tokenizer.decode(tokens, skip_special_tokens=True)
        with session_scope(self.settings.database_url) as session:
            guidance = session.get(Guidance, incident_id)
            if guidance is None:
                guidance = Guidance(
                    incident_id=incident_id, model=self.model_name, prompt_version=GUIDANCE_PROMPT_VERSION
                )
                session.add(guidance)
            guidance.text = text
            guidance.tokens = len(tokens)
            guidance.model = self.model_name
            guidance.updated_at = utcnow()

    def _finish(
        self,
        incident_id: str,
        item: HeapItem,
        tokens: list[int],
        queue_wait_s: float,
        ttft_s: float | None,
        accepted_at: dt.datetime,
        evictions: int,
    ) -> None:
        self._write_guidance(incident_id, tokens)
        now = utcnow()
        with session_scope(self.settings.database_url) as session:
            incident = session.get(Incident, incident_id)
            if incident is None:
                return
            level = incident.esi_level or item.esi_level
            outcome = session.get(Outcome, incident_id)
            if outcome is None:
                outcome = Outcome(incident_id=incident_id, deliveries=item.deliveries)
                session.add(outcome)
            outcome.esi_level = level
            outcome.queue_wait_s = queue_wait_s
            outcome.ttft_s = ttft_s
            outcome.total_s = (now - accepted_at).total_seconds()
            outcome.tokens = len(tokens)
            outcome.evictions = evictions
            outcome.deliveries = max(outcome.deliveries or 1, item.deliveries)
            outcome.engine = self.engine.name
            outcome.model = self.model_name
            outcome.error = None
            outcome.finished_at = now
            incident.guidance_state = GuidanceState.DONE.value
            outbox = session.get(Outbox, incident_id)
            if outbox is not None:
                outbox.done_at = now
        # Only once "done" is committed: the reconciler never re-queues a finished incident.
        self.heap.ack(incident_id, self.consumer)
        prefix = self.settings.queue_prefix
        try:
            record_observation(self.client, prefix, "wait", level, queue_wait_s)
            if ttft_s is not None:
                record_observation(self.client, prefix, "ttft", level, ttft_s)
            count_engine(self.client, prefix, finished=1, tokens=len(tokens), evictions=evictions)
        except Exception as error:
            log.warning("metrics not recorded: %s", error)

    def _fail(
        self, incident_id: str, item: HeapItem, reason: str, queue_wait_s: float, accepted_at: dt.datetime
    ) -> None:
        """The engine can never serve this incident (too large): record it, and do not retry."""
        now = utcnow()
        with session_scope(self.settings.database_url) as session:
            incident = session.get(Incident, incident_id)
            if incident is None:
                return
            incident.guidance_state = GuidanceState.FAILED.value
            if session.get(Outcome, incident_id) is None:
                session.add(
                    Outcome(
                        incident_id=incident_id,
                        esi_level=incident.esi_level or item.esi_level,
                        queue_wait_s=queue_wait_s,
                        ttft_s=None,
                        total_s=(now - accepted_at).total_seconds(),
                        tokens=0,
                        deliveries=item.deliveries,
                        engine=self.engine.name,
                        model=self.model_name,
                        error=reason,
                    )
                )
            outbox = session.get(Outbox, incident_id)
            if outbox is not None:
                outbox.done_at = now
        self.heap.ack(incident_id, self.consumer)
        count_engine(self.client, self.settings.queue_prefix, failed=1)

    def _fail_after_errors(self, incident_id: str, item: HeapItem, reason: str) -> None:
        with session_scope(self.settings.database_url) as session:
            incident = session.get(Incident, incident_id)
            accepted_at = incident.accepted_at if incident is not None else utcnow()
        self._fail(incident_id, item, f"engine failed {item.deliveries} times: {reason}", 0.0, accepted_at)

    # ----- background duties ------------------------------------------------------------------------------

    def _mark_seen(self, incident_ids: list[str]) -> None:
        """Tell the database these incidents are being served (the reconciler leaves them alone)."""
        with session_scope(self.settings.database_url) as session:
            session.execute(update(Incident).where(Incident.id.in_(incident_ids)).values(engine_seen_at=utcnow()))

    async def _renew_leases(self) -> None:
        period = max(0.5, self.settings.engine_lease_s / 3)
        while True:
            await asyncio.sleep(period)
            if self.serving:
                try:
                    await asyncio.to_thread(self._mark_seen, list(self.serving))
                except Exception as error:
                    log.warning("could not mark incidents as served: %s", error)
            for incident_id in list(self.serving):
                try:
                    renewed = await asyncio.to_thread(
                        self.heap.renew, incident_id, self.consumer, self.settings.engine_lease_s
                    )
                    serving = self.serving.get(incident_id)
                    if not renewed and serving is not None:  # lost (Redis restarted): back under our lease
                        await asyncio.to_thread(
                            self.heap.push_leased, serving.item, self.consumer, self.settings.engine_lease_s
                        )
                except Exception as error:
                    log.warning("lease renewal failed: %s", error)

    async def _heartbeat(self) -> None:
        key = f"{self.settings.queue_prefix}:{ENGINE_HEARTBEAT}:{self.consumer}"
        while True:
            health = self.engine.health()
            stats = self.engine.stats()
            beat = {
                "ok": health.ok,
                "detail": health.detail,
                "engine": self.engine.name,
                "model": self.model_name,
                "serving": len(self.serving),
                "running": stats.running,
                "steps": stats.steps,
                "mean_step_s": stats.mean_step_s,
                "restarts": health.restarts,
            }
            try:
                await asyncio.to_thread(self.client.set, key, json.dumps(beat), ex=10)
            except Exception as error:
                log.warning("heartbeat failed: %s", error)
            await asyncio.sleep(2.0)

    async def _listen_overrides(self) -> None:
        channel = f"{self.settings.queue_prefix}:{OVERRIDE_CHANNEL}"
        while True:
            pubsub = self.client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
            try:
                await asyncio.to_thread(pubsub.subscribe, channel)
                while True:
                    message = await asyncio.to_thread(pubsub.get_message, timeout=1.0)
                    if message is None:
                        continue
                    data = message["data"].decode() if isinstance(message["data"], bytes) else message["data"]
                    incident_id, level = data.split()
                    self.apply_override(incident_id, int(level))
            except asyncio.CancelledError:
                pubsub.close()
                raise
            except Exception as error:
                log.warning("override channel lost (%s); resubscribing", error)
                pubsub.close()
                await asyncio.sleep(1.0)

    def apply_override(self, incident_id: str, esi_level: int) -> bool:
        """Re-prioritize a request this worker is serving (at the engine's next step)."""
        serving = self.serving.get(incident_id)
        if serving is None:
            return False
        try:
            self.engine.reprioritize(incident_id, esi_level)
        except KeyError:
            return False  # not submitted yet: it is submitted with the new level from the database
        return True


def model_positions(model: str) -> int:
    """The longest sequence the model takes."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(model)
    return int(getattr(config, "max_position_embeddings", 4096) or 4096)


def load_tokenizer(model: str) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(model)


def serving_positions(engine: Engine, model: str) -> int:
    """The longest sequence the engine serves with this model: the model's positions, capped by the engine's own
    `max_model_len` when it has one (vLLM). Shared with the `llm` triage backend (`app/triage_llm.py`)."""
    max_positions = model_positions(model)
    engine_limit = getattr(getattr(engine, "config", None), "max_model_len", None)
    if isinstance(engine_limit, int):
        max_positions = min(max_positions, engine_limit)
    return max_positions


async def serve_engine(settings: Settings) -> None:
    """Start the engine and run the worker until cancelled."""
    model = resolve_model(settings.model)
    engine = build_engine(settings)
    log.info("engine worker: starting %s engine with %s", settings.engine, model)
    await engine.start()
    tokenizer = await asyncio.to_thread(load_tokenizer, model)
    max_positions = await asyncio.to_thread(serving_positions, engine, model)
    name = Path(model).name if Path(model).exists() else model
    worker = EngineWorker(settings, engine, tokenizer, name, max_positions)
    try:
        await worker.run()
    finally:
        await engine.stop()
