"""The engine worker's loop: takes incidents from the Redis heap, leases them, serves them, beats its heart."""

from __future__ import annotations

import asyncio
import dataclasses
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

from app.db.models import GuidanceState, utcnow
from app.engine_worker.incident_rows import LoadedIncident, load_incident, mark_seen, set_state
from app.engine_worker.notices import listen_notices
from app.engine_worker.outcomes import (
    RaisedMeanwhile,
    Served,
    WrittenGuidance,
    record_failed,
    record_finished,
    when_accepted,
    write_guidance,
)
from app.engine_worker.prompt import GuidancePrompt
from app.engine_worker.scheduling_beat import scheduling_beat
from app.engine_worker.startup import start_engine
from app.guidance.checker import check_guidance, load_language_models
from app.redis import keys
from app.redis.queueing import (
    ClosedNotice,
    Notice,
    OverloadNotice,
    OverrideNotice,
    ReplanNotice,
    redis_client,
    settings_heap,
)
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
HEARTBEAT_EVERY_S = 2.0


def consumer_name() -> str:
    """This engine worker's name: its lease holder id in the heap and its heartbeat key's tail."""
    return f"{socket.gethostname()}:{os.getpid()}"


def heartbeat_key(settings: Settings, consumer: str) -> str:
    return keys.engine_heartbeat(settings.queue_prefix, consumer)


def is_outage(error: BaseException) -> bool:
    return isinstance(error, OUTAGES)


@dataclass(slots=True)
class _Serving:
    item: HeapItem
    """The heap item as leased; its ESI level follows overrides until the request is submitted, and after."""
    task: asyncio.Task[None] | None = None
    closed: bool = False
    """The incident was closed while served (or found final: another delivery finished it): its request is aborted
    and nothing more is written for it."""
    started_wall: dt.datetime = field(default_factory=utcnow)
    replan: bool = False
    """A live call's level rose while it was served: its request is aborted and submitted again with the new
    transcript, level and card."""
    replans: int = 0
    submitted_level: int | None = None
    """The level of the submission in the engine, None before one (a replan notice at this level or a less urgent one
    is about a raise this submission already follows: the finish found the call raised, see `RaisedMeanwhile`)."""

    @property
    def submitted(self) -> bool:
        """Whether this serving's request is in the engine (submitted, not yet planned again)."""
        return self.submitted_level is not None

    def is_closed(self) -> bool:
        """Whether the incident was closed by now (a method: the flag changes while the serving awaits)."""
        return self.closed

    def is_replanned(self) -> bool:
        """Whether a raised level asked for the guidance to be planned again (the flag changes while it awaits)."""
        return self.replan


class EngineWorker:
    """One engine, fed from the shared heap: takes incidents as the engine has room, streams guidance into the
    database, records outcomes, and applies the notices of the override channel (overrides, closed incidents, the
    overload mode) to the requests already in the engine.

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
        self.model_name = model_name
        self.client = redis_client(settings.redis_url)
        self.heap = settings_heap(settings)
        self.consumer = consumer_name()
        self.capacity = settings.engine_max_requests
        self.serving: dict[str, _Serving] = {}
        self.drain = DrainMeter()
        """How fast this engine gets through estimated work (in the heartbeat: overload shedding divides by it)."""
        cache_tokens = settings.engine_num_blocks * settings.engine_block_size
        max_prompt_tokens = max(64, min(cache_tokens // 2, max_positions - settings.max_new_tokens))
        self.prompt = GuidancePrompt(tokenizer, max_prompt_tokens)
        self._stop = asyncio.Event()

    # ----- the loop ---------------------------------------------------------------------------------------

    async def run(self) -> None:
        channel = keys.override_channel(self.settings.queue_prefix)
        tasks = [
            asyncio.create_task(self._renew_leases()),
            asyncio.create_task(self._heartbeat()),
            asyncio.create_task(listen_notices(self.client, channel, self.handle, self._sync_overload)),
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
            except redis.exceptions.RedisError as error:  # Redis away: try again on the next pass
                log.warning("engine worker: cannot read the heap: %s", error)
                return taken
            if item is None:
                return taken
            taken.append(item)

    def _serve(self, item: HeapItem) -> None:
        if item.incident_id in self.serving:  # handed to us again (after a Redis restart): we are serving it
            self.serving[item.incident_id].item = item
            return
        serving = _Serving(item)
        self.serving[item.incident_id] = serving
        self.drain.in_service(time.monotonic(), len(self.serving))
        serving.task = asyncio.create_task(self._generate(serving))

    # ----- notices ----------------------------------------------------------------------------------------

    def handle(self, notice: Notice) -> None:
        """Apply a notice of the override channel."""
        match notice:
            case OverrideNotice(incident_id, esi_level):
                self.apply_override(incident_id, esi_level)
            case ClosedNotice(incident_id):
                self.apply_close(incident_id)
            case OverloadNotice(overloaded):
                self.apply_overload(overloaded)
            case ReplanNotice(incident_id, esi_level):
                self.apply_replan(incident_id, esi_level)

    def apply_override(self, incident_id: str, esi_level: int) -> bool:
        """Apply an override to an incident this worker serves: submitted with the new level, or re-keyed in the
        engine at its next step."""
        serving = self.serving.get(incident_id)
        if serving is None:
            return False
        serving.item = dataclasses.replace(serving.item, esi_level=esi_level)
        if serving.submitted:
            try:
                self.engine.override(incident_id, esi_level)
            except KeyError:
                return False  # finished meanwhile
        return True

    def apply_replan(self, incident_id: str, esi_level: int) -> bool:
        """A live call's level rose: the guidance being written for the lower level is aborted (gone at the engine's
        next step) and the call submitted again, with the transcript, level and card it has now."""
        serving = self.serving.get(incident_id)
        if serving is None or serving.closed:
            return False
        if serving.submitted_level is not None and esi_level >= serving.submitted_level:
            return False  # the submission in the engine already answers the raised level's words
        serving.item = dataclasses.replace(serving.item, esi_level=esi_level)
        serving.replan = True
        if serving.submitted:
            self.engine.abort(incident_id)
        log.info("guidance_replanned incident_id=%s esi_level=%d aborted=%s", incident_id, esi_level, serving.submitted)
        return True

    def apply_close(self, incident_id: str) -> bool:
        """The incident was closed: abort its request in the engine (gone at the engine's next step); nothing more
        is written for it."""
        serving = self.serving.get(incident_id)
        if serving is None:
            return False
        serving.closed = True
        if serving.submitted:
            self.engine.abort(incident_id)
        log.info("incident_closed incident_id=%s aborted=%s", incident_id, serving.submitted)
        return True

    def apply_overload(self, overloaded: bool) -> None:
        """The engine's scheduler enters or leaves the overload mode (ESI 2 strictly after ESI 1)."""
        if self.engine.set_overloaded(overloaded):
            log.warning("engine overload mode %s", "on" if overloaded else "off")

    async def _sync_overload(self) -> None:
        """Read the overload mode from the heap (a notice may have been missed while the channel was lost)."""
        self.apply_overload(await asyncio.to_thread(self.heap.overloaded))

    # ----- one incident -----------------------------------------------------------------------------------

    async def _generate(self, serving: _Serving) -> None:
        item = serving.item
        incident_id = item.incident_id
        try:
            await self._serve_incident(serving)
        # Any error, the engine's or another: every kind counts toward the same cap (a delivery that fails for ever
        # must not circulate for ever), so this one handler is deliberately broad.
        except Exception as error:
            if not isinstance(error, EngineError):
                log.exception("engine worker failed on %s", incident_id)
            self.serving.pop(incident_id, None)  # before the release: a pop that follows must serve it anew
            try:
                await self._delivery_failed(item, f"{type(error).__name__}: {error}", outage=is_outage(error))
            except OUTAGES:  # Redis or the database away: the lease expires and the heap delivers it again
                log.exception("could not give %s back; its lease will expire", incident_id)
        finally:
            if self.serving.get(incident_id) is serving:  # not a newer delivery of the same incident
                del self.serving[incident_id]
            self.drain.in_service(time.monotonic(), len(self.serving))

    async def _serve_incident(self, serving: _Serving) -> None:
        """Load the incident, stream its guidance from the engine into the database, and record its outcome; a live
        call whose level rose meanwhile is loaded and submitted again (`apply_replan`)."""
        while True:
            serving.replan, serving.submitted_level = False, None
            if not await self._serve_once(serving) or not serving.is_replanned() or serving.is_closed():
                return
            serving.replans += serving.submitted  # a submission thrown away (not a reload before one)
            # The new reading's facts (card, flags, estimate) are on the heap item once the replan re-keyed it to the
            # new level; before that (the finish found the raise first) they are read from the database.
            fresh = await asyncio.to_thread(self.heap.get, serving.item.incident_id)
            rekeyed = fresh is not None and fresh.esi_level == serving.item.esi_level
            serving.item = dataclasses.replace(serving.item, facts=fresh.facts if rekeyed and fresh else None)

    async def _serve_once(self, serving: _Serving) -> bool:
        """One submission of the incident; False when it is over (finished, failed, closed, gone), True when it was
        aborted to be planned again."""
        incident_id = serving.item.incident_id
        database_url = self.settings.database_url
        item = serving.item
        loaded = await asyncio.to_thread(
            load_incident, database_url, incident_id, item.esi_level, self.prompt, item.facts
        )
        if loaded is None or serving.closed:  # finished, closed or gone meanwhile
            await asyncio.to_thread(self.heap.ack, incident_id, self.consumer)
            return False
        if serving.is_replanned():  # raised while it loaded: load the new transcript
            return True
        item = serving.item  # its level as it is now: an override made while the incident loaded included
        request = EngineRequest(
            incident_id,
            tuple(loaded.prompt),
            item.esi_level,
            max(1, min(loaded.predicted_tokens, self.settings.max_new_tokens)),
            self.settings.max_new_tokens,
        )
        handed_s = time.monotonic()
        queue_wait_s = max(0.0, (utcnow() - (loaded.queued_at or loaded.accepted_at)).total_seconds())
        try:
            stream = self.engine.submit(request)
        except RequestInFlightError as error:
            # An earlier delivery's request is still in the engine (its stream given up when the database went away
            # mid-write): handed back uncounted, to be served once that request is done, never failed for it.
            await self._delivery_failed(item, str(error), outage=True)
            return False
        except RequestRejectedError as error:
            await asyncio.to_thread(self._fail, item, str(error), queue_wait_s, loaded.accepted_at)
            return False
        serving.submitted_level = request.esi_level
        tokens, first_token_s = await self._stream_guidance(serving, stream, loaded.prompt_version)
        if serving.is_closed():
            await asyncio.to_thread(self.heap.ack, incident_id, self.consumer)
            return False
        if serving.is_replanned():
            return True
        timing = self.engine.timings.get(incident_id)
        ttft_s = None if first_token_s is None else max(0.0, first_token_s - handed_s)
        evictions = timing.evictions if timing is not None else 0
        served = Served(
            self.engine.name, self.model_name, queue_wait_s, ttft_s, len(tokens), evictions + serving.replans
        )
        raised = await asyncio.to_thread(self._finish, item, tokens, served, loaded)
        if raised is None:
            return False
        # Read again at a higher level while it was written, the notice not here yet: planned again, on this lease.
        serving.item = dataclasses.replace(serving.item, esi_level=min(serving.item.esi_level, raised.esi_level))
        serving.replan = True
        log.info("guidance_replanned incident_id=%s esi_level=%d at=finish", incident_id, raised.esi_level)
        return True

    async def _stream_guidance(
        self, serving: _Serving, stream: AsyncIterator[TokenChunk], prompt_version: str
    ) -> tuple[list[int], float | None]:
        """Write the guidance as it streams (every GUIDANCE_FLUSH_S, and at the end); the tokens and the engine's
        time of the first. An incident found final when written to (closed, its notice missed; or finished by another
        delivery, whose guidance stands) is aborted there; from an abort on (closed, or a replan), nothing more of the
        submission is written."""
        incident_id = serving.item.incident_id
        tokens: list[int] = []
        first_token_s: float | None = None
        last_flush = 0.0
        async for chunk in stream:
            if serving.is_replanned() or serving.is_closed():
                continue  # aborted (its stream ends at its next item): nothing more of this submission is written
            tokens.extend(chunk.token_ids)
            still_open = True
            if chunk.token_ids and first_token_s is None:
                first_token_s = chunk.emitted_s
                still_open = await asyncio.to_thread(
                    set_state, self.settings.database_url, incident_id, GuidanceState.GENERATING
                )
            if still_open and (chunk.finished or chunk.emitted_s - last_flush >= GUIDANCE_FLUSH_S):
                last_flush = chunk.emitted_s
                still_open = await asyncio.to_thread(self._write_guidance, incident_id, list(tokens), prompt_version)
            if not still_open and not serving.closed:
                self.apply_close(incident_id)
        return tokens, first_token_s

    async def _delivery_failed(self, item: HeapItem, reason: str, *, outage: bool = False) -> None:
        """Give the incident back to the heap, or record it as failed once serving it has failed too often (an
        engine error or any other: a delivery that fails for ever must not circulate for ever). An `outage` (the
        database or Redis away) is not the incident's failure: the delivery is given back uncounted, after a pause."""
        incident_id = item.incident_id
        if outage:
            log.warning("serving %s paused: %s; giving it back uncounted", incident_id, reason)
            await asyncio.to_thread(self.heap.release, incident_id, self.consumer, uncount=True)
            await asyncio.sleep(OUTAGE_PAUSE_S)
            return
        if item.deliveries >= MAX_DELIVERIES:
            log.error("serving %s failed %d times (%s); recording the failure", incident_id, item.deliveries, reason)
            await asyncio.to_thread(self._fail_after_errors, item, reason)
        else:
            log.error("serving %s failed: %s; giving it back to the heap", incident_id, reason)
            await asyncio.to_thread(self.heap.release, incident_id, self.consumer)

    def _write_guidance(self, incident_id: str, tokens: list[int], prompt_version: str) -> bool:
        """The guidance so far; False when the incident was closed (nothing written)."""
        text = self.prompt.decode(tokens)
        database_url = self.settings.database_url
        return write_guidance(database_url, incident_id, text, len(tokens), self.model_name, prompt_version)

    def _finish(
        self, item: HeapItem, tokens: list[int], served: Served, loaded: LoadedIncident
    ) -> RaisedMeanwhile | None:
        """The checker's verdict on the whole guidance (against the card, in the call's language), then the guidance,
        the verdict, the outcome and "done" in one transaction; a call closed meanwhile, or finished by another
        delivery, gets none of it (its lease is acknowledged). A live call raised by words read meanwhile is queued
        again and kept on this lease (`RaisedMeanwhile`, returned)."""
        incident_id = item.incident_id
        text = self.prompt.decode(tokens)
        check = check_guidance(text, loaded.card, loaded.language)
        written = WrittenGuidance(text, len(tokens), self.model_name, loaded.prompt_version, check)
        url, accepted = self.settings.database_url, loaded.accepted_at
        level = record_finished(url, incident_id, item, served, accepted, written, served_text=loaded.text)
        if isinstance(level, RaisedMeanwhile):
            return level
        # Only once "done" is committed (or the call found closed or gone): the reconciler never re-queues it.
        self.heap.ack(incident_id, self.consumer)
        if level is None:
            return None
        if not check.passed:
            log.warning("guidance_refused incident_id=%s reasons=%r", incident_id, check.summary())
        self.drain.finished(time.monotonic(), item.est_remaining_s)
        self._count_finished(level, served)
        return None

    def _count_finished(self, esi_level: int, served: Served) -> None:
        prefix = self.settings.queue_prefix
        try:
            record_observation(self.client, prefix, "wait", esi_level, served.queue_wait_s)
            if served.ttft_s is not None:
                record_observation(self.client, prefix, "ttft", esi_level, served.ttft_s)
            count_engine(self.client, prefix, finished=1, tokens=served.tokens, evictions=served.evictions)
        except redis.exceptions.RedisError as error:
            log.warning("metrics not recorded: %s", error)

    def _fail(self, item: HeapItem, reason: str, queue_wait_s: float, accepted: dt.datetime) -> None:
        """The engine can never serve this incident (too large): record it, and do not retry."""
        served = Served(self.engine.name, self.model_name, queue_wait_s, error=reason)
        recorded = record_failed(self.settings.database_url, item.incident_id, item, served, accepted)
        self.heap.ack(item.incident_id, self.consumer)
        if recorded:
            count_engine(self.client, self.settings.queue_prefix, failed=1)

    def _fail_after_errors(self, item: HeapItem, reason: str) -> None:
        accepted = when_accepted(self.settings.database_url, item.incident_id)
        self._fail(item, f"serving failed {item.deliveries} times: {reason}", 0.0, accepted)

    # ----- background duties ------------------------------------------------------------------------------

    async def _renew_leases(self) -> None:
        period = max(0.5, self.settings.engine_lease_s / 3)
        while True:
            await asyncio.sleep(period)
            if self.serving:
                try:
                    await asyncio.to_thread(mark_seen, self.settings.database_url, list(self.serving))
                except sqlalchemy.exc.SQLAlchemyError as error:
                    log.warning("could not mark incidents as served: %s", error)
            for incident_id in list(self.serving):
                try:
                    await asyncio.to_thread(self._renew_lease, incident_id)
                except redis.exceptions.RedisError as error:
                    log.warning("lease renewal failed: %s", error)

    def _renew_lease(self, incident_id: str) -> None:
        """Renew one lease; one lost (Redis restarted) goes back under ours, unless the incident was closed."""
        renewed = self.heap.renew(incident_id, self.consumer, self.settings.engine_lease_s)
        serving = self.serving.get(incident_id)
        if not renewed and serving is not None and not serving.closed:
            self.heap.push_leased(serving.item, self.consumer, self.settings.engine_lease_s)

    async def _heartbeat(self) -> None:
        key = heartbeat_key(self.settings, self.consumer)
        while True:
            try:
                await self._sync_overload()
                beat = await self._beat()
                await asyncio.to_thread(self.client.set, key, json.dumps(beat), ex=HEARTBEAT_TTL_S)
            except redis.exceptions.RedisError as error:
                log.warning("heartbeat failed: %s", error)
            await asyncio.sleep(HEARTBEAT_EVERY_S)

    async def _beat(self) -> dict[str, Any]:
        """The heartbeat: the engine's health and load, its drain rate, the overload mode it runs, and the
        scheduling read back from its scheduler (`scheduling_beat`)."""
        health = self.engine.health()
        stats = self.engine.stats()
        return {
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
            "overloaded": self.engine.overloaded,
            **(await scheduling_beat(self.engine)),
        }


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
        except redis.exceptions.RedisError as error:
            log.warning("heartbeat failed: %s", error)

    started = await start_engine(settings, publish)
    await asyncio.to_thread(load_language_models)  # the checker's, before the first answer needs them
    worker = EngineWorker(settings, started.engine, started.tokenizer, started.model_name, started.max_positions)
    try:
        await worker.run()
    finally:
        await started.engine.stop()
