"""The scheduling in force, as one value: the policy, its options and the cost model, to JSON and back.

Built once from the app's settings and handed to every scheduler; the vLLM engine carries it through vLLM's own
config (`VllmConfig.additional_config[SCHEDULING_KEY]`) into the engine-core process, where the scheduler reads it,
and every engine reports it back in the same shape (`Scheduling.to_dict`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from scheduler.cost_model import CPU_DEFAULT_PROFILE, PROFILES, CostModel, get_profile
from scheduler.policy import DEFAULT_POLICY, PolicyOptions, get_policy

SCHEDULING_KEY = "triage_scheduling"
"""The key in vLLM's `additional_config` that carries the scheduling to the engine core."""

DEFAULT_COST_PROFILE = CPU_DEFAULT_PROFILE
"""Until the engine worker measures its engine (`TRIAGE_ENGINE_COST_MODEL=measure`) or a profile is named."""
CUSTOM_COST_MODEL = "custom"
"""The cost model's name when its coefficients match no named profile."""

_TUPLE_OPTIONS = ("level_weights", "level_deadlines_s")


class SchedulingConfigError(ValueError):
    """A scheduling value that cannot be read: names the part and what it should be."""


@dataclass(frozen=True, slots=True)
class Scheduling:
    """What every scheduler of this deployment runs: the policy, its options and the engine's cost model."""

    policy: str = DEFAULT_POLICY
    options: PolicyOptions = field(default_factory=PolicyOptions)
    cost_model: CostModel = field(default_factory=lambda: get_profile(DEFAULT_COST_PROFILE))

    def __post_init__(self) -> None:
        get_policy(self.policy)  # an unknown name is an error that lists the known ones

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: `{"policy": .., "options": {..}, "cost_model": name, "cost_coefficients": {..}}`."""
        options = {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in dataclasses.asdict(self.options).items()
        }
        return {
            "policy": self.policy,
            "options": options,
            "cost_model": cost_model_name(self.cost_model),
            "cost_coefficients": dataclasses.asdict(self.cost_model),
        }


def cost_model_name(cost_model: CostModel) -> str:
    """The named profile these coefficients are, or "custom"."""
    return next((name for name, profile in sorted(PROFILES.items()) if profile == cost_model), CUSTOM_COST_MODEL)


def scheduling_from_dict(value: object) -> Scheduling:
    """The inverse of `Scheduling.to_dict`; a malformed value raises `SchedulingConfigError` saying what is wrong."""
    if not isinstance(value, dict):
        raise SchedulingConfigError(f"{SCHEDULING_KEY} must be a mapping, got {type(value).__name__}")
    unknown = set(value) - {"policy", "options", "cost_model", "cost_coefficients"}
    if unknown:
        raise SchedulingConfigError(f"{SCHEDULING_KEY} has unknown keys {sorted(unknown)}")
    try:
        return Scheduling(
            policy=str(value.get("policy", DEFAULT_POLICY)),
            options=_options_from_dict(value.get("options", {})),
            cost_model=_cost_model_from_dict(value),
        )
    except SchedulingConfigError:
        raise
    except (TypeError, ValueError) as error:
        raise SchedulingConfigError(f"{SCHEDULING_KEY}: {error}") from None


def _options_from_dict(options: object) -> PolicyOptions:
    if not isinstance(options, dict):
        raise SchedulingConfigError(f"{SCHEDULING_KEY}.options must be a mapping, got {type(options).__name__}")
    known = {option.name for option in dataclasses.fields(PolicyOptions)}
    unknown = set(options) - known
    if unknown:
        raise SchedulingConfigError(f"{SCHEDULING_KEY}.options has unknown options {sorted(unknown)}")
    values: dict[str, Any] = {
        name: tuple(value) if name in _TUPLE_OPTIONS else value for name, value in options.items()
    }
    return PolicyOptions(**values)


def _cost_model_from_dict(value: dict[Any, Any]) -> CostModel:
    coefficients = value.get("cost_coefficients")
    if coefficients is not None:
        if not isinstance(coefficients, dict):
            raise SchedulingConfigError(f"{SCHEDULING_KEY}.cost_coefficients must be a mapping")
        return CostModel(**{name: float(number) for name, number in coefficients.items()})
    name = value.get("cost_model", DEFAULT_COST_PROFILE)
    return get_profile(str(name))


def scheduling_from_vllm_config(additional_config: object) -> Scheduling:
    """The scheduling carried in vLLM's `additional_config`; absent (vLLM's own tests build our class bare): the
    defaults. Present and malformed: `SchedulingConfigError`."""
    if not isinstance(additional_config, dict) or SCHEDULING_KEY not in additional_config:
        return Scheduling()
    return scheduling_from_dict(additional_config[SCHEDULING_KEY])
