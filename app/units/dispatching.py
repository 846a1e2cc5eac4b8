"""Units on calls: dispatching them to an incident and changing their status, each change timed and audited."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import Incident, IncidentEvent, Unit, UnitAssignment, UnitStatus, utcnow
from app.incidents.errors import StaleActionError, UnitNotFoundError
from app.units.statuses import BACK_IN_SERVICE, TIME_FIELDS, UnitStatusError, check_change

log = logging.getLogger(__name__)


class UnitChangedError(StaleActionError):
    """The unit is not in the status the change was offered in, or no longer available (409)."""


def assign_units(
    session: Session, incident: Incident, names: Sequence[str], actor: str, now: dt.datetime | None = None
) -> list[UnitAssignment]:
    """Dispatch the named available units to the incident (each assignment stamped with its dispatch time); the
    caller audits the dispatch. Refused as a whole when a unit is unknown or not available."""
    now = now or utcnow()
    wanted = list(dict.fromkeys(name.strip() for name in names if name.strip()))
    if not wanted:
        raise UnitStatusError("choose at least one unit to dispatch")
    units = {unit.name: unit for unit in session.scalars(select(Unit).where(Unit.name.in_(wanted)).with_for_update())}
    for name in wanted:
        unit = units.get(name)
        if unit is None:
            raise UnitStatusError(f"no unit {name} (`triage-dispatch units list`)")
        if unit.status != UnitStatus.AVAILABLE:
            where = f" on incident {unit.incident_id[:8]}" if unit.incident_id else ""
            raise UnitChangedError(f"{name} is {unit.status}{where}: choose an available unit")
    assignments = []
    for name in wanted:
        unit = units[name]
        unit.status, unit.status_at, unit.incident_id = UnitStatus.DISPATCHED.value, now, incident.id
        assignment = UnitAssignment(incident_id=incident.id, unit_name=name, dispatched_by=actor, dispatched_at=now)
        session.add(assignment)
        assignments.append(assignment)
        log.info("unit_dispatched incident_id=%s unit=%s actor=%s", incident.id, name, actor)
    return assignments


def change_unit_status(
    session: Session, name: str, new: str, actor: str, expected: str | None = None, now: dt.datetime | None = None
) -> Unit:
    """Move a unit on to `new` (a later status on its call, or back in service), stamping its assignment and auditing
    the change on its incident. `expected`: the status the change was offered in; a unit no longer in it is
    refused (`UnitChangedError`), nothing changed."""
    now = now or utcnow()
    unit = session.scalars(select(Unit).where(Unit.name == name).with_for_update()).first()
    if unit is None:
        raise UnitNotFoundError(f"no unit {name} (`triage-dispatch units list`)")
    if expected is not None and unit.status != expected:
        raise UnitChangedError(f"{name} is now {unit.status} (you saw {expected}): nothing was changed")
    check_change(name, unit.status, new)
    incident_id = unit.incident_id
    assignment = _current_assignment(session, unit)
    if assignment is not None:
        setattr(assignment, TIME_FIELDS[new], now)
    before = {"unit": name, "unit_status": unit.status}
    if new == BACK_IN_SERVICE:
        unit.status, unit.incident_id = UnitStatus.AVAILABLE.value, None
    else:
        unit.status = new
    unit.status_at = now
    session.add(
        IncidentEvent(
            incident_id=incident_id,
            actor=actor,
            action="unit_status",
            before=before,
            after={"unit": name, "unit_status": new},
        )
    )
    log.info("unit_status incident_id=%s unit=%s status=%s actor=%s", incident_id, name, new, actor)
    return unit


def _current_assignment(session: Session, unit: Unit) -> UnitAssignment | None:
    if unit.incident_id is None:
        return None
    return session.scalars(
        select(UnitAssignment)
        .where(
            UnitAssignment.unit_name == unit.name,
            UnitAssignment.incident_id == unit.incident_id,
            UnitAssignment.cleared_at.is_(None),
        )
        .order_by(UnitAssignment.id.desc())
    ).first()


def assignments_of(session: Session, incident_ids: Sequence[str]) -> dict[str, list[UnitAssignment]]:
    """Each incident's unit assignments, in dispatch order (one query)."""
    found: dict[str, list[UnitAssignment]] = {incident_id: [] for incident_id in incident_ids}
    if not incident_ids:
        return found
    rows = session.scalars(
        select(UnitAssignment).where(UnitAssignment.incident_id.in_(incident_ids)).order_by(UnitAssignment.id)
    )
    for assignment in rows:
        found[assignment.incident_id].append(assignment)
    return found
