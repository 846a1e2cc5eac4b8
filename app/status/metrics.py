"""Prometheus metrics: intake counters in the web process; queue depth, wait and TTFT histograms per ESI and
engine counters kept in Redis (the engine worker runs elsewhere) and read at scrape time."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from app.redis import keys
from app.status.engine import engine_reports
from scheduler.policy import ESI_LEVELS
from scheduler.redis_heap import RedisSemanticHeap

log = logging.getLogger(__name__)

BUCKETS_S = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
HISTOGRAMS = {
    "wait": "Seconds from queued in the semantic heap to handed to the engine",
    "ttft": "Seconds from handed to the engine to the first guidance token",
}
ENGINE_COUNTERS = ("evictions", "finished", "failed", "tokens", "shed")


def record_observation(client: Any, prefix: str, name: str, esi_level: int, seconds: float) -> None:
    """Add one observation to a Redis-kept histogram (cumulative buckets, sum and count per level)."""
    key = keys.metrics_histogram(prefix, name)
    pipe = client.pipeline(transaction=False)
    for bound in BUCKETS_S:
        if seconds <= bound:
            pipe.hincrby(key, f"{esi_level}:{bound}", 1)
    pipe.hincrby(key, f"{esi_level}:count", 1)
    pipe.hincrbyfloat(key, f"{esi_level}:sum", seconds)
    pipe.execute()


def count_engine(client: Any, prefix: str, **increments: int) -> None:
    pipe = client.pipeline(transaction=False)
    for name, amount in increments.items():
        if name not in ENGINE_COUNTERS:
            raise ValueError(f"unknown engine counter {name}")
        pipe.hincrby(keys.metrics_engine(prefix), name, amount)
    pipe.execute()


class RedisMetricsCollector(Collector):
    """Reads the Redis-kept metrics when Prometheus scrapes."""

    def __init__(self, heap: RedisSemanticHeap) -> None:
        self.heap = heap

    def collect(self) -> Iterator[Any]:
        up = GaugeMetricFamily("triage_redis_up", "Whether the metrics store (Redis) answered")
        try:
            depth = self.heap.depth_per_level()
            leased = self.heap.leased()
            raw = {
                name: self.heap.client.hgetall(keys.metrics_histogram(self.heap.prefix, name)) for name in HISTOGRAMS
            }
            engine = self.heap.client.hgetall(keys.metrics_engine(self.heap.prefix))
            reports = engine_reports(self.heap.client, self.heap.prefix)
        except Exception as error:
            log.warning("metrics: Redis unavailable: %s", error)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        queue = GaugeMetricFamily("triage_queue_depth", "Incidents waiting in the semantic heap", labels=["esi"])
        for level, count in depth.items():
            queue.add_metric([str(level)], count)
        yield queue
        in_engine = GaugeMetricFamily("triage_queue_leased", "Incidents taken by engine workers")
        in_engine.add_metric([], leased)
        yield in_engine
        for name, doc in HISTOGRAMS.items():
            values = {_text(k): float(_text(v)) for k, v in raw[name].items()}
            family = HistogramMetricFamily(f"triage_{name}_seconds", doc, labels=["esi"])
            for level in ESI_LEVELS:
                buckets = [(str(bound), values.get(f"{level}:{bound}", 0.0)) for bound in BUCKETS_S]
                buckets.append(("+Inf", values.get(f"{level}:count", 0.0)))
                family.add_metric([str(level)], buckets, values.get(f"{level}:sum", 0.0))
            yield family
        counters = {_text(k): int(_text(v)) for k, v in engine.items()}
        for name in ENGINE_COUNTERS:
            family_counter = CounterMetricFamily(f"triage_engine_{name}", f"Engine {name} (all engine workers)")
            family_counter.add_metric([], counters.get(name, 0))
            yield family_counter
        yield scheduling_info(reports)


SCHEDULING_LABELS = ("policy", "cost_model", "limited_preemption", "max_preemptions", "max_deferred_steps")
"""`triage_engine_scheduling_info`'s labels after worker and engine: the policy, the cost model and the options
vLLM's scheduler acts on in its engine core (every option is in `/readyz`'s `engines`)."""


def scheduling_info(reports: list[dict[str, Any]]) -> GaugeMetricFamily:
    """One sample (1) per engine worker whose scheduler reported back, labelled with what it runs."""
    family = GaugeMetricFamily(
        "triage_engine_scheduling_info",
        "The scheduling each engine worker's scheduler reports it runs (read back from it)",
        labels=["worker", "engine", *SCHEDULING_LABELS],
    )
    for report in reports:
        scheduling = report.get("scheduling")
        if not isinstance(scheduling, dict):
            continue
        options = scheduling.get("options") or {}
        values = {**options, "policy": scheduling.get("policy"), "cost_model": scheduling.get("cost_model")}
        labels = [_label(values.get(name)) for name in SCHEDULING_LABELS]
        family.add_metric([str(report.get("worker")), str(report.get("engine")), *labels], 1)
    return family


def _label(value: Any) -> str:
    return "none" if value is None else str(value)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class IntakeMetrics:
    """The web process's own counters."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.accepted = Counter("triage_intake_accepted", "Messages accepted", ["source"], registry=registry)
        self.duplicates = Counter("triage_intake_duplicates", "Webhook ids seen again", ["source"], registry=registry)
        self.rejected = Counter("triage_intake_rejected", "Messages refused", ["reason"], registry=registry)
        self.live_events = Counter(
            "triage_live_events",
            "Live-call events stored or seen again",
            ["source", "outcome"],
            registry=registry,
        )
        self.refused = Counter(
            "triage_intake_source_refused",
            "Authenticated calls refused because of their source: over its limit (429) or suspended (503)",
            ["source", "reason"],
            registry=registry,
        )
