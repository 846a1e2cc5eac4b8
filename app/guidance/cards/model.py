"""One protocol card: its schema, read from a `<id>.<language>.toml` file and checked field by field."""

from __future__ import annotations

import datetime
import re
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from triage_models.rules import rule_ids as known_rule_ids
from triage_models.transcript import fold_accents

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
    only_when: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Situations a combined card covers, each with the words (regular expressions matched at a word's start, case
    and accents folded) that say the call is one: a question, step or "do not" written `[situation] ...` is read only
    on a call whose words name that situation (a drowned child is not asked whether the power is off). A call that
    names none of them gets the whole card."""

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

    @field_validator("only_when")
    @classmethod
    def _situations(cls, only_when: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for name, cues in only_when.items():
            if not re.fullmatch(r"[a-z]+", name) or not cues:
                raise ValueError(f"situation {name!r}: a lower-case word, with at least one cue")
            for cue in cues:
                try:
                    re.compile(cue)
                except re.error as error:
                    raise ValueError(f"situation {name}: cue {cue!r} is not a regular expression: {error}") from None
        return only_when

    @model_validator(mode="after")
    def _tags_declared(self) -> Card:
        used = {tag for item in (*self.key_questions, *self.steps, *self.do_not) if (tag := situation_of(item)[0])}
        if unknown := sorted(used - set(self.only_when)):
            raise ValueError(f"only_when: items are marked [{'], ['.join(unknown)}] but no such situation is declared")
        if unused := sorted(set(self.only_when) - used):
            raise ValueError(f"only_when: situations {', '.join(unused)} mark no question, step or do-not")
        return self

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

    def for_call(self, text: str) -> Card:
        """The card as this call reads it: the items of the situations its words name, the others left out (the
        whole card when it names none); the `[situation]` marks taken off."""
        if not self.only_when:
            return self
        folded = fold_accents(text).lower()
        named = {
            name
            for name, cues in self.only_when.items()
            if any(re.search(rf"(?<!\w)(?:{fold_accents(cue).lower()})", folded) for cue in cues)
        }
        keep = named or set(self.only_when)

        def kept(items: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(text for tag, text in map(situation_of, items) if tag is None or tag in keep)

        return self.model_copy(
            update={
                "key_questions": kept(self.key_questions),
                "steps": kept(self.steps),
                "do_not": kept(self.do_not),
            }
        )

    def read_aloud(self) -> str:
        """The numbered steps, one a line, as the dispatcher reads them."""
        return "\n".join(f"{number}. {step}" for number, step in enumerate(self.steps, start=1))


_SITUATION = re.compile(r"^\[([a-z]+)\]\s*")


def situation_of(item: str) -> tuple[str | None, str]:
    """A card item's situation mark and its words: "[electric] Is the power off?" is ("electric", "Is the power
    off?"); an unmarked item's situation is None."""
    found = _SITUATION.match(item)
    return (found.group(1), item[found.end() :]) if found else (None, item)


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
