"""The engine worker's loop: takes incidents from the Redis heap, leases them, serves them, beats its heart."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import os
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import redis.exceptions
import sqlalchemy.exc
from sqlalchemy import update

from app.db.models import GuidanceState, Incident, utcnow
from app.db.session import session_scope
from app.engine_worker.outcomes import (
    Served,
    current_level,
    record_check,
    record_failed,
    record_finished,
    when_accepted,
    write_guidance,
)
from app.engine_worker.scheduling_beat import scheduling_beat
from app.engine_worker.startup import start_engine
from app.guidance.cards import Card
from app.guidance.checker import check_guidance
from app.guidance.incident_card import grounding
from app.guidance.prompt import GROUNDED_PROMPT_VERSION, GUIDANCE_PROMPT_VERSION, guidance_messages
from app.redis import keys
from app.redis.queueing import redis_client, settings_heap
from app.settings import Settings
from app.status.metrics import count_engine, record_observation
from scheduler.engines.base import (
    Engine,
    EngineError,
    EngineRequest,
    RequestInFlightError,
    RequestRejectedError,
    TokenChunk,
)
from scheduler.redis_heap import HeapItem
from scheduler.shedding import DrainMeter

log = logging.getLogger(__name__)

URGENT_LEVEL = 2
GUIDANCE_FLUSH_S = 0.5
MAX_DELIVERIES = 5
"""An incident the engine has failed on this many times is recorded as failed instead of retried forever."""
OUTAGE_PAUSE_S = 1.0
"""After the database or Redis failed a delivery, the pause before that serving gives up its slot."""
OUTAGES: tuple[type[Exception], ...] = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    sqlalchemy.exc.TimeoutError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
)
"""The database or Redis away: a delivery that fails with one of these does not count toward MAX_DELIVERIES."""


HEARTBEAT_TTL_S = 10
"""An engine worker's heartbeat key expires this long after its last beat (a dead worker's state goes with it)."""


def consumer_name() -> str:
    """This engine worker's name: its lease holder id in the heap and its heartbeat key's tail."""
    return f"{socket.gethostname()}:{os.getpid()}"


def heartbeat_key(settings: Settings, consumer: str) -> str:
    return keys.engine_heartbeat(settings.queue_prefix, consumer)


def is_outage(error: BaseException) -> bool:
    return isinstance(error, OUTAGES)


@dataclass(frozen=True, slots=True)
class _Loaded:
    """An incident as the engine serves it: its prompt (grounded in its protocol card) and what its outcome needs."""

    prompt: list[int]
    esi_level: int
    predicted_tokens: int
    queued_at: dt.datetime | None
    accepted_at: dt.datetime
    card: Card | None
    language: str

    @property
    def prompt_version(self) -> str:
        return GUIDANCE_PROMPT_VERSION if self.card is None else GROUNDED_PROMPT_VERSION


@dataclass(slots=True)
class _Serving:
    item: HeapItem
    task: asyncio.Task[None] | None = None
    handed_s: float = 0.0
    started_wall: dt.datetime = field(default_factory=utcnow)


class EngineWorker:
    """One engine, fed from the shared heap: takes incidents as the engine has room, streams guidance into the
    database, records outcomes, and applies overrides to requests already in the engine.

    Urgent first: an ESI 1-2 incident at the head of the heap goes into the engine at once even when it is full (the
    engine's scheduler then preempts for it); less urgent ones wait until the engine has room. Each taken incident is
    leased and the lease renewed while it is served; a worker that dies stops renewing and the heap gives the
    incident to the next worker. Outcome and "done" are committed before the lease is acknowledged.
    """

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
        self.heap = settings_heap(settings)
        self.consumer = consumer_name()
        self.capacity = settings.engine_max_requests
        self.serving: dict[str, _Serving] = {}
        self.drain = DrainMeter()
        """How fast this engine gets through estimated work (in the heartbeat: overload shedding divides by it)."""
        cache_tokens = settings.engine_num_blocks * settings.engine_block_size
        self.max_prompt_tokens = max(64, min(cache_tokens // 2, max_positions - settings.max_new_tokens))
        added = getattr(tokenizer, "added_tokens_encoder", None) or {}
        self.special_tokens = [*getattr(tokenizer, "all_special_tokens", []), *added]
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
        self.drain.in_service(time.monotonic(), len(self.serving))
        serving.task = asyncio.create_task(self._generate(serving))

    # ----- one incident -----------------------------------------------------------------------------------

    async def _generate(self, serving: _Serving) -> None:
        item = serving.item
        incident_id = item.item_id
        try:
            await self._serve_incident(item)
        except Exception as error:  # the engine's, or anything else: every kind counts toward the same cap
            if not isinstance(error, EngineError):
                log.exception("engine worker failed on %s", incident_id)
            self.serving.pop(incident_id, None)  # before the release: a pop that follows must serve it anew
            try:
                await self._delivery_failed(item, f"{type(error).__name__}: {error}", outage=is_outage(error))
            except Exception:  # Redis or the database away: the lease expires and the heap delivers it again
                log.exception("could not give %s back; its lease will expire", incident_id)
        finally:
            if self.serving.get(incident_id) is serving:  # not a newer delivery of the same incident
                del self.serving[incident_id]
            self.drain.in_service(time.monotonic(), len(self.serving))

    async def _serve_incident(self, item: HeapItem) -> None:
        """Load the incident, stream its guidance from the engine into the database, and record its outcome."""
        incident_id = item.item_id
        loaded = await asyncio.to_thread(self._load, incident_id)
        if loaded is None:  # finished meanwhile, or gone
            await asyncio.to_thread(self.heap.ack, incident_id, self.consumer)
            return
        request = EngineRequest(
            incident_id,
            tuple(loaded.prompt),
            loaded.esi_level,
            max(1, min(loaded.predicted_tokens, self.settings.max_new_tokens)),
            self.settings.max_new_tokens,
        )
        accepted = loaded.accepted_at
        handed_s = time.monotonic()
        handed_wall = utcnow()
        queue_wait_s = max(0.0, (handed_wall - (loaded.queued_at or accepted)).total_seconds())
        try:
            stream = self.engine.submit(request)
        except RequestInFlightError as error:
            # An earlier delivery's request is still in the engine (its stream given up when the database went away
            # mid-write): handed back uncounted, to be served once that request is done, never failed for it.
            await self._delivery_failed(item, str(error), outage=True)
            return
        except RequestRejectedError as error:
            await asyncio.to_thread(self._fail, incident_id, item, str(error), queue_wait_s, accepted)
            return
        tokens, first_token_s = await self._stream_guidance(incident_id, stream, loaded.prompt_version)
        timing = self.engine.timings.get(incident_id)
        ttft_s = None if first_token_s is None else max(0.0, first_token_s - handed_s)
        evictions = timing.evictions if timing is not None else 0
        served = Served(self.engine.name, self.model_name, queue_wait_s, ttft_s, len(tokens), evictions)
        await asyncio.to_thread(self._finish, incident_id, item, tokens, served, loaded)

    async def _stream_guidance(
        self, incident_id: str, stream: AsyncIterator[TokenChunk], prompt_version: str
    ) -> tuple[list[int], float | None]:
        """Write the guidance as it streams (every GUIDANCE_FLUSH_S, and at the end); the tokens and the engine's
        time of the first."""
        tokens: list[int] = []
        first_token_s: float | None = None
        last_flush = 0.0
        async for chunk in stream:
            tokens.extend(chunk.token_ids)
            if chunk.token_ids and first_token_s is None:
                first_token_s = chunk.emitted_s
                await asyncio.to_thread(self._set_state, incident_id, GuidanceState.GENERATING)
            if chunk.finished or chunk.emitted_s - last_flush >= GUIDANCE_FLUSH_S:
                last_flush = chunk.emitted_s
                await asyncio.to_thread(self._write_guidance, incident_id, list(tokens), prompt_version)
        return tokens, first_token_s

    async def _delivery_failed(self, item: HeapItem, reason: str, *, outage: bool = False) -> None:
        """Give the incident back to the heap, or record it as failed once serving it has failed too often (an
        engine error or any other: a delivery that fails for ever must not circulate for ever). An `outage` (the
        database or Redis away) is not the incident's failure: the delivery is given back uncounted, after a pause."""
        incident_id = item.item_id
        if outage:
            log.warning("serving %s paused: %s; giving it back uncounted", incident_id, reason)
            await asyncio.to_thread(self.heap.release, incident_id, self.consumer, uncount=True)
            await asyncio.sleep(OUTAGE_PAUSE_S)
            return
        if item.deliveries >= MAX_DELIVERIES:
            log.error("serving %s failed %d times (%s); recording the failure", incident_id, item.deliveries, reason)
            await asyncio.to_thread(self._fail_after_errors, incident_id, item, reason)
        else:
            log.error("serving %s failed: %s; giving it back to the heap", incident_id, reason)
            await asyncio.to_thread(self.heap.release, incident_id, self.consumer)

    def _load(self, incident_id: str) -> _Loaded | None:
        with session_scope(self.settings.database_url) as session:
            incident = session.get(Incident, incident_id)
            if incident is None or incident.guidance_state in (GuidanceState.DONE, GuidanceState.FAILED):
                return None
            classification = incident.classifications[-1] if incident.classifications else None
            flags = [str(item.get("rule_id")) for item in classification.evidence] if classification else []
            level = current_level(incident, 5)
            card, language = grounding(incident)
            incident.guidance_state = GuidanceState.PREFILLING.value
            incident.engine_seen_at = utcnow()
            prompt = self._prompt(incident.text, level, flags, card, language)
            predicted = incident.predicted_output_tokens or 0
            return _Loaded(prompt, level, predicted, incident.queued_at, incident.accepted_at, card, language)

    def _prompt(self, text: str, esi_level: int, flags: list[str], card: Card | None, language: str) -> list[int]:
        messages = guidance_messages(text, esi_level, flags, self.special_tokens, card=card, language=language)
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

    def _write_guidance(self, incident_id: str, tokens: list[int], prompt_version: str) -> str:
        text: str = self.tokenizer.decode(tokens, skip_special_tokens=True)
        write_guidance(self.settings.database_url, incident_id, text, len(tokens), self.model_name, prompt_version)
        return text

    def _finish(self, incident_id: str, item: HeapItem, tokens: list[int], served: Served, loaded: _Loaded) -> None:
        """The whole guidance, the checker's verdict on it (against the card, in the call's language), then the
        outcome and "done"."""
        text = self._write_guidance(incident_id, tokens, loaded.prompt_version)
        check = check_guidance(text, loaded.card, loaded.language)
        record_check(self.settings.database_url, incident_id, check)
        if not check.passed:
            log.warning("guidance_refused incident_id=%s reasons=%r", incident_id, check.summary())
        level = record_finished(self.settings.database_url, incident_id, item, served, loaded.accepted_at)
        if level is None:
            return
        self.drain.finished(time.monotonic(), item.est_remaining_s)
        # Only once "done" is committed: the reconciler never re-queues a finished incident.
        self.heap.ack(incident_id, self.consumer)
        prefix = self.settings.queue_prefix
        try:
            record_observation(self.client, prefix, "wait", level, served.queue_wait_s)
            if served.ttft_s is not None:
                record_observation(self.client, prefix, "ttft", level, served.ttft_s)
            count_engine(self.client, prefix, finished=1, tokens=len(tokens), evictions=served.evictions)
        except Exception as error:
            log.warning("metrics not recorded: %s", error)

    def _fail(self, incident_id: str, item: HeapItem, reason: str, queue_wait_s: float, accepted: dt.datetime) -> None:
        """The engine can never serve this incident (too large): record it, and do not retry."""
        served = Served(self.engine.name, self.model_name, queue_wait_s, error=reason)
        if not record_failed(self.settings.database_url, incident_id, item, served, accepted):
            return
        self.heap.ack(incident_id, self.consumer)
        count_engine(self.client, self.settings.queue_prefix, failed=1)

    def _fail_after_errors(self, incident_id: str, item: HeapItem, reason: str) -> None:
        accepted = when_accepted(self.settings.database_url, incident_id)
        self._fail(incident_id, item, f"serving failed {item.deliveries} times: {reason}", 0.0, accepted)

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
        key = heartbeat_key(self.settings, self.consumer)
        while True:
            health = self.engine.health()
            stats = self.engine.stats()
            beat = {
                "ok": health.ok,
                "state": "serving" if health.ok else "unhealthy",
                "detail": health.detail,
                "engine": self.engine.name,
                "model": self.model_name,
                "serving": len(self.serving),
                "running": stats.running,
                "steps": stats.steps,
                "mean_step_s": stats.mean_step_s,
                "restarts": health.restarts,
                "drain_rate": self.drain.rate(),
                **(await scheduling_beat(self.engine)),
            }
            try:
                await asyncio.to_thread(self.client.set, key, json.dumps(beat), ex=HEARTBEAT_TTL_S)
            except Exception as error:
                log.warning("heartbeat failed: %s", error)
            await asyncio.sleep(2.0)

    async def _listen_overrides(self) -> None:
        channel = keys.override_channel(self.settings.queue_prefix)
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
        """Apply an override to a request this worker is serving (at the engine's next step)."""
        serving = self.serving.get(incident_id)
        if serving is None:
            return False
        try:
            self.engine.override(incident_id, esi_level)
        except KeyError:
            return False  # not submitted yet: it is submitted with the new level from the database
        return True


async def serve_engine(settings: Settings) -> None:
    """Start the engine (retried while its model cannot be loaded, the reason in the heartbeat) and run the worker
    until cancelled."""
    if settings.redis_url is None:
        raise ValueError("the engine worker needs TRIAGE_REDIS_URL")
    client = redis_client(settings.redis_url)
    key = heartbeat_key(settings, consumer_name())

    async def publish(state: dict[str, Any]) -> None:
        beat = {**state, "engine": settings.engine, "model": settings.model}
        try:
            await asyncio.to_thread(client.set, key, json.dumps(beat), ex=HEARTBEAT_TTL_S)
        except Exception as error:
            log.warning("heartbeat failed: %s", error)

    started = await start_engine(settings, publish)
    worker = EngineWorker(settings, started.engine, started.tokenizer, started.model_name, started.max_positions)
    try:
        await worker.run()
    finally:
        await started.engine.stop()
