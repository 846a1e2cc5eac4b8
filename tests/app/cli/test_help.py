"""Every `triage-dispatch ... --help` prints its sentences whole: a docstring's line breaks are not kept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from app.cli.help_text import paragraphs
from app.cli.main import cli

runner = CliRunner()


def commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command under a (Typer) click group, by its words on the command line."""
    for name, command in group.commands.items():
        yield (*path, name), command
        if hasattr(command, "commands"):
            yield from commands(command, (*path, name))


def test_paragraphs_joins_the_lines_of_each_paragraph_and_keeps_the_paragraphs() -> None:
    assert paragraphs("Run everything: Redis, a\n    worker and the web.\n\n    Second\n    one.") == (
        "Run everything: Redis, a worker and the web.\n\nSecond one."
    )


def test_no_command_help_breaks_inside_a_paragraph() -> None:
    found = dict(commands(typer.main.get_command(cli)))
    assert {("serve",), ("bench", "guidance"), ("triage", "retrain"), ("sources", "rotate-secret")} <= set(found)
    broken = [
        path for path, command in found.items() if any("\n" in part for part in (command.help or "").split("\n\n"))
    ]
    assert broken == []


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (
            ["--help"],
            "One instance per data directory; SIGTERM, SIGINT or SIGHUP to this process alone stops every child",
        ),
        (["bench", "--help"], "(SQLite, the hf engine on a tiny model) and run the reproductions: a /readyz storm"),
    ],
)
def test_help_prints_a_sentence_on_one_line_when_the_terminal_is_wide(args: list[str], sentence: str) -> None:
    result = runner.invoke(cli, args, env={"COLUMNS": "1000"})
    assert result.exit_code == 0, result.output
    assert sentence in result.output
