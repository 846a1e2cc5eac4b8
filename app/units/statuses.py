"""A unit's statuses in the order a call takes it through them, and which changes are allowed (pure)."""

from __future__ import annotations

from app.db.models import UnitStatus
from app.incidents.errors import InvalidActionError

BACK_IN_SERVICE = "back in service"
"""The change that ends an assignment: the unit is available again."""
ASSIGNED_ORDER = (
    UnitStatus.DISPATCHED,
    UnitStatus.EN_ROUTE,
    UnitStatus.ON_SCENE,
    UnitStatus.TRANSPORTING,
    UnitStatus.AT_HOSPITAL,
)
"""The statuses of a unit on a call, in the order it reaches them (one may be skipped: a unit already at the door
goes from dispatched to on scene)."""
TIME_FIELDS = {
    UnitStatus.DISPATCHED: "dispatched_at",
    UnitStatus.EN_ROUTE: "en_route_at",
    UnitStatus.ON_SCENE: "on_scene_at",
    UnitStatus.TRANSPORTING: "transporting_at",
    UnitStatus.AT_HOSPITAL: "at_hospital_at",
    BACK_IN_SERVICE: "cleared_at",
}
"""Each status change: the `UnitAssignment` time it stamps."""
CHANGES = (*ASSIGNED_ORDER[1:], BACK_IN_SERVICE)
"""What a dispatcher may set by hand (dispatched is set by dispatching the unit to a call)."""


class UnitStatusError(InvalidActionError):
    """A status change that cannot be made (with the reason)."""


def next_statuses(current: str) -> tuple[str, ...]:
    """The changes a unit in `current` may make: a later status on its call, or back in service; none while
    available (it is dispatched to a call first)."""
    if current not in ASSIGNED_ORDER:
        return ()
    later = ASSIGNED_ORDER[ASSIGNED_ORDER.index(UnitStatus(current)) + 1 :]
    return (*later, BACK_IN_SERVICE)


def check_change(unit: str, current: str, new: str) -> None:
    """Refuse a change `next_statuses` does not allow, saying why."""
    if new not in CHANGES:
        raise UnitStatusError(f"choose a status: {', '.join(CHANGES)}")
    if current == UnitStatus.AVAILABLE:
        raise UnitStatusError(f"{unit} is available: dispatch it to a call first")
    if new not in next_statuses(current):
        raise UnitStatusError(f"{unit} is {current}: it cannot go back to {new}")
