"""Redis URLs, plain or Sentinel (`redis+sentinel://`): checked, parsed and turned into clients in one place."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Any, cast
from urllib.parse import parse_qs, quote, unquote, urlsplit

import redis
from pydantic import AfterValidator
from redis.sentinel import Sentinel, SentinelConnectionPool

SENTINEL_SCHEME = "redis+sentinel"
PLAIN_SCHEMES = ("redis", "rediss", "unix")
DEFAULT_SENTINEL_PORT = 26379
SENTINEL_FORM = "redis+sentinel://[[user]:password@]host:port[,host:port...]/service[/db][?sentinel_password=...]"
"""The one Sentinel form we read: the password is the Redis servers' (primary and replicas), `sentinel_password`
the sentinels' own (when they have `requirepass`); a port left out is 26379."""

_ENCODE_HINT = "percent-encode '@', ':', '/', '?' and '#' in a password"
_NAME = re.compile(r"[A-Za-z0-9._-]+")
"""A host name or IPv4 address, and a service name."""
_IPV6 = re.compile(r"\[([0-9A-Fa-f:.]+)\]")
_SENTINEL_OPTIONS = ("socket_connect_timeout", "socket_timeout", "socket_keepalive")
"""The connection options the sentinels' own connections share with the clients' (timeouts bound both)."""


class RedisURLError(ValueError):
    """A Redis URL that cannot be used. The message says what is wrong and never quotes the URL (it may hold a
    password)."""


@dataclass(frozen=True)
class SentinelURL:
    """A parsed `redis+sentinel://` URL."""

    sentinels: tuple[tuple[str, int], ...]
    """The sentinels to ask for the current primary, in the URL's order."""
    service: str
    """The name the sentinels monitor the primary under (`sentinel monitor <service> ...`)."""
    db: int = 0
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    """The Redis servers' password."""
    sentinel_password: str | None = field(default=None, repr=False)
    """The sentinels' password."""


def is_sentinel_url(url: str) -> bool:
    return url.lower().startswith(f"{SENTINEL_SCHEME}://")


def check_redis_url(url: str) -> str:
    """`url` unchanged if it is a plain Redis URL or a well-formed Sentinel URL; RedisURLError otherwise."""
    if is_sentinel_url(url):
        parse_sentinel_url(url)
        return url
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise RedisURLError("TRIAGE_REDIS_URL: not a URL with a numeric port") from None
    if parts.scheme.lower() not in PLAIN_SCHEMES:
        raise RedisURLError("TRIAGE_REDIS_URL: the scheme must be redis://, rediss://, unix:// or redis+sentinel://")
    return url


RedisURL = Annotated[str, AfterValidator(check_redis_url)]
"""A setting holding a Redis URL, checked by `check_redis_url` when the settings are read."""


def parse_sentinel_url(url: str) -> SentinelURL:
    """The parts of a `redis+sentinel://` URL (`SENTINEL_FORM`); RedisURLError names the part that is wrong."""
    if not is_sentinel_url(url):
        raise RedisURLError(f"TRIAGE_REDIS_URL: not a Sentinel URL ({SENTINEL_FORM})")
    parts = urlsplit(url)
    if parts.fragment:
        raise RedisURLError(f"TRIAGE_REDIS_URL: a Sentinel URL has no '#' part ({_ENCODE_HINT})")
    userinfo, _, hosts = parts.netloc.rpartition("@")
    username, _, password = userinfo.partition(":")
    service, db = _service_and_db(parts.path)
    return SentinelURL(
        sentinels=_sentinel_hosts(hosts),
        service=service,
        db=db,
        username=unquote(username) or None,
        password=unquote(password) or None,
        sentinel_password=_sentinel_password(parts.query),
    )


def _sentinel_hosts(hosts: str) -> tuple[tuple[str, int], ...]:
    if not hosts:
        raise RedisURLError(f"TRIAGE_REDIS_URL: a Sentinel URL names at least one sentinel ({SENTINEL_FORM})")
    found: list[tuple[str, int]] = []
    for number, address in enumerate(hosts.split(","), start=1):
        ipv6 = _IPV6.match(address)
        if ipv6 is not None:  # [IPv6]:port
            host, port = ipv6.group(1), address[ipv6.end() :].removeprefix(":")
        else:
            host, _, port = address.partition(":")
        if not (ipv6 or _NAME.fullmatch(host)):
            raise RedisURLError(
                f"TRIAGE_REDIS_URL: sentinel {number} is not host:port ({SENTINEL_FORM}; {_ENCODE_HINT})"
            )
        if port and not (port.isdigit() and 0 < int(port) < 65536):
            raise RedisURLError(f"TRIAGE_REDIS_URL: sentinel {number}'s port is not a number from 1 to 65535")
        found.append((host, int(port) if port else DEFAULT_SENTINEL_PORT))
    return tuple(found)


def _service_and_db(path: str) -> tuple[str, int]:
    names = path.split("/")[1:]
    if not names or not names[0]:
        raise RedisURLError(f"TRIAGE_REDIS_URL: a Sentinel URL names the service after the hosts ({SENTINEL_FORM})")
    if len(names) > 2 or not _NAME.fullmatch(names[0]):
        raise RedisURLError(
            "TRIAGE_REDIS_URL: the Sentinel service is one name of letters, digits, '.', '_' or '-', "
            f"then at most a database number ({SENTINEL_FORM}; {_ENCODE_HINT})"
        )
    if len(names) == 2 and not names[1].isdigit():
        raise RedisURLError("TRIAGE_REDIS_URL: the database after the Sentinel service is not a number")
    return names[0], int(names[1]) if len(names) == 2 else 0


def _sentinel_password(query: str) -> str | None:
    try:
        options = parse_qs(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise RedisURLError(f"TRIAGE_REDIS_URL: the query is not name=value pairs ({_ENCODE_HINT})") from None
    if set(options) - {"sentinel_password"} or any(len(values) > 1 for values in options.values()):
        raise RedisURLError("TRIAGE_REDIS_URL: the only query option of a Sentinel URL is one sentinel_password")
    return options.get("sentinel_password", [""])[0] or None


class BlockingSentinelConnectionPool(SentinelConnectionPool, redis.BlockingConnectionPool):
    """redis-py's Sentinel pool (connections to the primary the sentinels name now) with the blocking pool's bound:
    at most `max_connections`, and a caller waits up to `timeout` for a free one instead of opening another."""


def _sentinel(url: SentinelURL, options: dict[str, Any]) -> Sentinel:
    sentinel_options = {name: options[name] for name in _SENTINEL_OPTIONS if name in options}
    if url.sentinel_password is not None:
        sentinel_options["password"] = url.sentinel_password
    return Sentinel(list(url.sentinels), sentinel_kwargs=sentinel_options)  # type: ignore[no-untyped-call]


def _primary(url: SentinelURL, pool_class: type[SentinelConnectionPool], **options: Any) -> redis.Redis:
    """A client of the service's current primary: each new connection asks the sentinels where it is, and a
    connection to a demoted primary is dropped."""
    client = _sentinel(url, options).master_for(  # type: ignore[no-untyped-call]
        url.service,
        connection_pool_class=pool_class,
        db=url.db,
        username=url.username,
        password=url.password,
        **options,
    )
    return cast(redis.Redis, client)


def connect(url: str, **options: Any) -> redis.Redis:
    """A client for `url` with these connection options (timeouts, health checks, name): `Redis.from_url` for a
    plain URL, the current primary through the sentinels for a Sentinel URL."""
    if not is_sentinel_url(url):
        return redis.Redis.from_url(url, **options)
    return _primary(parse_sentinel_url(url), SentinelConnectionPool, **options)


def connect_bounded(url: str, max_connections: int, wait_s: float, **options: Any) -> redis.Redis:
    """Like `connect`, on a blocking pool: at most `max_connections` connections, and a caller waits at most
    `wait_s` for a free one (then `redis.ConnectionError`)."""
    if not is_sentinel_url(url):
        pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=wait_s, **options)
        return redis.Redis(connection_pool=pool)
    bounds = {"max_connections": max_connections, "timeout": wait_s}
    return _primary(parse_sentinel_url(url), BlockingSentinelConnectionPool, **bounds, **options)


def celery_broker(url: str) -> tuple[str, dict[str, Any]]:
    """The broker URL and transport options Celery (kombu) takes for `url`: a plain URL as it is; a Sentinel URL as
    kombu's `sentinel://` transport, one `sentinel://` URL per sentinel joined by ';', the service as `master_name`
    and the sentinels' password in `sentinel_kwargs`."""
    if not is_sentinel_url(url):
        return url, {}
    parsed = parse_sentinel_url(url)
    userinfo = quote(parsed.username or "", safe="")
    if parsed.password is not None:
        userinfo += ":" + quote(parsed.password, safe="")
    userinfo += "@" if userinfo else ""
    hosts = [f"[{host}]" if ":" in host else host for host, _ in parsed.sentinels]
    broker = ";".join(
        f"sentinel://{userinfo}{host}:{port}/{parsed.db}"
        for host, (_, port) in zip(hosts, parsed.sentinels, strict=True)
    )
    options: dict[str, Any] = {"master_name": parsed.service}
    if parsed.sentinel_password is not None:
        options["sentinel_kwargs"] = {"password": parsed.sentinel_password}
    return broker, options
