"""The semantic heap shared by processes and machines: Redis sorted sets, atomic pop-with-lease in Lua.

Keys (under a prefix): `queue`, a sorted set of waiting items scored by the policy's key encoded as one integer
(`scheduler.policy.encode_priority`, the same integer vLLM's `priority` carries; its last digit is the ESI level),
members `"<arrival µs, 20 digits>|<id>"` so equal scores go by arrival; `leases`, a sorted set of
leased ids scored by lease expiry (Redis server time, ms); `items`, a hash id -> JSON (level, estimate, arrival,
score, the score while overloaded, member, source, consumer, deliveries); `overload`, present while the queue is
overloaded (`set_overloaded`: waiting items are then scored by `PolicyOptions.when_overloaded`). Fair share by
source inside an ESI level (`scheduler.fair_share`): `queue:<level>:<source>`, each source's waiting items of a
level (the same members and scores as `queue`); `sources`, every source seen; `served`, a hash of each source's
count of items taken per level (`<level>|<source>`) and each level's clock (`<level>`). Every operation
that touches more than one key is one Lua script, so a crashed client leaves no half-done state, and expired leases
go back to the queue (at their current key) before every pop: a consumer that dies loses nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from scheduler.fair_share import HALF_BAND, Waiting, take_order
from scheduler.policy import DEFAULT_POLICY, ESI_LEVELS, KeyView, PolicyOptions, encode_priority, get_policy

ARRIVAL_DIGITS = 20

_NOW = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
"""

_SCORE = """
local function score_for(item)
  if item.overload_score and redis.call('EXISTS', KEYS[4]) == 1 then return item.overload_score end
  return item.score
end
-- Each source's own queue per ESI level (the same scores), for fair share (`scheduler.fair_share`).
local function source_queue(item)
  return KEYS[1] .. ':' .. tostring(item.esi_level) .. ':' .. (item.source or '')
end
local function served_field(level, source)
  return tostring(level) .. '|' .. source
end
local function rescore(item)
  local score = score_for(item)
  redis.call('ZADD', KEYS[1], score, item.member)
  redis.call('ZADD', source_queue(item), score, item.member)
end
local function enqueue(item)
  local own = source_queue(item)
  if redis.call('ZCARD', own) == 0 then
    -- The source starts (again) at the level's clock: an idle spell earns no burst.
    local field = served_field(item.esi_level, item.source or '')
    local clock = tonumber(redis.call('HGET', KEYS[6], tostring(item.esi_level)) or '0')
    if tonumber(redis.call('HGET', KEYS[6], field) or '0') < clock then redis.call('HSET', KEYS[6], field, clock) end
  end
  redis.call('SADD', KEYS[5], item.source or '')
  rescore(item)
end
local function dequeue(item)
  redis.call('ZREM', source_queue(item), item.member)
  return redis.call('ZREM', KEYS[1], item.member)
end
"""

_REQUEUE_EXPIRED = (
    _NOW
    + _SCORE
    + """
local function requeue_expired(queue, leases, items, now)
  local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
  for _, id in ipairs(expired) do
    redis.call('ZREM', leases, id)
    local raw = redis.call('HGET', items, id)
    if raw then
      local item = cjson.decode(raw)
      item.consumer = ''
      redis.call('HSET', items, id, cjson.encode(item))
      enqueue(item)
    end
  end
  return #expired
end
"""
)

_PUSH = (
    _SCORE
    + """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: id, json item. Returns 1 if added, 0 if the id is
-- already waiting or leased.
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 0 end
local item = cjson.decode(ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
enqueue(item)
return 1
"""
)

_PUSH_LEASED = (
    _NOW
    + """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: id, json item (consumer set), lease ms. Re-creates
-- an item under a lease (a consumer still serving it after Redis lost it); 0 if the id is already known.
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], now_ms() + tonumber(ARGV[3]), ARGV[1])
return 1
"""
)

_POP_LEASE = (
    _REQUEUE_EXPIRED
    + """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: lease ms, consumer, max level (0 = any). Returns the
-- item JSON or nil. The head's level and band are taken; within them, the source served least often goes first
-- (ties: the better score, then the earlier member), as `scheduler.fair_share.next_call` says.
local now = now_ms()
requeue_expired(KEYS[1], KEYS[2], KEYS[3], now)
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #head == 0 then return false end
local head_score = tonumber(head[2])
local level = head_score % 10
local max_level = tonumber(ARGV[3])
if max_level > 0 and level > max_level then return false end
local band = math.floor(head_score / """
    + str(HALF_BAND)
    + """)
local low, high = band * """
    + str(HALF_BAND)
    + """, (band + 1) * """
    + str(HALF_BAND)
    + """
local best = cjson.decode(redis.call('HGET', KEYS[3], string.sub(head[1], 22)))
local best_source = best.source or ''
local best_served = tonumber(redis.call('HGET', KEYS[6], served_field(level, best_source)) or '0')
local best_score, best_member = head_score, head[1]
for _, source in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  if source ~= best_source then
    local offer = redis.call(
      'ZRANGEBYSCORE', KEYS[1] .. ':' .. tostring(level) .. ':' .. source, low, '(' .. high, 'WITHSCORES', 'LIMIT', 0, 1
    )
    if #offer > 0 then
      local served = tonumber(redis.call('HGET', KEYS[6], served_field(level, source)) or '0')
      local score = tonumber(offer[2])
      if served < best_served or (served == best_served and (score < best_score or
          (score == best_score and offer[1] < best_member))) then
        best = cjson.decode(redis.call('HGET', KEYS[3], string.sub(offer[1], 22)))
        best_source, best_served, best_score, best_member = source, served, score, offer[1]
      end
    end
  end
end
dequeue(best)
redis.call('HSET', KEYS[6], served_field(level, best_source), best_served + 1)
local clock = tonumber(redis.call('HGET', KEYS[6], tostring(level)) or '0')
if best_served > clock then redis.call('HSET', KEYS[6], tostring(level), best_served) end
best.consumer = ARGV[2]
best.deliveries = (best.deliveries or 0) + 1
local encoded = cjson.encode(best)
redis.call('HSET', KEYS[3], best.id, encoded)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), best.id)
return encoded
"""
)

_REQUEUE = (
    _REQUEUE_EXPIRED
    + """
-- KEYS: queue, leases, items, overload, sources, served. Returns how many expired leases went back to the queue.
return requeue_expired(KEYS[1], KEYS[2], KEYS[3], now_ms())
"""
)

_OWNED = """
local raw = redis.call('HGET', KEYS[3], ARGV[1])
if not raw then return nil end
local item = cjson.decode(raw)
if item.consumer ~= ARGV[2] or not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return nil end
"""

_ACK = (
    """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: id, consumer. Removes a leased item for good; 0 if
-- not leased by this consumer.
local function run()
"""
    + _OWNED
    + """
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
end
return run() or 0
"""
)

_RENEW = (
    _NOW
    + """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: id, consumer, lease ms. 0 if the lease is no
-- longer this consumer's.
local function run()
"""
    + _OWNED
    + """
redis.call('ZADD', KEYS[2], 'XX', now_ms() + tonumber(ARGV[3]), ARGV[1])
return 1
end
return run() or 0
"""
)

_RELEASE = (
    _SCORE
    + """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: id, consumer, uncount (1: this delivery does not
-- count). Puts a
-- leased item back in the queue at once.
local function run()
"""
    + _OWNED
    + """
redis.call('ZREM', KEYS[2], ARGV[1])
item.consumer = ''
if ARGV[3] == '1' and (item.deliveries or 0) > 0 then item.deliveries = item.deliveries - 1 end
redis.call('HSET', KEYS[3], ARGV[1], cjson.encode(item))
enqueue(item)
return 1
end
return run() or 0
"""
)

_OVERRIDE = (
    _SCORE
    + """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: id, level, score, overload score, facts JSON ('' to
-- keep them). Returns 'waiting', 'leased' or 'absent'.
local raw = redis.call('HGET', KEYS[3], ARGV[1])
if not raw then return 'absent' end
local item = cjson.decode(raw)
local waiting = dequeue(item) == 1
item.esi_level = tonumber(ARGV[2])
item.score = ARGV[3]
item.overload_score = ARGV[4]
if ARGV[5] and ARGV[5] ~= '' then item.facts = cjson.decode(ARGV[5]) end
redis.call('HSET', KEYS[3], ARGV[1], cjson.encode(item))
if waiting then
  enqueue(item)
  return 'waiting'
end
return 'leased'
"""
)

_SET_OVERLOADED = (
    _SCORE
    + """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: '1' (overloaded, and since when) or '0', the last
-- projected miss.
-- Returns 1 if the mode changed (every waiting item then re-scored), else 0.
local was = redis.call('EXISTS', KEYS[4]) == 1
local now = ARGV[1] == '1'
if now then redis.call('SET', KEYS[4], ARGV[2]) else redis.call('DEL', KEYS[4]) end
if was == now then return 0 end
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local raw = redis.call('HGET', KEYS[3], string.sub(member, 22))
  if raw then rescore(cjson.decode(raw)) end
end
return 1
"""
)

_REMOVE = (
    _SCORE
    + """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: id. Returns 1 if it was there.
local raw = redis.call('HGET', KEYS[3], ARGV[1])
if not raw then return 0 end
local item = cjson.decode(raw)
dequeue(item)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
"""
)

_TAKE_WAITING = (
    _SCORE
    + """
-- KEYS: queue, leases, items, overload, sources, served; ARGV: id. Removes the item only if it is waiting (not
-- leased): its JSON, else false.
local raw = redis.call('HGET', KEYS[3], ARGV[1])
if not raw then return false end
local item = cjson.decode(raw)
if dequeue(item) == 0 then return false end
redis.call('HDEL', KEYS[3], ARGV[1])
return raw
"""
)


def score_of(
    esi_level: int, est_remaining_s: float, policy: str = DEFAULT_POLICY, options: PolicyOptions | None = None
) -> int:
    """The sorted-set score: the policy's key at intake (or override), encoded (`policy.encode_priority`).

    A sorted set keeps a score until it is written again, so aging and deadline windows, which change a key with
    the clock, act in the engine's scheduler, where every waiting request is re-keyed when its key changes."""
    if esi_level not in ESI_LEVELS:
        raise ValueError(f"esi_level must be 1..5, got {esi_level}")
    if est_remaining_s < 0:
        raise ValueError(f"est_remaining_s must be >= 0, got {est_remaining_s}")
    view = KeyView(esi_level=esi_level, est_remaining_s=est_remaining_s)
    return encode_priority(get_policy(policy).key(view, options or PolicyOptions(), 0.0))


@dataclass(frozen=True, slots=True)
class CallFacts:
    """What the engine needs of a call besides its words, carried with its lease so that the engine worker does not
    read them again from the database: the red flags, the protocol card, the language, the answer-length estimate."""

    flags: tuple[str, ...] = ()
    card_id: str | None = None
    card_language: str | None = None
    language: str = "en"
    predicted_output_tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "flags": list(self.flags),
            "card_id": self.card_id,
            "card_language": self.card_language,
            "language": self.language,
            "predicted_output_tokens": self.predicted_output_tokens,
        }

    @classmethod
    def from_json(cls, data: Any) -> CallFacts | None:
        if not isinstance(data, dict):
            return None
        flags = data.get("flags")  # Lua's cjson writes an empty list back as {}
        return cls(
            flags=tuple(str(flag) for flag in flags) if isinstance(flags, list) else (),
            card_id=data.get("card_id") or None,
            card_language=data.get("card_language") or None,
            language=str(data.get("language") or "en"),
            predicted_output_tokens=int(data.get("predicted_output_tokens") or 0),
        )


@dataclass(frozen=True, slots=True)
class HeapItem:
    """A queued incident as the heap keeps it."""

    incident_id: str
    esi_level: int
    est_remaining_s: float
    arrival_us: int
    deliveries: int = 0
    consumer: str = ""
    source: str = ""
    """Who sent it (the intake source): fair share interleaves sources within an ESI level."""
    facts: CallFacts | None = None
    """The call's facts as classification left them (None for an item pushed without them)."""

    @classmethod
    def from_json(cls, raw: str | bytes) -> HeapItem:
        data = json.loads(raw)
        return cls(
            incident_id=str(data["id"]),
            esi_level=int(data["esi_level"]),
            est_remaining_s=float(data["est_remaining_s"]),
            arrival_us=int(data["arrival_us"]),
            deliveries=int(data.get("deliveries", 0)),
            consumer=str(data.get("consumer", "")),
            source=str(data.get("source", "")),
            facts=CallFacts.from_json(data.get("facts")),
        )


def heap_keys(prefix: str) -> list[str]:
    """The heap's Redis keys under `prefix`, in the order its scripts take them (KEYS[1..6])."""
    return [f"{prefix}:heap:{name}" for name in ("queue", "leases", "items", "overload", "sources", "served")]


class RedisSemanticHeap:
    """Waiting incidents ordered by the policy's key (then arrival), leased to consumers."""

    def __init__(
        self, client: Any, prefix: str = "triage", policy: str = DEFAULT_POLICY, options: PolicyOptions | None = None
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.policy = get_policy(policy).name
        self.options = options or PolicyOptions()
        self.keys = heap_keys(prefix)
        self._push = client.register_script(_PUSH)
        self._pop = client.register_script(_POP_LEASE)
        self._push_leased = client.register_script(_PUSH_LEASED)
        self._requeue = client.register_script(_REQUEUE)
        self._ack = client.register_script(_ACK)
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._override = client.register_script(_OVERRIDE)
        self._remove = client.register_script(_REMOVE)
        self._take_waiting = client.register_script(_TAKE_WAITING)
        self._set_overloaded = client.register_script(_SET_OVERLOADED)

    def push(
        self,
        incident_id: str,
        esi_level: int,
        est_remaining_s: float,
        arrival_us: int,
        source: str = "",
        facts: CallFacts | None = None,
    ) -> bool:
        """Queue an item from `source` with the call's `facts`; False (and no change) if it is already waiting or
        leased."""
        item = self._item(incident_id, esi_level, est_remaining_s, arrival_us, source)
        if facts is not None:
            item["facts"] = facts.to_json()
        return bool(self._push(keys=self.keys, args=[incident_id, json.dumps(item)]))

    def push_leased(self, item: HeapItem, consumer: str, lease_s: float) -> bool:
        """Re-create an item under this consumer's lease (it is still serving it after Redis lost it)."""
        data = self._item(item.incident_id, item.esi_level, item.est_remaining_s, item.arrival_us, item.source)
        data.update(consumer=consumer, deliveries=item.deliveries)
        if item.facts is not None:
            data["facts"] = item.facts.to_json()
        return bool(self._push_leased(keys=self.keys, args=[item.incident_id, json.dumps(data), int(lease_s * 1000)]))

    def _item(
        self, incident_id: str, esi_level: int, est_remaining_s: float, arrival_us: int, source: str
    ) -> dict[str, Any]:
        if "|" in incident_id:
            raise ValueError("incident ids may not contain '|'")
        if not 0 <= arrival_us < 10**ARRIVAL_DIGITS:
            raise ValueError("arrival_us out of range")
        score, overload_score = self._scores(esi_level, est_remaining_s)
        item = {
            "id": incident_id,
            "esi_level": esi_level,
            "est_remaining_s": est_remaining_s,
            "arrival_us": str(arrival_us),  # cjson keeps 14 significant digits of a number: a string keeps all
            "score": str(score),
            "overload_score": str(overload_score),
            "member": f"{arrival_us:0{ARRIVAL_DIGITS}d}|{incident_id}",
            "source": source,
            "deliveries": 0,
            "consumer": "",
        }
        return item

    def _scores(self, esi_level: int, est_remaining_s: float) -> tuple[int, int]:
        """The item's score as the policy keys it, and while the queue is overloaded (`when_overloaded`)."""
        return (
            score_of(esi_level, est_remaining_s, self.policy, self.options),
            score_of(esi_level, est_remaining_s, self.policy, self.options.when_overloaded()),
        )

    def set_overloaded(self, overloaded: bool, last_miss_s: float = 0.0) -> bool:
        """Enter (recording `last_miss_s`, epoch seconds) or leave the overload mode; every waiting item is
        re-scored when the mode changes, atomically. Whether it changed."""
        return bool(self._set_overloaded(keys=self.keys, args=["1" if overloaded else "0", repr(last_miss_s)]))

    def overloaded(self) -> bool:
        """Whether the overload mode holds (`set_overloaded`)."""
        return bool(self.client.exists(self.keys[3]))

    def last_miss_s(self) -> float | None:
        """When the overload mode last saw a projected miss (epoch seconds); None when the mode is off."""
        raw = self.client.get(self.keys[3])
        return float(raw) if raw is not None else None

    def pop_lease(self, consumer: str, lease_s: float, max_level: int = 0) -> HeapItem | None:
        """Take the most urgent waiting item under a lease (None if none, or if the most urgent is less urgent
        than `max_level`); expired leases go back to the queue first."""
        raw = self._pop(keys=self.keys, args=[int(lease_s * 1000), consumer, max_level])
        return HeapItem.from_json(raw) if raw else None

    def ack(self, incident_id: str, consumer: str) -> bool:
        """Done with a leased item: it leaves the heap. False if the lease is no longer this consumer's."""
        return bool(self._ack(keys=self.keys, args=[incident_id, consumer]))

    def renew(self, incident_id: str, consumer: str, lease_s: float) -> bool:
        """Extend a lease; False if it expired and went back to the queue (or to another consumer)."""
        return bool(self._renew(keys=self.keys, args=[incident_id, consumer, int(lease_s * 1000)]))

    def release(self, incident_id: str, consumer: str, *, uncount: bool = False) -> bool:
        """Give a leased item back to the queue at once (the consumer cannot serve it now); `uncount`: the delivery
        does not count toward the item's deliveries (it failed for a reason that is not the item's)."""
        return bool(self._release(keys=self.keys, args=[incident_id, consumer, "1" if uncount else "0"]))

    def requeue_expired(self) -> int:
        """Put every item whose lease expired back in the queue; how many there were."""
        return int(self._requeue(keys=self.keys, args=[]))

    def override(
        self, incident_id: str, esi_level: int, est_remaining_s: float | None = None, facts: CallFacts | None = None
    ) -> str:
        """Apply an override (or a live call's new reading, with its `facts`): 'waiting' (re-ordered now), 'leased'
        (the new key holds if it comes back), 'absent'."""
        current = self.get(incident_id)
        if current is None:
            return "absent"
        estimate = current.est_remaining_s if est_remaining_s is None else est_remaining_s
        score, overload_score = self._scores(esi_level, estimate)
        carried = "" if facts is None else json.dumps(facts.to_json())
        result = self._override(keys=self.keys, args=[incident_id, esi_level, score, overload_score, carried])
        return result.decode() if isinstance(result, bytes) else str(result)

    def remove(self, incident_id: str) -> bool:
        return bool(self._remove(keys=self.keys, args=[incident_id]))

    def take_waiting(self, incident_id: str) -> HeapItem | None:
        """Remove an item that is waiting and return it; None (and no change) if it is leased or absent."""
        raw = self._take_waiting(keys=self.keys, args=[incident_id])
        return HeapItem.from_json(raw) if raw else None

    def snapshot(self) -> tuple[list[HeapItem], list[HeapItem]]:
        """The waiting items in the order they will be taken, and the leased items (one consistent read)."""
        pipe = self.client.pipeline(transaction=True)
        pipe.zrange(self.keys[0], 0, -1, withscores=True)
        pipe.zrange(self.keys[1], 0, -1)
        pipe.hgetall(self.keys[2])
        pipe.hgetall(self.keys[5])
        members, leased_ids, raw_items, served = pipe.execute()
        items = {_text(key): HeapItem.from_json(raw) for key, raw in raw_items.items()}
        waiting = [items[incident_id] for incident_id in _take_order(members, items, served) if incident_id in items]
        leased = [items[_text(incident_id)] for incident_id in leased_ids if _text(incident_id) in items]
        return waiting, leased

    def get(self, incident_id: str) -> HeapItem | None:
        raw = self.client.hget(self.keys[2], incident_id)
        return HeapItem.from_json(raw) if raw else None

    def items(self, incident_ids: list[str]) -> dict[str, HeapItem]:
        """The items of those incidents that are in the heap (waiting or leased), in one read."""
        if not incident_ids:
            return {}
        raws = self.client.hmget(self.keys[2], incident_ids)
        return {
            incident_id: HeapItem.from_json(raw) for incident_id, raw in zip(incident_ids, raws, strict=True) if raw
        }

    def __contains__(self, incident_id: object) -> bool:
        return bool(self.client.hexists(self.keys[2], str(incident_id)))

    def incident_ids(self) -> list[str]:
        """Every incident in the heap, waiting or leased."""
        return [_text(incident_id) for incident_id in self.client.hkeys(self.keys[2])]

    def waiting(self) -> int:
        return int(self.client.zcard(self.keys[0]))

    def leased(self) -> int:
        return int(self.client.zcard(self.keys[1]))

    def peek_level(self) -> int | None:
        """The ESI level of the most urgent waiting item."""
        head = self.client.zrange(self.keys[0], 0, 0, withscores=True)
        return int(head[0][1]) % 10 if head else None

    def waiting_ids(self) -> list[str]:
        """Waiting ids in the order they will be taken (if nothing arrives meanwhile)."""
        return [item.incident_id for item in self.snapshot()[0]]

    def depth_per_level(self) -> dict[int, int]:
        """Waiting items per ESI level."""
        depth = dict.fromkeys(ESI_LEVELS, 0)
        for _, score in self.client.zrange(self.keys[0], 0, -1, withscores=True):
            depth[int(score) % 10] += 1
        return depth


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _take_order(
    members: list[tuple[str | bytes, float]], items: dict[str, HeapItem], served: dict[Any, Any]
) -> list[str]:
    """The waiting ids in the order the pop takes them (`scheduler.fair_share.take_order`)."""
    waiting = []
    for member, score in members:
        incident_id = _text(member).split("|", 1)[1]
        source = items[incident_id].source if incident_id in items else ""
        waiting.append(Waiting(int(score), _text(member), incident_id, source))
    return take_order(waiting, {_text(key): int(float(_text(value))) for key, value in served.items()})
