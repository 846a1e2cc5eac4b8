"""`triage-dispatch triage protocols list | show ID | validate [DIR]`: the triage knowledge, for a medical director."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from triage_models.knowledge_base import KnowledgeBase, load_knowledge
from triage_models.knowledge_files import KNOWLEDGE_DIR, KnowledgeError, read_coverage
from triage_models.validation import coverage_problems, validate

protocols_app = typer.Typer(
    help="Triage protocols (one per chief complaint): list them, show one, validate every example.",
    no_args_is_help=True,
)
_DIRECTORY = typer.Option("--dir", help="A knowledge directory (default: the shipped triage_models/knowledge).")


def _knowledge(directory: Path | None) -> KnowledgeBase:
    """The knowledge of a directory; a broken one exits 1 with every problem named."""
    try:
        return load_knowledge(directory or KNOWLEDGE_DIR)
    except KnowledgeError as error:
        for problem in error.problems:
            typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(1) from None


@protocols_app.command("list")
def protocols_list(directory: Annotated[Path | None, _DIRECTORY] = None) -> None:
    """Every protocol: id, version, determinants by level, key questions, and its review state."""
    kb = _knowledge(directory)
    typer.echo(f"knowledge {kb.version} ({kb.digest}): {len(kb.protocols)} protocols, {len(kb.findings)} findings")
    for protocol in kb.protocols.values():
        levels = sorted(determinant.level for determinant in protocol.determinant)
        counts = ", ".join(f"ESI {level} x{levels.count(level)}" for level in sorted(set(levels))) or "none"
        line = (
            f"{protocol.id}  {protocol.version}  determinants: {counts}  key questions: {len(protocol.key_question)}"
            f"  {protocol.review_status}"
        )
        typer.echo(line)


@protocols_app.command("show")
def protocols_show(
    protocol_id: Annotated[str, typer.Argument(metavar="ID")],
    directory: Annotated[Path | None, _DIRECTORY] = None,
) -> None:
    """One protocol as a reviewer reads it: basis, findings with their terms, determinants, key questions."""
    kb = _knowledge(directory)
    protocol = kb.protocols.get(protocol_id)
    if protocol is None:
        raise typer.BadParameter(f"no protocol {protocol_id!r} (see `triage protocols list`)", param_hint="ID")
    typer.echo(f"{protocol.title}  [{protocol.id} {protocol.version}]  {protocol.review_status}")
    typer.echo(f"basis: {protocol.basis}")
    typer.echo(f"complaint findings: {', '.join(sorted(kb.complaint_findings[protocol.id]))}")
    typer.echo("determinants:")
    for determinant in protocol.determinant:
        required = " AND ".join(f"({' or '.join(group)})" for group in determinant.required)
        excluded = (
            f"; not when said with or after them: {', '.join(determinant.excluded)}" if determinant.excluded else ""
        )
        if determinant.excluded_anywhere:
            excluded += f"; not when said anywhere: {', '.join(determinant.excluded_anywhere)}"
        typer.echo(
            f"  {determinant.id}: ESI {determinant.level} ({determinant.decision_point}) {determinant.description}"
        )
        typer.echo(f"    when {required}{excluded}; if over: {determinant.if_resolved}")
    typer.echo("key questions:")
    for question in protocol.key_question:
        answers = ", ".join(
            f"{k} -> {v}" for k, v in (("yes", question.yes), ("no", question.no), ("unsure", question.unsure)) if v
        )
        typer.echo(f"  {question.en} / {question.es}  ({answers or 'recorded only'})")
    typer.echo("own findings:")
    for finding in protocol.finding:
        typer.echo(f"  {finding.id}: {finding.label}")
        typer.echo(f"    en: {'; '.join(finding.en)}")
        typer.echo(f"    es: {'; '.join(finding.es)}")


@protocols_app.command("validate")
def protocols_validate(
    directory: Annotated[Path | None, typer.Argument(help="A knowledge directory (default: the shipped one).")] = None,
) -> None:
    """Read every file, then run every example; exit 1 on any problem, each named with its file."""
    kb = _knowledge(directory)
    report = validate(kb)
    for failure in report.failures:
        typer.echo(f"fail: {failure}", err=True)
    for missing in report.missing:
        typer.echo(f"missing: {missing}", err=True)
    for problem in report.slot_problems:
        typer.echo(f"term: {problem}", err=True)
    typer.echo(
        f"{len(kb.protocols)} protocols, {len(kb.findings)} findings, {len(kb.determinants)} determinants: "
        f"{report.examples} examples run, {len(report.failures)} failed, {len(report.missing)} missing, "
        f"{len(report.slot_problems)} terms with a word in two slots"
    )
    if not report.ok:
        raise typer.Exit(1)


@protocols_app.command("coverage")
def protocols_coverage(directory: Annotated[Path | None, _DIRECTORY] = None) -> None:
    """Every chief complaint of Criteria Based Dispatch and every high-risk situation of the ESI handbook, with the
    protocols and determinants that cover them (`knowledge/coverage.toml`), as a Markdown table; exit 1 when one
    names a protocol or determinant that does not exist."""
    kb = _knowledge(directory)
    try:
        coverage = read_coverage(directory or KNOWLEDGE_DIR)
    except KnowledgeError as error:
        for problem in error.problems:
            typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(1) from None
    problems = coverage_problems(kb, coverage)
    typer.echo("| Criteria Based Dispatch chief complaint | protocols |\n|---|---|")
    for item in coverage.cbd:
        typer.echo(f"| {item.complaint} | {', '.join(f'`{name}`' for name in item.protocols)} |")
    typer.echo("\n| ESI high-risk situation | determinants (protocol) |\n|---|---|")
    owner = {determinant.spec.id: determinant.protocol for determinant in kb.determinants}
    for risk in coverage.high_risk:
        names = ", ".join(f"`{name}` ({owner.get(name, '?')})" for name in risk.determinants)
        typer.echo(f"| {risk.situation} | {names} |")
    for problem in problems:
        typer.echo(f"error: {problem}", err=True)
    if problems:
        raise typer.Exit(1)
