"""The triage knowledge as files a medical director reviews: their schema, read and checked field by field.

`triage_models/knowledge/` holds, as TOML:
- `protocols/<chief-complaint>.toml`: one per chief complaint (after King County EMS Criteria Based Dispatch and the
  ESI handbook): the findings that make a call this complaint, its own findings, its determinants (which findings
  together give which ESI level and decision point), the key questions a call-taker asks, examples in English and
  Spanish that must and must not fire, and the review fields;
- `findings/<group>.toml`: findings several protocols share (consciousness, breathing, the patient's age...);
- `context/<language>.toml`: the triggers of negation, history, hypotheses, episodes over and other people's
  findings (`context.py`);
- `knowledge.toml`: the version of the whole, which a trained model records (`RULES_VERSION`).
Nothing here is code: a finding's synonyms are terms (`terms.py`), a determinant names findings.
"""

from __future__ import annotations

import datetime
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from triage_models.context import Category, Direction, Lists

KNOWLEDGE_DIR = Path(__file__).parent / "knowledge"
LANGUAGES = ("en", "es")
FINDING_ID = r"^[a-z][a-z0-9_]*$"
DETERMINANT_ID = r"^[ABCD]-[A-Z0-9]+(?:-[A-Z0-9]+)*$"
PROTOCOL_ID = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
NOT_REVIEWED = "not reviewed by a medical director"


class KnowledgeError(ValueError):
    """Knowledge files that cannot be used: every problem names its file and what is wrong."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)


class Reviewed(BaseModel):
    """What every knowledge file carries for its review: the guideline it follows, who reviewed it and when."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str = Field(min_length=1)
    basis: str = Field(min_length=1)
    """The public guidelines followed, named (the wording is the project's own)."""
    reviewed_by: str = ""
    reviewed_on: datetime.date | None = None

    @field_validator("reviewed_on", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @property
    def review_status(self) -> str:
        if not self.reviewed_by or self.reviewed_on is None:
            return NOT_REVIEWED
        return f"reviewed by {self.reviewed_by} on {self.reviewed_on.isoformat()}"


class Examples(BaseModel):
    """Calls that must fire (and must not fire) a finding or a determinant, in both languages."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fire_en: tuple[str, ...] = ()
    fire_es: tuple[str, ...] = ()
    not_en: tuple[str, ...] = ()
    not_es: tuple[str, ...] = ()

    def by_language(self) -> list[tuple[str, bool, str]]:
        """(language, must fire, text) for every example."""
        return [
            *(("en", True, text) for text in self.fire_en),
            *(("es", True, text) for text in self.fire_es),
            *(("en", False, text) for text in self.not_en),
            *(("es", False, text) for text in self.not_es),
        ]


class FindingSpec(Examples):
    """A finding: a concept with its lay synonyms per language (terms) and what it means."""

    id: str = Field(pattern=FINDING_ID)
    label: str = Field(min_length=1)
    group: str = ""
    """Findings of one group compete where their terms overlap: the longer term wins ("not breathing normally" is
    abnormal breathing, not absent breathing)."""
    history_counts: bool = False
    """A risk factor, present whether the caller says it is past or now ("a stent two years ago", "diabetic for
    years"): its history is not discounted (a denial, a hypothesis or someone else's still are)."""
    en: tuple[str, ...] = ()
    es: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _has_terms(self) -> FindingSpec:
        if not self.en and not self.es:
            raise ValueError(f"finding {self.id}: no terms in any language")
        return self


def _alternatives(entry: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in entry.split("|") if part.strip())


class DeterminantSpec(Examples):
    """Which findings together set an ESI level (a floor for levels 1-3, a calm reason for 4-5)."""

    id: str = Field(pattern=DETERMINANT_ID)
    level: int = Field(ge=1, le=5)
    decision_point: Literal["A", "B", "C", "D"]
    description: str = Field(min_length=1)
    all_of: tuple[str, ...] = Field(min_length=1)
    """Each entry must be present; an entry "a|b" is present when either is."""
    none_of: tuple[str, ...] = ()
    """None of these may be present (current and affirmed, an episode over included) with or after the
    determinant's findings: "he was talking, then collapsed and is gasping" is an arrest; "he collapsed, gasping,
    but he's awake now" is not."""
    none_of_anywhere: tuple[str, ...] = ()
    """None of these may be present anywhere in the call ("Bell's palsy" said before the face droop)."""
    age_below_years: float | None = None
    age_at_least_years: float | None = None
    age_unknown_fires: bool = False
    """With an age limit: whether the determinant fires when the call gives no age (default: it does not)."""
    generic: bool = False
    """A determinant of any complaint (shock, severe pain): it sets the level but never names the call's protocol."""
    if_resolved: int | Literal["kept", "none"] = "kept"
    """When the caller says the episode is over: "kept" (the same level: a TIA or a fainting spell that passed is
    still the red flag it was), a less urgent level, or "none" (shown, no floor)."""

    @property
    def required(self) -> tuple[tuple[str, ...], ...]:
        return tuple(_alternatives(entry) for entry in self.all_of)

    @property
    def excluded(self) -> tuple[str, ...]:
        return tuple(name for entry in self.none_of for name in _alternatives(entry))

    @property
    def excluded_anywhere(self) -> tuple[str, ...]:
        return tuple(name for entry in self.none_of_anywhere for name in _alternatives(entry))

    @model_validator(mode="after")
    def _consistent(self) -> DeterminantSpec:
        expected = {1: "A", 2: "BD"}.get(self.level, "BCD")
        if self.decision_point not in expected:
            raise ValueError(
                f"determinant {self.id}: ESI {self.level} is not set at decision point {self.decision_point}"
            )
        if not self.id.startswith(self.decision_point) and self.level <= 2:
            raise ValueError(f"determinant {self.id}: its id starts with its decision point ({self.decision_point})")
        if isinstance(self.if_resolved, int) and not self.level <= self.if_resolved <= 5:
            raise ValueError(f"determinant {self.id}: if_resolved must be a level no more urgent than {self.level}")
        return self


class KeyQuestionSpec(BaseModel):
    """A question a call-taker asks, how to recognise it in the call-taker's words, and what each answer means."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=FINDING_ID)
    en: str = Field(min_length=1)
    es: str = Field(min_length=1)
    asked_en: tuple[str, ...] = Field(min_length=1)
    """Terms that recognise the question in the call-taker's words (`CT: is he breathing normally?`)."""
    asked_es: tuple[str, ...] = Field(min_length=1)
    yes: str = ""
    """The finding a "yes" answer affirms ("" for none)."""
    no: str = ""
    unsure: str = ""
    """The finding "I don't know" affirms (for breathing: not known to be breathing)."""


class ProtocolSpec(Reviewed):
    """One chief complaint: how a call is recognised as it, what decides its level, what to ask."""

    id: str = Field(pattern=PROTOCOL_ID)
    title: str = Field(min_length=1)
    complaint: tuple[str, ...] = ()
    """Findings that make a call this chief complaint (its determinants' findings do too)."""
    finding: tuple[FindingSpec, ...] = ()
    determinant: tuple[DeterminantSpec, ...] = ()
    key_question: tuple[KeyQuestionSpec, ...] = ()


class FindingsFile(Reviewed):
    """Findings several protocols share."""

    finding: tuple[FindingSpec, ...] = Field(min_length=1)


class TriggerGroup(BaseModel):
    """Trigger phrases of one category, direction and reach."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: Category
    direction: Direction = "forward"
    scope: int = Field(default=6, ge=1, le=30)
    lists: Lists = ""
    crosses_sentences: bool = False
    words: tuple[str, ...] = Field(min_length=1)


class ContextFile(Reviewed):
    """One language's context triggers."""

    language: Literal["en", "es"]
    group: tuple[TriggerGroup, ...] = Field(min_length=1)


class CbdCoverage(BaseModel):
    """A chief complaint of Criteria Based Dispatch and the protocols that cover it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    complaint: str = Field(min_length=1)
    protocols: tuple[str, ...] = Field(min_length=1)


class HighRiskCoverage(BaseModel):
    """A high-risk situation of the ESI handbook and the determinants that cover it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    situation: str = Field(min_length=1)
    determinants: tuple[str, ...] = Field(min_length=1)


class CoverageFile(Reviewed):
    """`coverage.toml`: what the protocols cover, for the report in docs/triage.md."""

    cbd: tuple[CbdCoverage, ...] = Field(min_length=1)
    high_risk: tuple[HighRiskCoverage, ...] = ()


def read_coverage(directory: Path = KNOWLEDGE_DIR) -> CoverageFile:
    """The coverage file; `KnowledgeError` names what is wrong in it."""
    path = directory / "coverage.toml"
    try:
        return CoverageFile.model_validate(_read(path))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise KnowledgeError([f"{path.name}: {error}"]) from None
    except ValidationError as error:
        raise KnowledgeError(_problems(path, error)) from None


class KnowledgeIndex(BaseModel):
    """`knowledge.toml`: the version of the whole knowledge."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str = Field(pattern=r"^\d{4}\.\d{2}\.\d+$")


def _read(path: Path) -> dict[str, object]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def _problems(path: Path, error: ValidationError) -> list[str]:
    return [f"{path.name}: {'.'.join(str(p) for p in item['loc'])}: {item['msg']}" for item in error.errors()]


class KnowledgeFiles(BaseModel):
    """Every knowledge file, parsed (references are checked by `knowledge_base`)."""

    model_config = ConfigDict(frozen=True)

    version: str
    protocols: tuple[ProtocolSpec, ...]
    shared: tuple[tuple[str, FindingsFile], ...]
    context: tuple[ContextFile, ...]


def read_knowledge_files(directory: Path = KNOWLEDGE_DIR) -> KnowledgeFiles:
    """Parse every file; `KnowledgeError` lists each problem with its file and field."""
    problems: list[str] = []
    protocols: list[ProtocolSpec] = []
    shared: list[tuple[str, FindingsFile]] = []
    context: list[ContextFile] = []
    version = ""
    jobs: list[tuple[Path, type[BaseModel]]] = [(directory / "knowledge.toml", KnowledgeIndex)]
    jobs += [(path, ProtocolSpec) for path in sorted((directory / "protocols").glob("*.toml"))]
    jobs += [(path, FindingsFile) for path in sorted((directory / "findings").glob("*.toml"))]
    jobs += [(path, ContextFile) for path in sorted((directory / "context").glob("*.toml"))]
    for path, model in jobs:
        try:
            parsed = model.model_validate(_read(path))
        except (OSError, tomllib.TOMLDecodeError) as error:
            problems.append(f"{path.name}: {error}")
            continue
        except ValidationError as error:
            problems.extend(_problems(path, error))
            continue
        if isinstance(parsed, KnowledgeIndex):
            version = parsed.version
        elif isinstance(parsed, ProtocolSpec):
            if parsed.id != path.stem:
                problems.append(f"{path.name}: id {parsed.id!r} differs from the file name")
            protocols.append(parsed)
        elif isinstance(parsed, FindingsFile):
            shared.append((path.stem, parsed))
        elif isinstance(parsed, ContextFile):
            context.append(parsed)
    if problems:
        raise KnowledgeError(problems)
    return KnowledgeFiles(version=version, protocols=tuple(protocols), shared=tuple(shared), context=tuple(context))
