"""The units API: the roster with each unit's status, and a unit's status changed (timed and audited)."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import CurrentPrincipal, DispatcherPrincipal, SessionDep
from app.api.routes.incidents import REFUSED, refusals_as_statuses
from app.api.schemas import UnitList, UnitStatusRequest, UnitView
from app.db.models import Unit
from app.incidents.actions import authorize
from app.units.dispatching import change_unit_status
from app.units.roster import roster

router = APIRouter(prefix="/v1/units", tags=["units"])


def unit_view(unit: Unit) -> UnitView:
    return UnitView(
        name=unit.name,
        kind=unit.kind,
        station=unit.station,
        status=unit.status,
        status_at=unit.status_at.isoformat(),
        incident_id=unit.incident_id,
    )


@router.get("", response_model=UnitList)
def list_units(session: SessionDep, _: CurrentPrincipal) -> UnitList:
    """Every unit, available ones first, then by name."""
    return UnitList(units=[unit_view(unit) for unit in roster(session)])


@router.post("/{name}/status", response_model=UnitView, responses={**REFUSED, 404: {"description": "no such unit"}})
def set_unit_status(
    name: str, payload: UnitStatusRequest, session: SessionDep, principal: DispatcherPrincipal
) -> UnitView:
    """Move a unit on: a later status on its call (en route, on scene, transporting, at hospital) or back in
    service; 409 when it is no longer in `expected_status`, 422 for a change it cannot make."""
    with refusals_as_statuses():
        who = authorize(principal, "unit_status")
        unit = change_unit_status(session, name, payload.status, who.name, payload.expected_status)
    session.commit()
    return unit_view(unit)
