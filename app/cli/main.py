"""Entry point of the `triage-dispatch` console script: one Typer app, a sub-app per area."""

from __future__ import annotations

import typer

from app.cli.bench import bench_app
from app.cli.cards import cards_app
from app.cli.demo import demo
from app.cli.engine import engine_app
from app.cli.help_text import fold_help
from app.cli.ops import db_app, worker
from app.cli.protocols import protocols_app
from app.cli.serve import serve
from app.cli.sources import sources_app
from app.cli.tcpr import tcpr_app
from app.cli.triage import triage_app
from app.cli.triage_context import context_compare  # noqa: F401  (registers `triage context-compare`)
from app.cli.triage_learning import retrain_command  # noqa: F401  (registers `triage retrain` and `triage promote`)
from app.cli.units import units_app
from app.cli.users import users_app

cli = typer.Typer(
    name="triage-dispatch",
    help="Semantic scheduling of LLM guidance for 911/EMS dispatch.",
    no_args_is_help=True,
    add_completion=False,
)
cli.add_typer(bench_app, name="bench")
triage_app.add_typer(protocols_app, name="protocols")
cli.add_typer(triage_app, name="triage")
cli.add_typer(engine_app, name="engine")
cli.add_typer(db_app, name="db")
cli.add_typer(users_app, name="users")
cli.add_typer(cards_app, name="cards")
cli.add_typer(sources_app, name="sources")
cli.add_typer(units_app, name="units")
cli.add_typer(tcpr_app, name="tcpr")
cli.command("serve")(serve)
cli.command("worker")(worker)
cli.command("demo")(demo)
fold_help(cli)


def main() -> None:
    """Run the command line."""
    cli()


if __name__ == "__main__":
    main()
