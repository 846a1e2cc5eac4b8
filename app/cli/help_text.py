"""The commands' help as Typer's rich help prints it: each docstring paragraph on one line, re-wrapped to the terminal.

Typer's rich help keeps a docstring's own line breaks in the command lists and in the paragraphs after the first, so
a sentence wrapped at 120 characters in the source broke mid-sentence on screen."""

from __future__ import annotations

import inspect

import typer


def paragraphs(text: str) -> str:
    """The text's paragraphs (blank-line separated), each joined into one line."""
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in inspect.cleandoc(text).split("\n\n"))


def fold_help(app: typer.Typer) -> None:
    """Give every command of `app` and of its sub-apps its docstring as paragraphs (an explicit help too)."""
    for command in app.registered_commands:
        text = command.help or inspect.getdoc(command.callback)
        if text:
            command.help = paragraphs(text)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            fold_help(group.typer_instance)
