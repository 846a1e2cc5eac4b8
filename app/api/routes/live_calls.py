"""Live calls in the incident API: a call's live view (transcript, partials, level history, the answers read, the
T-CPR clock), the dispatcher's decisions on it, and the monthly T-CPR report for supervisors (JSON or CSV)."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, Field

from app.api.deps import CurrentPrincipal, DispatcherPrincipal, SessionDep, SettingsDep
from app.api.routes.incidents import REFUSED, refusals_as_statuses
from app.db.models import Role
from app.incidents.actions import require
from app.incidents.overrides import propagate_override
from app.live import actions as live_actions
from app.live.tcpr import month_bounds, report, report_csv
from app.live.views import live_view

router = APIRouter(tags=["live calls"])


class LowerReadingDecision(BaseModel):
    accept: Any = Field(default=None, description="true: the level falls to the offered reading; false: dismissed")
    reason: str = Field(default="", description="why (required to accept)")


class ArrestDecision(BaseModel):
    arrest: Any = Field(default=None, description="true: a cardiac arrest; false: not one")
    recognised_on_call: Any = Field(default=True, description="false: confirmed only after the call")


class AnswerConfirmation(BaseModel):
    what: str = Field(description="address or callback_number")
    value: str | None = Field(default=None, max_length=1024, description="a corrected value; none: as read")


@router.get("/v1/incidents/{incident_id}/live", responses={404: REFUSED[404]})
def get_live_call(incident_id: str, session: SessionDep, _: CurrentPrincipal) -> dict[str, Any]:
    """The incident's live call: transcript (both tracks), partials, level history with its words, the lower
    reading offered, the address and call-back number read, the T-CPR clock."""
    view = live_view(session, incident_id)
    if view is None:
        raise HTTPException(404, "no such live call")
    return view


@router.post("/v1/incidents/{incident_id}/live/lower-reading", responses=REFUSED)
def decide_lower_reading(
    incident_id: str,
    payload: LowerReadingDecision,
    session: SessionDep,
    settings: SettingsDep,
    principal: DispatcherPrincipal,
) -> dict[str, Any]:
    """Accept the lower reading the product offered (the level falls to it, re-keyed at once) or dismiss it."""
    with refusals_as_statuses():
        level = live_actions.decide_lower_reading(session, incident_id, principal, payload.accept, payload.reason)
    session.commit()
    heap = "unchanged" if level is None else propagate_override(settings, incident_id, level)
    return {"incident_id": incident_id, "esi_level": level, "heap": heap}


@router.post("/v1/incidents/{incident_id}/live/arrest", responses=REFUSED)
def confirm_arrest(
    incident_id: str, payload: ArrestDecision, session: SessionDep, principal: DispatcherPrincipal
) -> dict[str, Any]:
    """The dispatcher says whether the call is a cardiac arrest (the T-CPR figures count it)."""
    with refusals_as_statuses():
        live_actions.confirm_arrest(session, incident_id, principal, payload.arrest, payload.recognised_on_call)
    session.commit()
    view = live_view(session, incident_id)
    assert view is not None
    return view


@router.post("/v1/incidents/{incident_id}/live/confirm", responses=REFUSED)
def confirm_answer(
    incident_id: str, payload: AnswerConfirmation, session: SessionDep, principal: DispatcherPrincipal
) -> dict[str, Any]:
    """Confirm (or correct) the address or call-back number read from the caller's words."""
    with refusals_as_statuses():
        live_actions.confirm_answer(session, incident_id, principal, payload.what, payload.value)
    session.commit()
    view = live_view(session, incident_id)
    assert view is not None
    return view


@router.get("/v1/tcpr/report", responses={403: {"description": "supervisors only"}, 422: {"description": "month"}})
def tcpr_report(session: SessionDep, principal: CurrentPrincipal, month: str, format: str = "json") -> Any:
    """The month's T-CPR figures (AHA program) and each live call's clock; `format=csv` for the CSV export."""
    with refusals_as_statuses():
        require(principal, (Role.SUPERVISOR,), "read the T-CPR report")
    try:
        month_bounds(month)
    except ValueError as error:
        raise HTTPException(422, str(error)) from None
    if format not in ("json", "csv"):
        raise HTTPException(422, "format must be json or csv")
    figures, clocks = report(session, month)
    if format == "csv":
        return PlainTextResponse(
            report_csv(figures, clocks),
            media_type="text/csv",
            headers={"content-disposition": f'attachment; filename="tcpr-{month}.csv"'},
        )
    return {
        "figures": dataclasses.asdict(figures),
        "calls": [{**dataclasses.asdict(c), "answered_at": c.answered_at.isoformat()} for c in clocks],
    }
