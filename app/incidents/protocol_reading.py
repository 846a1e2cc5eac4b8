"""The knowledge's reading of a call as a classification stores it: the protocol, its key questions, non-medical."""

from __future__ import annotations

from app.db.models import Classification
from triage_models.result import TriageResult


def store_reading(row: Classification, result: TriageResult) -> None:
    """Set the classification's protocol, key questions (answered or not) and non-medical mark from the result."""
    row.protocol = result.protocol[:64] if result.protocol else None
    row.key_questions = [question.to_json() for question in result.key_questions]
    row.non_medical = result.non_medical
