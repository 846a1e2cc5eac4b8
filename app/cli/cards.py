"""`triage-dispatch cards list | show ID | validate [DIR]`: the protocol card library, for a medical director."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.guidance.cards import Card, CardError, CardLibrary, default_library, load_library

cards_app = typer.Typer(help="Protocol cards: list them with their review state, show one, validate a library.")

_DIRECTORY = typer.Option(
    "--dir", help="A card library directory (default: TRIAGE_CARDS_DIR, else the shipped library)."
)


def _library(directory: Path | None) -> CardLibrary:
    """The named library, or the one this centre's processes use; a broken one exits 1 with every problem."""
    try:
        return default_library() if directory is None else load_library(directory)
    except CardError as error:
        for problem in error.problems:
            typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(1) from None


def _review(cards: list[Card]) -> str:
    return "; ".join(f"{card.language}: {card.review_state}" for card in cards)


@cards_app.command("list")
def cards_list(directory: Annotated[Path | None, _DIRECTORY] = None) -> None:
    """Every card: id, version, languages, what picks it, and its review state per language."""
    library = _library(directory)
    typer.echo(f"library: {library.directory}")
    for card_id in library.ids():
        cards = [card for (other, _), card in sorted(library.cards.items()) if other == card_id]
        card = cards[0]  # English first (a translation always has its English card)
        picked = "overload template" if card.template else f"{', '.join(card.rule_ids)} ({card.age_band})"
        languages = ",".join(each.language for each in cards)
        line = f"{card_id}  {card.version}  [{languages}]  priority {card.priority}  {picked}  {_review(cards)}"
        typer.echo(line)


@cards_app.command("show")
def cards_show(
    card_id: Annotated[str, typer.Argument(metavar="ID")],
    language: Annotated[str, typer.Option("--language", help="en or es; English when not translated.")] = "en",
    directory: Annotated[Path | None, _DIRECTORY] = None,
) -> None:
    """One card as the dispatcher reads it, with what picks it, its basis and its review state."""
    card = _library(directory).get(card_id, language)
    if card is None:
        raise typer.BadParameter(f"no card {card_id!r} (see `triage-dispatch cards list`)", param_hint="ID")
    if card.language != language:
        typer.echo(f"(no {language} translation: shown in {card.language})")
    typer.echo(f"{card.title}  [{card.id} {card.version}, {card.language}]  {card.review_state}")
    if card.rule_ids:
        typer.echo(f"picked by: {', '.join(card.rule_ids)}; age band {card.age_band}; priority {card.priority}")
    sections = (("Ask", card.key_questions), ("Do not", card.do_not), ("Contradicted by", card.contradictions))
    typer.echo("Steps:\n" + card.read_aloud())
    for heading, items in sections:
        if items:
            typer.echo(f"{heading}:\n" + "\n".join(f"- {item}" for item in items))
    typer.echo(f"Basis: {card.basis}")


@cards_app.command("validate")
def cards_validate(
    directory: Annotated[
        Path | None, typer.Argument(help="Default: TRIAGE_CARDS_DIR, else the shipped library.")
    ] = None,
) -> None:
    """Check every card file of a library (exit 1 listing each problem with its file and field)."""
    library = _library(directory)
    unreviewed = sorted({card_id for (card_id, _), card in library.cards.items() if not card.reviewed})
    typer.echo(f"{len(library.cards)} card files valid in {library.directory}")
    if unreviewed:
        typer.echo(f"{len(unreviewed)} cards not reviewed by a medical director: {', '.join(unreviewed)}")
