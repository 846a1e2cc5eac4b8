"""The heartbeat's `scheduling` field: the policy, options and cost model read back from the engine's scheduler."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from scheduler.engines.base import Engine

log = logging.getLogger(__name__)

READ_BACK_TIMEOUT_S = 1.0
"""The longest a heartbeat waits for the engine core's answer (it answers between steps)."""


async def scheduling_beat(engine: Engine) -> dict[str, Any]:
    """`{"scheduling": {...}}` as the engine's scheduler reports it (for vLLM, from inside the engine-core process);
    `{"scheduling": None, "scheduling_error": ...}` when it cannot be read (not started, the core busy or gone)."""
    try:
        scheduling = await asyncio.wait_for(engine.scheduling_in_force(), READ_BACK_TIMEOUT_S)
    # Whatever the read-back raises (vLLM's utility call into a dead, busy or refusing engine core, a timeout), the
    # heartbeat still goes out, saying why the scheduling is missing: deliberately broad.
    except Exception as error:
        log.warning("scheduling read-back failed: %s", error)
        return {"scheduling": None, "scheduling_error": f"{type(error).__name__}: {error}"}
    return {"scheduling": scheduling}
