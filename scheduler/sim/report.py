"""Write an experiment's Markdown report and PNG plots to a folder."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from scheduler.policy import ESI_LEVELS
from scheduler.sim.experiments import ExperimentResult, PointResult, get_experiment


def format_figure(value: float) -> str:
    """Seconds per token with three decimals; n/a where a level had no request."""
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def policy_cells(point: PointResult, name: str) -> list[str]:
    """One policy's mean normalized wait per ESI level and overall, each baseline's with its ratio to semantic."""
    summary = point.summaries[name]
    ratios = point.ratios_to_semantic(name) if name != "semantic" and "semantic" in point.summaries else None
    figures = [(str(level), summary.per_level[level]) for level in ESI_LEVELS] + [("overall", summary.overall)]
    return [
        format_figure(value) + (f" ({ratios[key]:.1f}x)" if ratios and not math.isnan(ratios[key]) else "")
        for key, value in figures
    ]


def format_ratio(value: float) -> str:
    """A ratio with two decimals and an x; n/a where it is undefined."""
    return "n/a" if math.isnan(value) else f"{value:.2f}x"


def limit_ratio_cell(point: PointResult, name: str) -> str:
    """A policy's ESI 1 figure divided by the ESI 1 limit (1.00x = no interference from less urgent work)."""
    return format_ratio(point.ratios_to_limit(name)["1"]) if point.limits else "n/a"


def limit_cells(point: PointResult) -> list[str]:
    """The limit per ESI level, then '-' for the overall column (a limit is per level only)."""
    return [format_figure(point.limits.get(level, math.nan)) for level in ESI_LEVELS] + ["-"]


def point_table(point: PointResult) -> list[str]:
    """Markdown rows: mean normalized waiting time per ESI level and overall, with ratio to semantic and the limit."""
    columns = ["policy", *(f"ESI {level}" for level in ESI_LEVELS), "overall", "ESI 1 x limit", "makespan (s)"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for name, summary in point.summaries.items():
        cells = [*policy_cells(point, name), limit_ratio_cell(point, name), f"{summary.makespan_s:.1f}"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if point.limits:
        lines.append("| limit | " + " | ".join([*limit_cells(point), "1.00x", "-"]) + " |")
    return lines


def _log_scale_if_possible(axes: Any, values: list[float]) -> None:
    """Log scale spreads policies that differ by orders of magnitude; tiny runs may have nothing positive."""
    if any(value > 0 and math.isfinite(value) for value in values):
        axes.set_yscale("log")


def _plot_levels(point: PointResult, path: Path) -> None:
    figure, axes = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / max(1, len(point.summaries))
    for offset, (name, summary) in enumerate(point.summaries.items()):
        xs = [level + (offset - (len(point.summaries) - 1) / 2) * width for level in ESI_LEVELS]
        axes.bar(xs, [summary.per_level[level] for level in ESI_LEVELS], width=width, label=name)
    if point.limits:
        limits = [point.limits.get(level, math.nan) for level in ESI_LEVELS]
        axes.scatter(list(ESI_LEVELS), limits, marker="_", s=900, color="black", zorder=3, label="limit")
    axes.set_xticks(list(ESI_LEVELS), [f"ESI {level}" for level in ESI_LEVELS])
    _log_scale_if_possible(axes, [s.per_level[level] for s in point.summaries.values() for level in ESI_LEVELS])
    axes.set_ylabel("normalized waiting time (s / token)")
    axes.set_title("Mean normalized waiting time per ESI level")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _sweep_label(result: ExperimentResult) -> tuple[str, list[str]]:
    experiment = get_experiment(result.experiment)
    keys = sorted({key for values in experiment.sweep for key in values})
    labels = [", ".join(f"{key}={getattr(point.params, key)}" for key in keys) for point in result.points]
    return " / ".join(keys), labels


def _plot_sweep(result: ExperimentResult, path: Path) -> None:
    axis_name, labels = _sweep_label(result)
    figure, axes = plt.subplots(figsize=(9, 4.5))
    for name in result.headline.summaries:
        axes.plot(
            range(len(labels)), [point.summaries[name].per_level[1] for point in result.points], marker="o", label=name
        )
    if all(point.limits for point in result.points):
        limits = [point.limits[1] for point in result.points]
        axes.plot(range(len(labels)), limits, linestyle="--", color="black", label="ESI 1 limit")
    axes.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
    _log_scale_if_possible(axes, [p.summaries[n].per_level[1] for p in result.points for n in p.summaries])
    axes.set_xlabel(axis_name)
    axes.set_ylabel("ESI 1 normalized waiting time (s / token)")
    axes.set_title(f"{result.experiment}: ESI 1 across the sweep")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_report(result: ExperimentResult, out_dir: Path) -> list[Path]:
    """Write report.md, result.json, per_level.png and (for a sweep) sweep_esi1.png; returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    experiment = get_experiment(result.experiment)
    written = [out_dir / "report.md", out_dir / "result.json", out_dir / "per_level.png"]
    lines = [
        f"# Simulation: {result.experiment}",
        "",
        experiment.description + ".",
        "",
        "Mean normalized waiting time (finish - arrival, divided by generated tokens), seconds per token, per true"
        " ESI level; in brackets each baseline's ratio to `semantic` (above 1 = semantic is better)."
        " The `limit` row is `semantic`'s wait for level k on the same workload holding only the requests of"
        " levels 1..k (same arrivals, lengths and predictions); `ESI 1 x limit` is each policy's ESI 1 figure"
        " divided by that limit (1.00x = no interference from less urgent work; the limit is itself a simulation,"
        " so a figure may fall slightly below it).",
        "",
        "Parameters: " + ", ".join(f"`{key}={value}`" for key, value in result.headline.params.to_json().items()),
        "",
        *point_table(result.headline),
        "",
        "![per level](per_level.png)",
    ]
    if result.points:
        written.append(out_dir / "sweep_esi1.png")
        axis_name, labels = _sweep_label(result)
        lines += ["", f"## Sweep over {axis_name}", ""]
        for label, point in zip(labels, result.points, strict=True):
            lines += [f"### {label}", "", *point_table(point), ""]
        lines.append("![sweep](sweep_esi1.png)")
        _plot_sweep(result, written[-1])
    (out_dir / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out_dir / "result.json").write_text(json.dumps(result.to_json(), indent=2) + "\n", encoding="utf-8")
    _plot_levels(result.headline, out_dir / "per_level.png")
    return written
