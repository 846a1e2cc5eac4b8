"""The engine's cost model in the product: measured by the engine worker at start-up (or named in settings),
published in its heartbeat, and read back by the pipeline, which scores calls with the model the engine runs."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from app.settings import MEASURE_COST_MODEL, Settings
from app.status.engine import engine_reports
from scheduler.cost_model import CPU_DEFAULT_PROFILE, PROFILES, CostModel, get_profile
from scheduler.engines.base import Engine
from scheduler.engines.profiling import load_cost_model, profile_engine
from scheduler.scheduling_contract import SchedulingConfigError, scheduling_from_dict

log = logging.getLogger(__name__)

PROFILE_PROMPT_LENGTHS = (16, 48, 96, 160, 240)
"""Prompt lengths the start-up measurement times (capped by what the engine serves)."""
PUBLISHED_TTL_S = 5.0
"""The pipeline reads the engines' published cost model at most this often."""


def configured_cost_model(settings: Settings) -> CostModel:
    """The cost model `TRIAGE_ENGINE_COST_MODEL` names: a profile, or a saved `engine profile` file. With `measure`,
    the CPU default (`cpu-default`) until the engine worker has measured its engine."""
    name = settings.engine_cost_model
    if name == MEASURE_COST_MODEL:
        return get_profile(CPU_DEFAULT_PROFILE)
    if name in PROFILES:
        return get_profile(name)
    return load_cost_model(Path(name).expanduser())


async def measure_cost_model(settings: Settings, engine: Engine, vocab_size: int, max_prompt_tokens: int) -> None:
    """With `TRIAGE_ENGINE_COST_MODEL=measure`: time the started engine on this machine (`profile_engine`), and make
    its scheduler run the fitted model (published in the heartbeat from then on). Otherwise nothing: the engine was
    built with the configured model."""
    if settings.engine_cost_model != MEASURE_COST_MODEL:
        return
    lengths = tuple(length for length in PROFILE_PROMPT_LENGTHS if length <= max_prompt_tokens) or (16, 32)
    started = time.monotonic()
    profile = await profile_engine(engine, vocab_size, prompt_lengths=lengths, decode_tokens=32, repeats=2)
    await engine.use_cost_model(profile.cost_model)
    log.info(
        "engine cost model measured in %.1f s: a1=%.3g a2=%.3g g1=%.3g g2=%.3g",
        time.monotonic() - started,
        profile.cost_model.a1,
        profile.cost_model.a2,
        profile.cost_model.g1,
        profile.cost_model.g2,
    )


def published_cost_model(client: Any, prefix: str) -> CostModel | None:
    """The cost model the first serving engine worker (by name) reports running; None while none has beaten with one.
    Several engines with different models: the heap holds one estimate per call, so one engine's model scores them
    all."""
    for report in engine_reports(client, prefix):
        scheduling = report.get("scheduling")
        if not scheduling:  # starting (loading, or unable to), or its read-back failed
            continue
        try:
            return scheduling_from_dict(scheduling).cost_model
        except SchedulingConfigError as error:
            log.warning("engine worker %s published a scheduling that cannot be read: %s", report["worker"], error)
    return None


class ScoringCostModel:
    """The cost model the pipeline scores calls with: the one the engines publish, read at most every
    `PUBLISHED_TTL_S`; the configured one (`configured_cost_model`) while no engine has published one."""

    def __init__(self, settings: Settings, client: Any | None) -> None:
        self._settings = settings
        self._client = client
        self._read_at = -float("inf")
        self._published: CostModel | None = None
        self._fallback_logged = False

    def get(self) -> CostModel:
        now = time.monotonic()
        if self._client is not None and now - self._read_at >= PUBLISHED_TTL_S:
            self._read_at = now
            self._published = published_cost_model(self._client, self._settings.queue_prefix)
        if self._published is not None:
            self._fallback_logged = False
            return self._published
        if not self._fallback_logged:
            log.info("no engine has published its cost model yet: scoring calls with the configured one")
            self._fallback_logged = True
        return configured_cost_model(self._settings)


_scorers: dict[tuple[int, str, str], ScoringCostModel] = {}


def scoring_cost_model(settings: Settings, client: Any | None) -> CostModel:
    """The cost model to score a call with now (`ScoringCostModel`, one per Redis client, prefix and setting)."""
    key = (id(client), settings.queue_prefix, settings.engine_cost_model)
    scorer = _scorers.get(key)
    if scorer is None:
        scorer = _scorers.setdefault(key, ScoringCostModel(settings, client))
    return scorer.get()
