"""Redis Sentinel with real `redis-server` and `redis-sentinel` processes: a primary, a replica and three sentinels
(quorum 2). A `redis+sentinel://` client follows a failover; the whole pipeline (web app, Celery worker, engine
worker) loses no call when the primary is SIGKILLed while 200 signed calls are being posted."""

from __future__ import annotations

import asyncio
import base64
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import redis
from sqlalchemy import create_engine, func, select

from app.db.models import Outcome
from app.redis.local import free_port, start_redis_server
from app.redis.urls import connect, connect_bounded
from tests.app.stack import Stack, all_done, assert_all_served, post_signed_calls, start_product

SERVICE = "triage"
SECRET = "whsec_" + base64.b64encode(b"sentinel-failover-secret-32-byte").decode()
CALLS = 200
DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 5000


def poll(predicate: Callable[[], bool], timeout_s: float, what: str, logs: Callable[[], str]) -> float:
    """Seconds until `predicate()` holds, checked every 50 ms; AssertionError with `logs()` past `timeout_s`."""
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > timeout_s:
            raise AssertionError(f"timed out waiting for {what}\n{logs()}")
        time.sleep(0.05)
    return time.monotonic() - started


@dataclass
class SentinelGroup:
    """A primary, its replica and three sentinels monitoring them as SERVICE, all on 127.0.0.1."""

    directory: Path
    primary_port: int
    replica_port: int
    sentinel_ports: list[int]
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"redis+sentinel://{','.join(f'127.0.0.1:{port}' for port in self.sentinel_ports)}/{SERVICE}"

    def named_primary(self) -> int | None:
        """The primary's port if every sentinel names the same one, else None."""
        named: set[int | None] = set()
        for port in self.sentinel_ports:
            try:
                with redis.Redis(port=port, socket_timeout=0.5, socket_connect_timeout=0.5) as client:
                    address = client.sentinel_get_master_addr_by_name(SERVICE)
            except redis.RedisError:
                return None
            named.add(int(address[1]) if isinstance(address, tuple) else None)
        return named.pop() if len(named) == 1 else None

    def watching(self) -> bool:
        """Every sentinel sees the primary up, the replica and the two other sentinels."""
        for port in self.sentinel_ports:
            with redis.Redis(port=port, socket_timeout=0.5) as client:
                state = client.sentinel_master(SERVICE)
            if state["is_sdown"] or state["num-slaves"] != 1 or state["num-other-sentinels"] != 2:
                return False
        return True

    def kill_primary(self) -> float:
        """SIGKILL the primary; the monotonic time it died."""
        primary = self.processes.pop("primary")
        primary.kill()
        primary.wait(timeout=10)
        return time.monotonic()

    def stop(self) -> None:
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-2000:]}" for path in self.directory.glob("*.log")
        )


def start_sentinel(group: SentinelGroup, port: int) -> None:
    binary = shutil.which("redis-sentinel")
    if binary is None:
        raise RuntimeError("redis-sentinel is not installed (Debian: apt-get install redis-sentinel; `make services`)")
    config = group.directory / f"sentinel-{port}.conf"  # sentinel rewrites its config: one writable file each
    config.write_text(
        f"port {port}\nbind 127.0.0.1\ndir {group.directory}\nlogfile {group.directory / f'sentinel-{port}.log'}\n"
        f"sentinel monitor {SERVICE} 127.0.0.1 {group.primary_port} 2\n"
        f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
        f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n",
        encoding="utf-8",
    )
    group.processes[f"sentinel-{port}"] = subprocess.Popen(
        [binary, str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def start_sentinel_group(directory: Path) -> SentinelGroup:
    """The primary, the replica (in sync), then the sentinels, once each sees the others and the replica."""
    group = SentinelGroup(directory, free_port(), free_port(), [free_port() for _ in range(3)])
    directory.mkdir(parents=True, exist_ok=True)
    try:
        # No delay before a full sync: the replica is in sync at once.
        primary_args = ["--repl-diskless-sync-delay", "0"]
        group.processes["primary"], _ = start_redis_server(
            directory / "primary", group.primary_port, appendonly=False, extra_args=primary_args
        )
        replica_args = [*primary_args, "--replicaof", "127.0.0.1", str(group.primary_port)]
        group.processes["replica"], _ = start_redis_server(
            directory / "replica", group.replica_port, appendonly=False, extra_args=replica_args
        )
        replica = redis.Redis(port=group.replica_port)
        poll(lambda: replica.info("replication")["master_link_status"] == "up", 20, "the replica to sync", group.logs)
        for port in group.sentinel_ports:
            start_sentinel(group, port)
        poll(lambda: _answers(group.watching), 30, "the sentinels to see each other", group.logs)
    except BaseException:
        group.stop()
        raise
    return group


def _answers(check: Callable[[], bool]) -> bool:
    try:
        return check()
    except redis.RedisError:  # a sentinel still starting
        return False


@pytest.fixture
def group(tmp_path: Path) -> Iterator[SentinelGroup]:
    started = start_sentinel_group(tmp_path / "redis")
    yield started
    started.stop()


def write_until_it_lands(client: redis.Redis, key: str, value: str, logs: Callable[[], str]) -> float:
    """Seconds until a SET through `client` succeeds (the primary may be gone, or not yet replaced)."""

    def lands() -> bool:
        try:
            return bool(client.set(key, value))
        except (redis.ConnectionError, redis.TimeoutError):  # MasterNotFoundError and ReadOnlyError included
            return False

    return poll(lands, 60, f"a write of {key} to land", logs)


def test_a_sentinel_url_client_follows_the_primary_through_a_failover(group: SentinelGroup) -> None:
    client = connect(group.url, socket_connect_timeout=1.0, socket_timeout=2.0)
    bounded = connect_bounded(group.url, max_connections=2, wait_s=1.0, socket_connect_timeout=1.0, socket_timeout=2.0)
    assert client.set("before", "1")
    assert client.wait(1, 5000) == 1  # on the replica too
    assert client.connection_pool.get_master_address() == ("127.0.0.1", group.primary_port)  # type: ignore[attr-defined]

    killed = group.kill_primary()
    recovered_s = write_until_it_lands(client, "after", "2", group.logs)

    assert group.named_primary() == group.replica_port
    assert client.connection_pool.get_master_address() == ("127.0.0.1", group.replica_port)  # type: ignore[attr-defined]
    assert client.get("before") == b"1"
    assert bounded.get("after") == b"2"  # the bounded client follows too
    assert bounded.info("replication")["role"] == "master"
    print(f"client failover: first write {recovered_s:.2f}s after SIGKILL ({time.monotonic() - killed:.2f}s now)")
    assert recovered_s < 30


def test_a_bounded_sentinel_client_waits_for_one_of_its_connections(group: SentinelGroup) -> None:
    client = connect_bounded(group.url, max_connections=2, wait_s=0.3, socket_connect_timeout=1.0, client_name="x")
    pool = client.connection_pool
    held = [pool.get_connection(), pool.get_connection()]
    assert {(connection.port, connection.client_name) for connection in held} == {(group.primary_port, "x")}
    started = time.monotonic()
    with pytest.raises(redis.ConnectionError, match="No connection available"):
        pool.get_connection()
    assert 0.25 <= time.monotonic() - started < 2.0
    pool.release(held.pop())
    assert client.ping()
    assert len([line for line in client.client_list() if line["name"] == "x"]) == 2


@pytest.fixture
def stack(tmp_path: Path, small_model_dir: Path, group: SentinelGroup) -> Iterator[Stack]:
    deployment = start_product(
        tmp_path / "stack",
        small_model_dir,
        SECRET,
        {
            "TRIAGE_REDIS_URL": group.url,
            "TRIAGE_MAX_NEW_TOKENS": "8",
            "TRIAGE_ENGINE_NUM_BLOCKS": "256",
            "TRIAGE_ENGINE_LEASE_S": "6",
            "TRIAGE_OUTBOX_REDELIVER_S": "4",
            "TRIAGE_RECONCILE_INTERVAL_S": "0.5",
            "TRIAGE_CELERY_VISIBILITY_TIMEOUT_S": "20",
            # Every call is to get the engine's guidance: the queue stalled by the failover must not make the overload
            # shedding answer minor calls with templates (tested on its own: tests/app/incidents/test_overload.py).
            "TRIAGE_SHEDDING_ENABLED": "false",
        },
        own_redis=False,
    )
    try:
        yield deployment
    finally:
        deployment.stop_all()


@dataclass
class Failover:
    """Times from the primary's SIGKILL: the sentinels name the replica; a write through a product client lands."""

    killed: float = 0.0
    named_s: float = 0.0
    writable_s: float = 0.0
    thread: threading.Thread | None = None

    def kill_and_time(self, group: SentinelGroup) -> None:
        """SIGKILL the primary now; time the failover in a thread (the caller goes on posting)."""
        self.killed = group.kill_primary()

        def measure() -> None:
            self.named_s = poll(lambda: group.named_primary() == group.replica_port, 60, "the failover", group.logs)
            client = connect(group.url, socket_connect_timeout=1.0, socket_timeout=5.0)  # as `redis_client`
            write_until_it_lands(client, "failover:probe", "1", group.logs)
            self.writable_s = time.monotonic() - self.killed

        self.thread = threading.Thread(target=measure, daemon=True)
        self.thread.start()


def test_no_call_is_lost_when_the_primary_is_killed_mid_run(stack: Stack, group: SentinelGroup) -> None:
    failover = Failover()

    def kill_midway(answered: int) -> None:
        if answered >= CALLS // 2 and failover.thread is None:
            failover.kill_and_time(group)

    def logs() -> str:
        return f"{stack.logs()}\n{group.logs()}"

    posted = time.monotonic()
    ids = asyncio.run(post_signed_calls(stack.web_port, SECRET, "failover", CALLS, kill_midway))
    assert failover.thread is not None
    posted_s = time.monotonic() - posted
    database = create_engine(stack.database_url)

    poll(all_done(stack.database_url, ids), 150, f"{CALLS} incidents with guidance after the primary's SIGKILL", logs)
    all_done_s = time.monotonic() - failover.killed
    failover.thread.join(timeout=60)
    assert not failover.thread.is_alive() and 0 < failover.named_s <= failover.writable_s, group.logs()
    assert failover.named_s < 15, "the sentinels took too long: down after 1 s, then one election"
    assert_all_served(stack.database_url, ids, "failover", max_tokens=8)
    assert group.named_primary() == group.replica_port
    # Nothing left behind in the new primary's heap: a lease or entry whose ack the old primary took with it is
    # served again and found finished.
    heap = connect(group.url, socket_timeout=5.0)
    drained_s = poll(lambda: heap.hlen("triage:heap:items") == 0, 60, "the heap to drain", logs)
    with database.connect() as connection:
        redelivered = connection.scalar(
            select(func.count()).select_from(Outcome).where(Outcome.incident_id.in_(ids), Outcome.deliveries > 1)
        )
    metrics = httpx.get(f"http://127.0.0.1:{stack.web_port}/metrics", timeout=10).text
    assert f'triage_intake_accepted_total{{source="cad"}} {CALLS}.0' in metrics
    handover_failed = (stack.workdir / "web.log").read_text(errors="replace").count("to the workers yet")
    print(
        f"sentinel failover: {CALLS} calls posted in {posted_s:.1f}s, primary SIGKILLed after {CALLS // 2} answers; "
        f"the sentinels named the replica {failover.named_s:.2f}s after, a write landed {failover.writable_s:.2f}s "
        f"after, all {CALLS} were served {all_done_s:.1f}s after; {handover_failed} hand-overs at intake failed "
        f"(the reconciler sent them again), {redelivered} incidents were taken by the engine more than once; "
        f"the heap was empty {drained_s:.1f}s after the last was served"
    )
