"""A reproduction's result as the hardening bench reports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Check:
    """One reproduction: what was measured, the target, and whether it was met."""

    name: str
    measured: str
    target: str
    met: bool

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "measured": self.measured, "target": self.target, "met": self.met}
