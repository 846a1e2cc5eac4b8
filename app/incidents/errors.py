"""Why an action on an incident (or a unit) is refused: one exception per answer the API and the console give."""

from __future__ import annotations


class ForbiddenError(PermissionError):
    """The acting user's role may not do this (or nobody is signed in): 403."""


class ActionError(ValueError):
    """The action cannot be done as asked (with the reason): 422 unless a subclass says otherwise."""


class NotFoundError(ActionError):
    """No such incident or unit: 404."""


class IncidentNotFoundError(NotFoundError):
    """No incident has this id: 404."""


class UnitNotFoundError(NotFoundError):
    """No unit has this name: 404."""


class IncidentClosedError(ActionError):
    """The incident is closed: it can no longer be claimed, overridden, dispatched or closed (409)."""


class InvalidActionError(ActionError):
    """An argument is not acceptable (an ESI level, a reason, a disposition, a note, a unit): 422."""


class ConflictError(ActionError):
    """The incident (or unit) is not in a state that allows it now: 409."""


class IncidentHeldError(ConflictError):
    """Another user holds the incident: acting on it needs a take-over (with a reason) first."""


class StaleActionError(ConflictError):
    """The incident or unit changed since the action was offered: nothing was done."""


class TooManyError(ActionError):
    """Too many of these for now: 429, retry after `retry_after_s`."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
