"""The incident API: list and read incidents; claim, override, dispatch, close and annotate them; switch their protocol
card and mark its steps done.

The actions are `app.incidents.actions` (the same rules and audit events as the console); this module only turns
their refusals into statuses: 403 (role), 404 (unknown incident), 409 (closed), 422 (a bad argument).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import JSONResponse
from sqlalchemy import select

from app.api.deps import CurrentPrincipal, DispatcherPrincipal, SessionDep, SettingsDep
from app.api.schemas import (
    CardStepRequest,
    CardSwitchRequest,
    ClassificationView,
    CloseRequest,
    EventView,
    GuidanceView,
    IncidentDetail,
    IncidentList,
    IncidentSummary,
    NoteRequest,
    OutcomeView,
    OverrideDone,
    OverrideRequest,
    ProtocolCardBrief,
    ProtocolCardView,
    Timings,
)
from app.db.models import Guidance, Incident, IncidentEvent, IncidentStatus, Outcome
from app.engine_worker.builtin_models import TEST_MODEL_LABEL, is_test_model
from app.guidance.checker import GuidanceCheck
from app.guidance.incident_card import card_brief, card_view
from app.incidents import actions as actions
from app.incidents.eido import build_eido, load_eido_source
from app.incidents.overrides import propagate_close, propagate_override
from app.incidents.queries import URGENCY_ORDER, classification_view, event_view, incident_events, latest_classification

router = APIRouter(prefix="/v1/incidents", tags=["incidents"])

REFUSALS: tuple[tuple[type[Exception], int], ...] = (
    (actions.ForbiddenError, 403),
    (actions.IncidentNotFoundError, 404),
    (actions.IncidentClosedError, 409),
    (actions.InvalidActionError, 422),
)
"""An action's refusal and the status it answers."""

REFUSED: dict[int | str, dict[str, Any]] = {
    403: {"description": "the role may not do this"},
    404: {"description": "no such incident"},
    409: {"description": "the incident is closed"},
}


@contextmanager
def refusals_as_statuses() -> Iterator[None]:
    """Turn an incident action's refusal into an HTTP error with its reason."""
    try:
        yield
    except (actions.ForbiddenError, actions.ActionError) as error:
        status = next((code for kind, code in REFUSALS if isinstance(error, kind)), 422)
        raise HTTPException(status, str(error)) from None


@router.get("", response_model=IncidentList)
def list_incidents(
    session: SessionDep, _: CurrentPrincipal, status: str = "open", limit: int = 100, call_id: str | None = None
) -> IncidentList:
    """Incidents, most urgent first (unclassified ones last), then by arrival; `call_id`: the call's incident."""
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
def get_incident(incident_id: str, session: SessionDep, _: CurrentPrincipal) -> IncidentDetail:
    """One incident: its message, classification, guidance so far, timings, outcome and history."""
    incident = session.get(Incident, incident_id)
    if incident is None:
        raise HTTPException(404, "no such incident")
    outcome = session.get(Outcome, incident_id)
    classification = classification_view(latest_classification(session, incident_id))
    guidance = incident.guidance
    card = card_view(incident)
    return IncidentDetail(
        **summary(incident).model_dump(exclude={"protocol_card"}),
        text=incident.text,
        caller=incident.caller,
        location=incident.location,
        call_id=incident.call_id,
        classification=None if classification is None else ClassificationView(**classification),
        guidance=None if guidance is None else _guidance(guidance),
        timings=_timings(incident, outcome),
        outcome=None
        if outcome is None
        else OutcomeView(
            tokens=outcome.tokens,
            evictions=outcome.evictions,
            deliveries=outcome.deliveries,
            engine=outcome.engine,
            model=outcome.model,
            error=outcome.error,
            label=TEST_MODEL_LABEL if is_test_model(outcome.model) else None,
        ),
        events=[_event(event) for event in incident_events(session, incident_id)],
        protocol_card=None if card is None else ProtocolCardView(**card),
    )


@router.get(
    "/{incident_id}/eido",
    response_class=JSONResponse,
    responses={200: {"description": "a NENA EIDO JSON document (NENA-STA-021)"}, 404: REFUSED[404]},
)
def get_incident_eido(
    incident_id: str, session: SessionDep, settings: SettingsDep, _: CurrentPrincipal
) -> JSONResponse:
    """The incident as a NENA EIDO JSON document: its acuity, guidance and history (see docs/eido.md)."""
    source = load_eido_source(session, incident_id)
    if source is None:
        raise HTTPException(404, "no such incident")
    return JSONResponse(build_eido(source, settings.eido_agency_id), media_type="application/json")


@router.post("/{incident_id}/claim", response_model=IncidentSummary, responses=REFUSED)
def claim_incident(incident_id: str, session: SessionDep, principal: DispatcherPrincipal) -> IncidentSummary:
    """Take the incident (a new one becomes claimed)."""
    with refusals_as_statuses():
        incident = actions.claim(session, incident_id, principal)
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
        incident = actions.override(session, incident_id, principal, payload.esi_level, payload.reason)
    esi_level = incident.override_level
    assert esi_level is not None
    session.commit()  # the database first: a worker that loads the incident from now on sees the new level
    return OverrideDone(
        incident_id=incident_id, esi_level=esi_level, heap=propagate_override(settings, incident_id, esi_level)
    )


@router.post("/{incident_id}/dispatch", response_model=IncidentSummary, responses=REFUSED)
def dispatch_incident(incident_id: str, session: SessionDep, principal: DispatcherPrincipal) -> IncidentSummary:
    """Mark the incident dispatched."""
    with refusals_as_statuses():
        incident = actions.dispatch(session, incident_id, principal)
    session.commit()
    return summary(incident)


@router.post("/{incident_id}/close", response_model=IncidentSummary, responses=REFUSED)
def close_incident(
    incident_id: str, payload: CloseRequest, session: SessionDep, settings: SettingsDep, principal: DispatcherPrincipal
) -> IncidentSummary:
    """Close the incident with a disposition: its guidance, if not done, is cancelled, the call leaves the heap and
    the engine aborts it."""
    with refusals_as_statuses():
        incident = actions.close(session, incident_id, principal, payload.disposition)
    session.commit()  # the database first: a worker that loads the incident from now on sees it closed
    propagate_close(settings, incident_id)
    return summary(incident)


@router.post("/{incident_id}/card", response_model=ProtocolCardView, responses=REFUSED)
def switch_card(
    incident_id: str, payload: CardSwitchRequest, session: SessionDep, principal: DispatcherPrincipal
) -> ProtocolCardView:
    """Put another protocol card on the incident (a reason is required; audited with the card before and after)."""
    with refusals_as_statuses():
        incident = actions.switch_card(session, incident_id, principal, payload.card_id, payload.reason)
    session.commit()
    return _card(incident)


@router.post("/{incident_id}/card/steps", response_model=ProtocolCardView, responses=REFUSED)
def mark_card_step(
    incident_id: str, payload: CardStepRequest, session: SessionDep, principal: DispatcherPrincipal
) -> ProtocolCardView:
    """Mark a step of the incident's card done (or not done again); audited."""
    with refusals_as_statuses():
        incident = actions.mark_card_step(session, incident_id, principal, payload.step, payload.done)
    session.commit()
    return _card(incident)


def _card(incident: Incident) -> ProtocolCardView:
    card = card_view(incident)
    assert card is not None  # both actions leave a card on the incident
    return ProtocolCardView(**card)


@router.post("/{incident_id}/notes", status_code=201, response_model=EventView, responses={404: REFUSED[404]})
def add_note(incident_id: str, payload: NoteRequest, session: SessionDep, principal: CurrentPrincipal) -> EventView:
    """Add a note to the incident's history (any role; closed incidents too)."""
    with refusals_as_statuses():
        event = actions.add_note(session, incident_id, principal, payload.note)
    session.commit()
    return _event(event)


def summary(incident: Incident) -> IncidentSummary:
    return IncidentSummary(
        id=incident.id,
        source=incident.source,
        status=incident.status,
        esi_level=incident.esi_level,
        model_level=incident.model_level,
        override_level=incident.override_level,
        chief_complaint=incident.chief_complaint,
        guidance_state=incident.guidance_state,
        accepted_at=_iso(incident.accepted_at),
        language=incident.language,
        protocol_card=None if (card := card_brief(incident)) is None else ProtocolCardBrief(**card),
    )


def _guidance(guidance: Guidance) -> GuidanceView:
    check = None if guidance.check_failures is None else GuidanceCheck.from_stored(guidance.check_failures)
    return GuidanceView(
        text=guidance.text,
        tokens=guidance.tokens,
        model=guidance.model,
        prompt_version=guidance.prompt_version,
        check_passed=guidance.check_passed,
        check=None if check is None else check.summary(),
        label=TEST_MODEL_LABEL if is_test_model(guidance.model) else None,
    )


def _timings(incident: Incident, outcome: Outcome | None) -> Timings:
    return Timings(
        received_at=_iso(incident.received_at),
        accepted_at=_iso(incident.accepted_at),
        classified_at=_iso(incident.classified_at),
        queued_at=_iso(incident.queued_at),
        queue_wait_s=outcome.queue_wait_s if outcome else None,
        ttft_s=outcome.ttft_s if outcome else None,
        total_s=outcome.total_s if outcome else None,
        finished_at=_iso(outcome.finished_at) if outcome else None,
    )


def _event(event: IncidentEvent) -> EventView:
    return EventView(**{**event_view(event), "at": _iso(event.created_at)})


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None
