"""The sign-in throttle: per account and per client, in a sliding window, the same in memory and in Redis."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.auth.signin_throttle import (
    Attempt,
    FailureStore,
    MemoryFailureStore,
    RedisFailureStore,
    SignInThrottle,
    ThrottleConfig,
    retry_after_s,
    throttle_for,
)
from app.redis.local import free_port
from app.redis.queueing import redis_client
from app.settings import Settings


class Clock:
    """A clock the test moves."""

    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis", "redis-down"])
def make_store(request: pytest.FixtureRequest) -> Callable[[], FailureStore]:
    """Each kind of store: in memory, in a real Redis, and in a Redis that does not answer (counted in memory)."""
    if request.param == "memory":
        return MemoryFailureStore
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        return lambda: RedisFailureStore(redis_client(url))
    return lambda: RedisFailureStore(redis_client(f"redis://127.0.0.1:{free_port()}/0"))


def throttle(store: FailureStore, clock: Clock, account: int = 10, client: int = 30) -> SignInThrottle:
    return SignInThrottle(store, ThrottleConfig(account, client, 60.0), prefix=f"t-{uuid.uuid4().hex}", clock=clock)


def test_retry_after_counts_from_the_failure_that_must_age_out() -> None:
    assert retry_after_s([1.0, 2.0], limit=3, window_s=60.0, now=10.0) == 0
    assert retry_after_s([1.0, 2.0, 3.0], limit=3, window_s=60.0, now=10.0) == 51
    assert retry_after_s([1.0, 2.0, 3.0, 4.0], limit=3, window_s=60.0, now=10.0) == 52
    assert retry_after_s([1.0, 2.0, 3.0], limit=3, window_s=60.0, now=60.5) == 1


def test_ten_failures_refuse_the_account_until_the_first_ages_out(make_store: Callable[[], FailureStore]) -> None:
    clock = Clock()
    gate = throttle(make_store(), clock)
    for _ in range(9):
        gate.failed("dana", "10.0.0.1")
        clock.now += 1.0
    assert gate.retry_after("dana", "10.0.0.1") == 0
    gate.failed("dana", "10.0.0.1")  # the tenth, at 1009
    assert gate.retry_after("dana", "10.0.0.1") == 51  # the first (1000) leaves the window at 1060
    assert gate.retry_after("dana", "10.0.0.2") == 51  # any client: the account is the one guessed at
    assert gate.retry_after("sam", "10.0.0.1") == 0
    clock.now = 1_060.0
    assert gate.retry_after("dana", "10.0.0.1") == 0


def test_a_success_clears_the_account_but_not_the_client(make_store: Callable[[], FailureStore]) -> None:
    clock = Clock()
    gate = throttle(make_store(), clock, account=3, client=4)
    for _ in range(3):
        gate.failed("dana", "10.0.0.1")
    assert gate.retry_after("dana", "10.0.0.9") == 60
    gate.succeeded("dana")
    assert gate.retry_after("dana", "10.0.0.9") == 0
    gate.failed("sam", "10.0.0.1")  # the client's fourth failure
    assert gate.retry_after("lee", "10.0.0.1") == 60
    assert gate.retry_after("lee", "10.0.0.2") == 0


def test_thirty_failures_from_one_client_over_many_accounts_refuse_that_client(
    make_store: Callable[[], FailureStore],
) -> None:
    clock = Clock()
    gate = throttle(make_store(), clock)
    for index in range(30):
        gate.failed(f"user-{index}", "10.0.0.1")
    assert [gate.retry_after(f"user-{index}", "10.0.0.1") for index in (0, 29, 30)] == [60, 60, 60]
    assert gate.retry_after("user-30", "10.0.0.2") == 0


def test_the_memory_store_drops_accounts_with_no_failure_left_in_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MemoryFailureStore, "MAX_KEYS", 3)
    store = MemoryFailureStore()
    for index in range(3):
        store.add(f"old-{index}", 0.0, 60.0)
    store.add("new", 100.0, 60.0)  # a fourth key: the three old ones have aged out
    assert store._times.keys() == {"new"}
    assert store.failures("new", 40.0) == [100.0]


def test_the_settings_choose_the_limits_and_redis_is_shared_where_memory_is_not(redis_url: str) -> None:
    clock = Clock()
    prefix = f"t-{uuid.uuid4().hex}"
    shared = Settings(signin_account_failures=2, signin_window_s=30.0, redis_url=redis_url, queue_prefix=prefix)
    first, second = throttle_for(shared, clock), throttle_for(shared, clock)  # two web processes, one Redis
    first.failed("dana", "10.0.0.1")
    second.failed("dana", "10.0.0.2")
    assert (first.retry_after("dana", "10.0.0.3"), second.retry_after("dana", "10.0.0.3")) == (30, 30)
    alone = Settings(signin_account_failures=2, signin_window_s=30.0)
    first, second = throttle_for(alone, clock), throttle_for(alone, clock)
    first.failed("dana", "10.0.0.1")
    second.failed("dana", "10.0.0.2")
    assert (first.retry_after("dana", "10.0.0.3"), second.retry_after("dana", "10.0.0.3")) == (0, 0)


def test_a_throttle_without_limits_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1 failure"):
        ThrottleConfig(account_failures=0)
    with pytest.raises(ValueError, match="positive window"):
        ThrottleConfig(window_s=0.0)


def test_parallel_attempts_never_get_past_the_limit(make_store: Callable[[], FailureStore]) -> None:
    gate = throttle(make_store(), Clock(), account=10)
    barrier = threading.Barrier(24)

    def attempt(index: int) -> Attempt:
        barrier.wait()
        return gate.begin("dana", f"10.0.0.{index}")

    with ThreadPoolExecutor(max_workers=24) as pool:
        attempts = list(pool.map(attempt, range(24)))
    assert sorted(a.retry_after_s for a in attempts) == [0] * 10 + [60] * 14  # checking then recording let 24 by
    assert gate.retry_after("dana", "10.0.0.99") == 60  # the ten let through count until they succeed


def test_a_refused_attempt_is_not_counted_and_a_success_takes_back_its_client_failure(
    make_store: Callable[[], FailureStore],
) -> None:
    clock = Clock()
    gate = throttle(make_store(), clock, account=2, client=3)
    first = gate.begin("dana", "10.0.0.1")
    second = gate.begin("dana", "10.0.0.1")
    assert (first.retry_after_s, second.retry_after_s) == (0, 0)
    assert gate.begin("dana", "10.0.0.1").retry_after_s == 60  # refused: not a third failure of the client
    gate.succeeded("dana", second)  # the right password on the second try
    assert gate.retry_after("dana", "10.0.0.1") == 0
    assert gate.begin("lee", "10.0.0.1").retry_after_s == 0  # the client holds one failure (the first)
    assert gate.begin("sam", "10.0.0.1").retry_after_s == 0
    assert gate.begin("kim", "10.0.0.1").retry_after_s == 60
