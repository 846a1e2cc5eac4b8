"""The knowledge files: the shipped ones hold together and every example does what it says; broken files are refused
with every problem named by file and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from triage_models.knowledge_base import compile_knowledge, load_knowledge
from triage_models.knowledge_files import KNOWLEDGE_DIR, NOT_REVIEWED, KnowledgeError, read_knowledge_files
from triage_models.validation import slot_problems, validate


def test_every_example_of_the_shipped_knowledge_fires_or_not_as_its_file_says() -> None:
    report = validate(load_knowledge())
    assert [str(failure) for failure in report.failures] == []
    assert list(report.missing) == []
    assert list(report.slot_problems) == []
    assert report.examples > 0


@pytest.mark.parametrize(
    ("written", "flagged"),
    [
        ("= perdimos|perdi el|mi carro|troca|carro rentado", True),  # "rentado" became a slot of its own
        ("carrito|razor volcar|volteo|se volteo", True),  # "se volteo" split: "volteo" required twice
        ("= por mas que le|la aprieto|aprieto", True),  # a word twice in one slot
        ("= perdimos|perdi el|mi carro|troca !control", False),
        ("leg|foot cold|pale|blue pale|blue|numb", False),  # two signs of one list, on purpose
        ("= ten out of ten", False),  # a phrase that says a word twice
    ],
)
def test_a_space_inside_an_alternative_is_flagged(tmp_path: Path, written: str, flagged: bool) -> None:
    directory = copy_knowledge(tmp_path)
    path = directory / "protocols" / "cardiac-arrest.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('"pulseless",', f'"pulseless", {written!r},', 1))
    problems = slot_problems(compile_knowledge(read_knowledge_files(directory)))
    expected = (
        [
            f"protocols/cardiac-arrest.toml finding pulse_absent (en): {written!r}: a word in two slots; a space "
            "inside an alternative starts a new required slot"
        ]
        if flagged
        else []
    )
    assert problems == expected


def test_every_protocol_names_its_basis_and_says_it_awaits_review() -> None:
    for protocol in load_knowledge().protocols.values():
        assert protocol.basis.strip()
        assert protocol.review_status == NOT_REVIEWED


def copy_knowledge(tmp_path: Path) -> Path:
    directory = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE_DIR, directory)
    return directory


def test_a_determinant_naming_an_unknown_finding_is_refused(tmp_path: Path) -> None:
    directory = copy_knowledge(tmp_path)
    path = directory / "protocols" / "cardiac-arrest.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('all_of = ["pulse_absent"]', 'all_of = ["pulse_gone"]'))
    with pytest.raises(KnowledgeError) as refused:
        compile_knowledge(read_knowledge_files(directory))
    assert refused.value.problems == (
        "protocols/cardiac-arrest.toml: determinant A-NO-PULSE names unknown finding 'pulse_gone'",
    )


def test_a_term_written_twice_in_one_finding_is_refused(tmp_path: Path) -> None:
    directory = copy_knowledge(tmp_path)
    path = directory / "protocols" / "cardiac-arrest.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('"pulseless",', '"pulseless", "pulseless",', 1))
    with pytest.raises(KnowledgeError) as refused:
        compile_knowledge(read_knowledge_files(directory))
    assert refused.value.problems == (
        "protocols/cardiac-arrest.toml: finding pulse_absent: en term 'pulseless' is written twice",
    )


def test_a_bad_field_and_an_unreadable_term_are_named(tmp_path: Path) -> None:
    directory = copy_knowledge(tmp_path)
    path = directory / "protocols" / "cardiac-arrest.toml"
    text = path.read_text(encoding="utf-8").replace('"pulseless",', '"pulseless", "NEG",', 1)
    path.write_text(
        text.replace(
            'level = 1\ndecision_point = "A"\ndescription = "No pulse',
            'level = 7\ndecision_point = "A"\ndescription = "No pulse',
            1,
        )
    )
    with pytest.raises(KnowledgeError) as refused:
        compile_knowledge(read_knowledge_files(directory))
    assert refused.value.problems == (
        "cardiac-arrest.toml: determinant.3.level: Input should be less than or equal to 5",
    )
    path.write_text(text)
    with pytest.raises(KnowledgeError) as refused:
        compile_knowledge(read_knowledge_files(directory))
    assert refused.value.problems == (
        "protocols/cardiac-arrest.toml: finding pulse_absent: 'NEG': a term needs at least one word",
    )


def test_every_high_risk_determinant_is_in_the_coverage_report() -> None:
    from triage_models.knowledge_base import load_knowledge
    from triage_models.knowledge_files import read_coverage

    coverage = read_coverage()
    named = {item for row in coverage.high_risk for item in row.determinants}
    level_two = {determinant.spec.id for determinant in load_knowledge().determinants if determinant.spec.level == 2}
    assert level_two - named == set()
    assert len(coverage.cbd) == 33
