"""A live call's event windows ("600/minute;120/10 seconds") checked and counted in one Redis round trip.

The `limits` library checks one window per call (one Lua script each, then a second script for a refused window's
reset time): three round trips for an event refused by its second window, two for every accepted one. A live call
sends one to three events a second, so this was a quarter of intake's Redis work (issue 31). One script here checks
every window first and counts the event in all of them only if each has room, the moving window of `limits` (a list
of the last `limit` timestamps per window, newest first) with the same answer: a refused event is counted in none."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem

from app.redis import keys

CHECK_AND_COUNT = """
local now = tonumber(ARGV[1])
for i = 1, #KEYS do
    local limit = tonumber(ARGV[2 * i])
    local expiry = tonumber(ARGV[2 * i + 1])
    local oldest = redis.call('lindex', KEYS[i], limit - 1)
    if oldest and tonumber(oldest) >= now - expiry then
        return {i, oldest}
    end
end
for i = 1, #KEYS do
    local limit = tonumber(ARGV[2 * i])
    redis.call('lpush', KEYS[i], ARGV[1])
    redis.call('ltrim', KEYS[i], 0, limit - 1)
    redis.call('expire', KEYS[i], tonumber(ARGV[2 * i + 1]))
end
return {0, ''}
"""
"""KEYS: one list per window; ARGV: now, then each window's limit and length in seconds. {0, ''} when counted, else
{the full window's number from 1, the timestamp whose expiry gives it room again}."""


@dataclass(frozen=True, slots=True)
class WindowFull:
    """The event was refused: `window` is full until `until` (epoch seconds)."""

    window: RateLimitItem
    until: float


class CallWindows:
    """A call's windows in Redis (`keys.live_call_window`) under the queue prefix."""

    def __init__(self, client: Any, prefix: str, windows: list[RateLimitItem]) -> None:
        self.windows = windows
        self._prefix = prefix
        self._script = client.register_script(CHECK_AND_COUNT)

    def hit(self, identity: str, now: float) -> WindowFull | None:
        """Count one event of `identity` in every window, or none if one is full (redis.RedisError if Redis is away)."""
        names = [keys.live_call_window(self._prefix, identity, item.key_for()) for item in self.windows]
        args: list[float | int] = [now]
        for item in self.windows:
            args += [item.amount, item.get_expiry()]
        number, oldest = self._script(keys=names, args=args)
        if int(number) == 0:
            return None
        item = self.windows[int(number) - 1]
        return WindowFull(item, float(oldest) + item.get_expiry())
