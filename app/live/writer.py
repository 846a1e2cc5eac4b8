"""Group commit for live-call events: every event that arrives while a commit is under way goes into the next one,
written by one thread. A live call sends one to three events a second; a centre's hundred calls would otherwise
queue on SQLite's single writer one transaction (and one fsync) each, holding the request threads while they
wait. An event is answered only once its transaction has committed: nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError

from app.db.models import utcnow
from app.db.session import session_scope
from app.live.events import CallEvent
from app.live.store import Batch, Recorded, record_event

log = logging.getLogger(__name__)

MAX_BATCH = 256
"""Events per transaction at most (a few milliseconds of work on the 2-core machine)."""


@dataclass(slots=True)
class _Pending:
    event: CallEvent
    answer: asyncio.Future[Recorded]


class EventWriter:
    """Writes events in batches on one thread of its own; `after_commit` (run on that thread) gets each committed
    batch's results, to hand the calls with new words to triage."""

    def __init__(self, database_url: str, after_commit: Callable[[list[Recorded]], None] | None = None) -> None:
        self.database_url = database_url
        self.after_commit = after_commit
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-writer")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[_Pending] | None = None
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        self.events = 0
        self.retried_alone = 0
        """Batches whose transaction failed on a constraint and whose events were written again one by one."""

    async def write(self, event: CallEvent) -> Recorded:
        """Write the event with whatever else is waiting; its result once committed (the database's error if not)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._task is None or self._task.done():
            self._loop, self._queue = loop, asyncio.Queue()
            self._task = loop.create_task(self._drain(self._queue))
        assert self._queue is not None
        answer: asyncio.Future[Recorded] = loop.create_future()
        self._queue.put_nowait(_Pending(event, answer))
        return await answer

    async def _drain(self, queue: asyncio.Queue[_Pending]) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = [await queue.get()]
            while len(batch) < MAX_BATCH and not queue.empty():
                batch.append(queue.get_nowait())
            live = [pending for pending in batch if not pending.answer.done()]  # a client that left is not written
            if not live:
                continue
            try:
                results = await loop.run_in_executor(self._executor, self._commit, [p.event for p in live])
            except Exception as error:  # the database away: every event of the batch gets the error (a 503)
                for pending in live:
                    if not pending.answer.done():
                        pending.answer.set_exception(error)
                continue
            for pending, result in zip(live, results, strict=True):
                if isinstance(result, Exception):
                    if not pending.answer.done():
                        pending.answer.set_exception(result)
                elif not pending.answer.done():
                    pending.answer.set_result(result)
            recorded = [result for result in results if isinstance(result, Recorded)]
            if self.after_commit is not None and recorded:
                loop.run_in_executor(self._executor, self._after, recorded)

    def _after(self, recorded: list[Recorded]) -> None:
        assert self.after_commit is not None
        try:
            self.after_commit(recorded)
        except Exception as error:  # the reconciler hands over what this missed
            log.warning("live_handover failed: %s", error)

    def _commit(self, events: list[CallEvent]) -> list[Recorded | Exception]:
        """One transaction for the batch; should it fail on a constraint (another web process wrote the same call or
        utterance meanwhile), each event again in its own."""
        now = utcnow()
        try:
            with session_scope(self.database_url) as session, session.no_autoflush:
                batch = Batch()
                batch.preload(session, events)
                results: list[Recorded | Exception] = [record_event(session, event, now, batch) for event in events]
        except IntegrityError:
            self.retried_alone += 1
            results = [self._commit_one(event, now) for event in events]
        self.batches += 1
        self.events += len(events)
        return results

    def _commit_one(self, event: CallEvent, now: object) -> Recorded | Exception:
        for _ in range(2):  # the second try finds what the other process wrote
            try:
                with session_scope(self.database_url) as session:
                    return record_event(session, event, utcnow())
            except IntegrityError as error:
                last = error
        return last

    def settle(self) -> None:
        """Wait until the hand-overs of every batch committed so far have run (they run on the writer's thread after
        the events were answered): what a caller that must see them, a test or a shutdown, waits for."""
        self._executor.submit(lambda: None).result()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=False)
