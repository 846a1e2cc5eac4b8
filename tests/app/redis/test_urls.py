"""Redis URLs: the exact parts of a `redis+sentinel://` URL, its refusals (never showing a password), kombu's form of
it, and clients built from it with the same timeouts and bounds as from a plain URL (no server needed)."""

from __future__ import annotations

import pytest
import redis
from pydantic import ValidationError
from redis.sentinel import SentinelConnectionPool

from app.redis.queueing import redis_client, side_redis_client
from app.redis.urls import (
    BlockingSentinelConnectionPool,
    RedisURLError,
    SentinelURL,
    celery_broker,
    check_redis_url,
    connect,
    parse_sentinel_url,
)
from app.settings import Settings
from app.worker.celery_app import make_celery

PASSWORD = "Xq9zK7pLm4Rt"


@pytest.mark.parametrize(
    ("url", "parsed"),
    [
        ("redis+sentinel://s1:26380/mymaster", SentinelURL((("s1", 26380),), "mymaster")),
        (
            "redis+sentinel://10.0.0.1:5000,10.0.0.2,sentinel-3:5002/triage.main/3",
            SentinelURL((("10.0.0.1", 5000), ("10.0.0.2", 26379), ("sentinel-3", 5002)), "triage.main", db=3),
        ),
        (
            f"redis+sentinel://:{PASSWORD}@s1:1,s2:2/triage",
            SentinelURL((("s1", 1), ("s2", 2)), "triage", password=PASSWORD),
        ),
        (
            "redis+sentinel://app:p%40ss%3Aw%2Fd@[::1]:26379,[fd00::2]/triage/0?sentinel_password=s%26p",
            SentinelURL(
                (("::1", 26379), ("fd00::2", 26379)),
                "triage",
                username="app",
                password="p@ss:w/d",
                sentinel_password="s&p",
            ),
        ),
        ("REDIS+SENTINEL://s1/triage?sentinel_password=", SentinelURL((("s1", 26379),), "triage")),
    ],
)
def test_parse_sentinel_url_reads_every_part(url: str, parsed: SentinelURL) -> None:
    assert parse_sentinel_url(url) == parsed
    assert check_redis_url(url) == url


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("redis+sentinel://s1:26379", "names the service after the hosts"),
        ("redis+sentinel://s1:26379/", "names the service after the hosts"),
        ("redis+sentinel:///triage", "names at least one sentinel"),
        (f"redis+sentinel://:{PASSWORD}@/triage", "names at least one sentinel"),
        ("redis+sentinel://s1:26379,,s3/triage", "sentinel 2 is not host:port"),
        ("redis+sentinel://s1:port/triage", "sentinel 1's port is not a number from 1 to 65535"),
        ("redis+sentinel://s1:0/triage", "sentinel 1's port is not a number from 1 to 65535"),
        ("redis+sentinel://s1,s2:70000/triage", "sentinel 2's port is not a number from 1 to 65535"),
        ("redis+sentinel://[::1]x/triage", "sentinel 1's port is not a number"),
        ("redis+sentinel://s1/triage/zero", "the database after the Sentinel service is not a number"),
        ("redis+sentinel://s1/triage/0/extra", "the Sentinel service is one name"),
        ("redis+sentinel://s1/tri age", "the Sentinel service is one name"),
        ("redis+sentinel://s1/triage?db=2", "the only query option of a Sentinel URL is one sentinel_password"),
        ("redis+sentinel://s1/triage?sentinel_password=a&sentinel_password=b", "one sentinel_password"),
        ("redis+sentinel://s1/triage?sentinel_password", "the query is not name=value pairs"),
        ("redis+sentinel://s1/triage#x", "has no '#' part"),
        ("http://cache:6379/0", "the scheme must be redis://, rediss://, unix:// or redis+sentinel://"),
        ("sentinel://s1:26379", "the scheme must be"),
        ("redis://cache:port/0", "not a URL with a numeric port"),
    ],
)
def test_a_malformed_redis_url_is_refused_with_the_reason(url: str, problem: str) -> None:
    with pytest.raises(RedisURLError, match="TRIAGE_REDIS_URL: ") as refused:
        check_redis_url(url)
    assert problem in str(refused.value)


@pytest.mark.parametrize(
    "url",
    [
        # An unencoded '/', '?', '#' or '@' in a password moves the password's tail into another part of the URL.
        f"redis+sentinel://:{PASSWORD[:6]}/{PASSWORD[6:]}@s1:26379/triage",
        f"redis+sentinel://:{PASSWORD[:6]}?{PASSWORD[6:]}@s1:26379/triage",
        f"redis+sentinel://:{PASSWORD[:6]}#{PASSWORD[6:]}@s1:26379/triage",
        f"redis+sentinel://:{PASSWORD}@s1:{PASSWORD}/triage",
        f"redis+sentinel://s1/triage?sentinel_password={PASSWORD}&{PASSWORD}=1",
        f"redis+sentinel://:{PASSWORD}@s1/triage/{PASSWORD}",
        f"https://:{PASSWORD}@cache:6379/0",
    ],
)
def test_a_refused_redis_url_never_shows_its_password(url: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(redis_url=url)
    message = str(refused.value)
    assert "TRIAGE_REDIS_URL" in message
    assert [PASSWORD[i : i + 4] for i in range(len(PASSWORD) - 3) if PASSWORD[i : i + 4] in message] == []


@pytest.mark.parametrize(
    "url",
    [
        "redis://cache:6379/0",
        f"rediss://:{PASSWORD}@cache:6380/1",
        "unix:///run/redis/redis.sock?db=2",
        f"redis+sentinel://:{PASSWORD}@s1:26379,s2:26379,s3:26379/triage/0",
    ],
)
def test_settings_accept_plain_and_sentinel_urls(url: str) -> None:
    assert Settings(redis_url=url).redis_url == url


def test_celery_gets_kombus_sentinel_transport_for_a_sentinel_url() -> None:
    url = "redis+sentinel://app:p%40ss@s1:26380,[::1]/triage/2?sentinel_password=s%26p"
    assert celery_broker(url) == (
        "sentinel://app:p%40ss@s1:26380/2;sentinel://app:p%40ss@[::1]:26379/2",
        {"master_name": "triage", "sentinel_kwargs": {"password": "s&p"}},
    )
    assert celery_broker("redis+sentinel://s1/triage") == ("sentinel://s1:26379/0", {"master_name": "triage"})
    assert celery_broker("redis://cache:6379/0") == ("redis://cache:6379/0", {})


def test_the_celery_app_uses_the_sentinel_transport_and_keeps_its_options() -> None:
    celery = make_celery(Settings(redis_url="redis+sentinel://s1:26380,s2:26381/triage", celery_visibility_timeout_s=7))
    assert celery.conf.broker_url == "sentinel://s1:26380/0;sentinel://s2:26381/0"
    assert celery.conf.broker_transport_options == {"visibility_timeout": 7, "master_name": "triage"}
    assert celery.conf.task_acks_late is True
    with celery.connection_for_write() as connection:  # kombu reads the form: three parts, the sentinel transport
        assert connection.transport_cls == "sentinel"
        assert connection.alt == ["sentinel://s1:26380/0", "sentinel://s2:26381/0"]


def test_a_sentinel_client_keeps_the_plain_clients_timeouts() -> None:
    plain = redis_client("redis://cache:6379/0")
    sentinel = redis_client("redis+sentinel://s1,s2/triage/1")
    pool = sentinel.connection_pool
    assert type(pool) is SentinelConnectionPool
    assert (pool.service_name, pool.is_master, pool.connection_kwargs["db"]) == ("triage", True, 1)
    for option in ("socket_connect_timeout", "socket_timeout", "health_check_interval"):
        assert pool.connection_kwargs[option] == plain.connection_pool.connection_kwargs[option], option
    sentinels = pool.sentinel_manager.sentinels
    assert [
        (s.connection_pool.connection_kwargs["host"], s.connection_pool.connection_kwargs["port"]) for s in sentinels
    ] == [
        ("s1", 26379),
        ("s2", 26379),
    ]
    assert {s.connection_pool.connection_kwargs["socket_timeout"] for s in sentinels} == {5.0}


def test_a_bounded_sentinel_client_keeps_the_bound_and_the_waits() -> None:
    plain = side_redis_client("redis://cache:6379/0", 1.0, answer_s=2.0, client_name="triage-readyz")
    url = f"redis+sentinel://:{PASSWORD}@s1/triage?sentinel_password=sp"
    sentinel = side_redis_client(url, 1.0, answer_s=2.0, client_name="triage-readyz")
    pool = sentinel.connection_pool
    assert isinstance(pool, BlockingSentinelConnectionPool) and isinstance(pool, redis.BlockingConnectionPool)
    assert isinstance(plain.connection_pool, redis.BlockingConnectionPool)
    assert (pool.max_connections, pool.timeout) == (plain.connection_pool.max_connections, 1.0) == (2, 1.0)
    for option in ("socket_connect_timeout", "socket_timeout", "client_name"):
        assert pool.connection_kwargs[option] == plain.connection_pool.connection_kwargs[option], option
    assert pool.connection_kwargs["password"] == PASSWORD
    (only,) = pool.sentinel_manager.sentinels
    assert only.connection_pool.connection_kwargs["password"] == "sp"
    assert only.connection_pool.connection_kwargs["socket_timeout"] == 2.0


def test_a_plain_url_gives_redis_pys_own_client() -> None:
    client = connect("redis://:pw@cache:6390/4", socket_timeout=3.0)
    kwargs = client.connection_pool.connection_kwargs
    assert type(client.connection_pool) is redis.ConnectionPool
    assert (kwargs["host"], kwargs["port"], kwargs["db"], kwargs["password"], kwargs["socket_timeout"]) == (
        "cache",
        6390,
        4,
        "pw",
        3.0,
    )
