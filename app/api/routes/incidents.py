"""The incident API: list and read incidents; claim (or take over), override, dispatch units to, close and annotate
them; switch their protocol card and mark its steps done.

The actions are `app.incidents.actions` (the same rules and audit events as the console); this module only turns
their refusals into statuses: 403 (role), 404 (unknown incident), 409 (closed, held by another user, or changed since
the client's `expected_state`), 422 (a bad argument), 429 (too many notes for now, with Retry-After).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import JSONResponse
from sqlalchemy import select

from app.api.deps import CurrentPrincipal, DispatcherPrincipal, SessionDep, SettingsDep
from app.api.schemas import (
    CardStepRequest,
    CardSwitchRequest,
    ClaimRequest,
    CloseRequest,
    CorrectDone,
    CorrectRequest,
    DispatchRequest,
    IncidentList,
    MergeRequest,
    NoteRequest,
    OverrideDone,
    OverrideRequest,
)
from app.db.models import Incident, IncidentEvent, IncidentStatus, utcnow
from app.guidance.incident_card import card_view
from app.incidents import actions as actions
from app.incidents import corrections
from app.incidents.corrections import Correction, propagate_level
from app.incidents.eido import build_eido
from app.incidents.overrides import propagate_close, propagate_override
from app.incidents.queries import URGENCY_ORDER
from app.incidents.read_model import EventView, IncidentDetail, IncidentSummary, ProtocolCardView
from app.incidents.reading import (
    ALL_HISTORY,
    DEFAULT_HISTORY_LIMIT,
    MAX_HISTORY_LIMIT,
    HistoryWindow,
    event_of,
    incident_summary,
    read_incident,
)
from app.incidents.search import RECENT_HOURS, recent_calls

router = APIRouter(prefix="/v1/incidents", tags=["incidents"])

REFUSALS: tuple[tuple[type[Exception], int], ...] = (
    (actions.ForbiddenError, 403),
    (actions.NotFoundError, 404),
    (actions.IncidentClosedError, 409),
    (actions.ConflictError, 409),
    (actions.TooManyError, 429),
    (actions.InvalidActionError, 422),
)
"""An action's refusal and the status it answers."""

REFUSED: dict[int | str, dict[str, Any]] = {
    403: {"description": "the role may not do this"},
    404: {"description": "no such incident"},
    409: {"description": "the incident is closed, held by another user, or changed since `expected_state`"},
}


@contextmanager
def refusals_as_statuses() -> Iterator[None]:
    """Turn an incident action's refusal into an HTTP error with its reason (a 429 says when to retry)."""
    try:
        yield
    except (actions.ForbiddenError, actions.ActionError) as error:
        status = next((code for kind, code in REFUSALS if isinstance(error, kind)), 422)
        headers = {"Retry-After": str(error.retry_after_s)} if isinstance(error, actions.TooManyError) else None
        raise HTTPException(status, str(error), headers=headers) from None


@router.get("", response_model=IncidentList)
def list_incidents(
    session: SessionDep,
    _: CurrentPrincipal,
    status: str = "open",
    limit: int = 100,
    q: Annotated[str | None, Query(description="words, an address or a call-back number; newest first")] = None,
    since_hours: Annotated[float, Query(gt=0, le=24 * 31, description="with q: how far back")] = RECENT_HOURS,
    call_id: str | None = None,
) -> IncidentList:
    """Incidents, most urgent first (unclassified ones last), then by arrival; with `q`, the calls of the last
    `since_hours` (closed ones included) that match it, newest first; `call_id`: the call's incident."""
    if q is not None:
        since = utcnow() - dt.timedelta(hours=since_hours)
        found = recent_calls(session, q, since, max(1, min(limit, 1000)))
        return IncidentList(incidents=[summary(incident) for incident in found])
    query = select(Incident)
    if call_id is not None:
        query = query.where(Incident.call_id == call_id)
    if status == "open":
        query = query.where(Incident.status != IncidentStatus.CLOSED.value)
    elif status != "all":
        if status not in {s.value for s in IncidentStatus}:
            raise HTTPException(422, f"status must be open, all or one of {[s.value for s in IncidentStatus]}")
        query = query.where(Incident.status == status)
    incidents = session.scalars(query.order_by(*URGENCY_ORDER).limit(max(1, min(limit, 1000)))).all()
    return IncidentList(incidents=[summary(incident) for incident in incidents])


@router.get("/{incident_id}", response_model=IncidentDetail, responses={404: REFUSED[404]})
def get_incident(
    incident_id: str,
    session: SessionDep,
    _: CurrentPrincipal,
    history_limit: Annotated[int, Query(ge=1, le=MAX_HISTORY_LIMIT)] = DEFAULT_HISTORY_LIMIT,
    history_before: Annotated[int | None, Query(description="an event id: the page of events older than it")] = None,
) -> IncidentDetail:
    """One incident: its message, classification, guidance so far, timings, outcome and a page of its history (the
    newest `history_limit` events; `history.older_than` names the event to page back from)."""
    detail = read_incident(session, incident_id, HistoryWindow(history_limit, history_before))
    if detail is None:
        raise HTTPException(404, "no such incident")
    return detail


@router.get(
    "/{incident_id}/eido",
    response_class=JSONResponse,
    responses={200: {"description": "a NENA EIDO JSON document (NENA-STA-021)"}, 404: REFUSED[404]},
)
def get_incident_eido(
    incident_id: str, session: SessionDep, settings: SettingsDep, _: CurrentPrincipal
) -> JSONResponse:
    """The incident as a NENA EIDO JSON document: its acuity, guidance and history (see docs/eido.md)."""
    detail = read_incident(session, incident_id, ALL_HISTORY)
    if detail is None:
        raise HTTPException(404, "no such incident")
    return JSONResponse(build_eido(detail, settings.eido_agency_id), media_type="application/json")


@router.post("/{incident_id}/claim", response_model=IncidentSummary, responses=REFUSED)
def claim_incident(
    incident_id: str,
    session: SessionDep,
    settings: SettingsDep,
    principal: DispatcherPrincipal,
    payload: ClaimRequest | None = None,
) -> IncidentSummary:
    """Take the incident (a new one becomes claimed). One another user holds: 409 naming them, unless the body is a
    take-over with a reason (audited, shown to both)."""
    payload = payload or ClaimRequest()
    with refusals_as_statuses():
        incident = actions.claim(
            session,
            incident_id,
            principal,
            payload.take_over_reason,
            payload.expected_state,
            settings.free_text_limits,
        )
    session.commit()
    return summary(incident)


@router.post("/{incident_id}/override", response_model=OverrideDone, responses=REFUSED)
def override_incident(
    incident_id: str,
    payload: OverrideRequest,
    session: SessionDep,
    settings: SettingsDep,
    principal: DispatcherPrincipal,
) -> OverrideDone:
    """Set the incident's ESI level (a reason is required): re-keyed in the heap and the engine at once."""
    with refusals_as_statuses():
        incident = actions.override(
            session,
            incident_id,
            principal,
            payload.esi_level,
            payload.reason,
            payload.expected_state,
            settings.free_text_limits,
        )
    esi_level = incident.override_level
    assert esi_level is not None
    session.commit()  # the database first: a worker that loads the incident from now on sees the new level
    return OverrideDone(
        incident_id=incident_id, esi_level=esi_level, heap=propagate_override(settings, incident_id, esi_level)
    )


@router.post("/{incident_id}/dispatch", response_model=IncidentSummary, responses=REFUSED)
def dispatch_incident(
    incident_id: str, payload: DispatchRequest, session: SessionDep, principal: DispatcherPrincipal
) -> IncidentSummary:
    """Dispatch available units to the incident (each timed; its wait clock stops at the first dispatch)."""
    with refusals_as_statuses():
        incident = actions.dispatch(session, incident_id, principal, payload.units, payload.expected_state)
    session.commit()
    return summary(incident)


@router.post("/{incident_id}/close", response_model=IncidentSummary, responses=REFUSED)
def close_incident(
    incident_id: str, payload: CloseRequest, session: SessionDep, settings: SettingsDep, principal: DispatcherPrincipal
) -> IncidentSummary:
    """Close the incident with a disposition (an ESI 1-2 call no unit reached needs `no_unit_reason`): its guidance,
    if not done, is cancelled, the call leaves the heap and the engine aborts it."""
    with refusals_as_statuses():
        incident = actions.close(
            session,
            incident_id,
            principal,
            payload.disposition,
            payload.expected_state,
            payload.no_unit_reason,
            settings.free_text_limits,
        )
    session.commit()  # the database first: a worker that loads the incident from now on sees it closed
    propagate_close(settings, incident_id)
    return summary(incident)


@router.post("/{incident_id}/card", response_model=ProtocolCardView, responses=REFUSED)
def switch_card(
    incident_id: str,
    payload: CardSwitchRequest,
    session: SessionDep,
    settings: SettingsDep,
    principal: DispatcherPrincipal,
) -> ProtocolCardView:
    """Put another protocol card on the incident (a reason is required; audited with the card before and after)."""
    with refusals_as_statuses():
        incident = actions.switch_card(
            session,
            incident_id,
            principal,
            payload.card_id,
            payload.reason,
            expected_state=payload.expected_state,
            limits=settings.free_text_limits,
        )
    session.commit()
    return _card(incident)


@router.post("/{incident_id}/card/steps", response_model=ProtocolCardView, responses=REFUSED)
def mark_card_step(
    incident_id: str, payload: CardStepRequest, session: SessionDep, principal: DispatcherPrincipal
) -> ProtocolCardView:
    """Mark a step of the incident's card done (or not done again); audited."""
    with refusals_as_statuses():
        incident = actions.mark_card_step(
            session, incident_id, principal, payload.step, payload.done, expected_state=payload.expected_state
        )
    session.commit()
    return _card(incident)


def _card(incident: Incident) -> ProtocolCardView:
    card = card_view(incident)
    assert card is not None  # both actions leave a card on the incident
    return ProtocolCardView(**card)


@router.post("/{incident_id}/correct", response_model=CorrectDone, responses=REFUSED)
def correct_incident(
    incident_id: str,
    payload: CorrectRequest,
    session: SessionDep,
    settings: SettingsDep,
    principal: DispatcherPrincipal,
) -> CorrectDone:
    """Correct the call's text, address or call-back number with a reason (audited before and after); a new text is
    triaged again at once, and a changed level re-keys the call in the heap."""
    correction = Correction(payload.text, payload.location, payload.callback_number)
    with refusals_as_statuses():
        corrected = corrections.correct(
            settings,
            session,
            incident_id,
            principal,
            correction,
            payload.reason,
            payload.expected_state,
            settings.free_text_limits,
        )
    session.commit()
    return CorrectDone(
        incident_id=incident_id,
        esi_level=corrected.incident.esi_level,
        retriaged=corrected.retriaged,
        heap=propagate_level(settings, corrected),
    )


@router.post("/{incident_id}/merge", response_model=IncidentSummary, responses=REFUSED)
def merge_incident(
    incident_id: str, payload: MergeRequest, session: SessionDep, settings: SettingsDep, principal: DispatcherPrincipal
) -> IncidentSummary:
    """Merge this possible duplicate into the open call it repeats: closed as a "duplicate call" linked to it, both
    histories saying so; its guidance cancelled."""
    with refusals_as_statuses():
        incident = corrections.merge(
            session, incident_id, principal, payload.reason, payload.expected_state, settings.free_text_limits
        )
    session.commit()
    propagate_close(settings, incident_id)
    return summary(incident)


@router.post(
    "/{incident_id}/notes",
    status_code=201,
    response_model=EventView,
    responses={404: REFUSED[404], 429: {"description": "too many notes for now (Retry-After)"}},
)
def add_note(
    incident_id: str, payload: NoteRequest, session: SessionDep, settings: SettingsDep, principal: CurrentPrincipal
) -> EventView:
    """Add a note to the incident's history (any role; closed incidents too), within the note limits: 422 past the
    length or the incident's count, 429 with Retry-After past the user's rate."""
    with refusals_as_statuses():
        event = actions.add_note(session, incident_id, principal, payload.note, settings.free_text_limits)
    session.commit()
    return _event(event)


def summary(incident: Incident) -> IncidentSummary:
    return incident_summary(incident)


def _event(event: IncidentEvent) -> EventView:
    return event_of(event)
