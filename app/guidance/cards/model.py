"""One protocol card: its schema, read from a `<id>.<language>.toml` file and checked field by field."""

from __future__ import annotations

import datetime
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from triage_models.rules import rule_ids as known_rule_ids

AgeBand = Literal["adult", "child", "infant", "any"]
Language = Literal["en", "es"]
LANGUAGES: tuple[Language, ...] = ("en", "es")
NOT_REVIEWED = "not reviewed by a medical director"
MAX_STEP_CHARS = 200
"""A step is read aloud in one breath: longer ones are refused (split them into two actions)."""


class CardError(ValueError):
    """Card files that cannot be used: every problem names its file and field."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)


class TemplateFields(BaseModel):
    """What an overload template card adds: the words that pick it from the call, and the resources to send."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cues: tuple[str, ...]
    """Regular expressions (whole words, case-insensitive); empty for the general template."""
    resources: str = Field(min_length=1)

    @field_validator("cues")
    @classmethod
    def _compiles(cls, cues: tuple[str, ...]) -> tuple[str, ...]:
        for cue in cues:
            try:
                re.compile(cue)
            except re.error as error:
                raise ValueError(f"cue {cue!r} is not a regular expression: {error}") from None
        return cues


class Card(BaseModel):
    """A fixed, reviewable set of instructions a dispatcher reads to a caller, in one language."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
    version: str = Field(min_length=1)
    title: str = Field(min_length=1)
    language: Language
    rule_ids: tuple[str, ...] = ()
    """The card fits a call when one of these red-flag rules fired..."""
    with_rule_ids: tuple[str, ...] = ()
    """...and, when this is not empty, one of these fired too (choking *and* unresponsive)."""
    age_band: AgeBand = "any"
    priority: int = Field(default=0, ge=0)
    """The highest-priority fitting card wins."""
    key_questions: tuple[str, ...] = ()
    steps: tuple[str, ...] = Field(min_length=1)
    do_not: tuple[str, ...] = ()
    contradictions: tuple[str, ...] = ()
    """Phrases, in the card's language, that would contradict it if guidance told the caller them."""
    basis: str = Field(min_length=1)
    """The public guideline the card follows, named."""
    reviewed_by: str = ""
    reviewed_on: datetime.date | None = None
    template: TemplateFields | None = None

    @field_validator("reviewed_on", mode="before")
    @classmethod
    def _empty_is_unreviewed(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("rule_ids", "with_rule_ids")
    @classmethod
    def _known_rules(cls, rule_ids: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(rule_ids) - set(known_rule_ids()))
        if unknown:
            raise ValueError(
                f"unknown red-flag rule ids {', '.join(unknown)} (see `triage-dispatch triage protocols list`)"
            )
        return rule_ids

    @field_validator("steps")
    @classmethod
    def _short_steps(cls, steps: tuple[str, ...]) -> tuple[str, ...]:
        for number, step in enumerate(steps, start=1):
            if not step.strip():
                raise ValueError(f"step {number} is empty")
            if len(step) > MAX_STEP_CHARS:
                raise ValueError(f"step {number} has {len(step)} characters; at most {MAX_STEP_CHARS} (split it)")
        return steps

    @model_validator(mode="after")
    def _consistent(self) -> Card:
        if not self.rule_ids and self.template is None:
            raise ValueError("rule_ids: a card needs the red-flag rules that pick it (or a [template] table)")
        if bool(self.reviewed_by.strip()) != (self.reviewed_on is not None):
            raise ValueError("reviewed_by and reviewed_on: fill both (reviewed) or leave both empty (not reviewed)")
        return self

    @property
    def reviewed(self) -> bool:
        return self.reviewed_on is not None

    @property
    def review_state(self) -> str:
        """ "reviewed by <who> on <date>", or that no medical director has reviewed it (the UI must say so)."""
        return f"reviewed by {self.reviewed_by} on {self.reviewed_on}" if self.reviewed_on else NOT_REVIEWED

    def read_aloud(self) -> str:
        """The numbered steps, one a line, as the dispatcher reads them."""
        return "\n".join(f"{number}. {step}" for number, step in enumerate(self.steps, start=1))


def _problem(file_name: str, location: tuple[int | str, ...], message: str) -> str:
    """ "<file>: <field>: <message>"; a check across fields names its fields in its own message."""
    message = message.removeprefix("Value error, ")
    field = ".".join(str(part) for part in location)
    return f"{file_name}: {field}: {message}" if field else f"{file_name}: {message}"


def read_card(path: Path) -> Card:
    """The card in `path` (named `<id>.<language>.toml`); CardError names the file and each bad field."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise CardError([f"{path.name}: cannot be read as TOML: {error}"]) from None
    try:
        card = Card.model_validate(data)
    except ValidationError as error:
        raise CardError([_problem(path.name, item["loc"], item["msg"]) for item in error.errors()]) from None
    expected = f"{card.id}.{card.language}.toml"
    if path.name != expected:
        raise CardError(
            [f"{path.name}: id and language: the file of card {card.id!r} in {card.language} is {expected}"]
        )
    return card
