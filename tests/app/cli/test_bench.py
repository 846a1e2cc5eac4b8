"""Tests for `triage-dispatch bench ...` through the real Typer app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli

runner = CliRunner()


def test_bench_sim_json_prints_one_object_with_every_policy() -> None:
    result = runner.invoke(cli, ["bench", "sim", "--concurrency", "8", "--bursts", "3", "--seed", "4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["experiment"] == "spikes"
    assert data["params"]["seed"] == 4
    assert set(data["policies"]) == {"semantic", "semantic-strict", "fcfs", "sjf", "hpjf", "vllm-priority"}


def test_bench_sim_table_shows_ratios_to_semantic() -> None:
    result = runner.invoke(cli, ["bench", "sim", "--concurrency", "8", "--bursts", "3"])
    assert result.exit_code == 0, result.output
    assert "vllm-priority" in result.stdout
    assert "x)" in result.stdout


def test_bench_sim_out_writes_report_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = runner.invoke(
        cli, ["bench", "sim", "--experiment", "batch-size", "--bursts", "2", "--sweep", "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    written = sorted(path.name for path in out.iterdir())
    assert written == ["per_level.png", "report.md", "result.json", "sweep_esi1.png"]
    assert (out / "per_level.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "## Sweep over predictor_batch_size / predictor_mode" in (out / "report.md").read_text()


def test_unknown_experiment_is_a_usage_error() -> None:
    result = runner.invoke(cli, ["bench", "sim", "--experiment", "tsunami"])
    assert result.exit_code == 2
    assert "unknown experiment 'tsunami'" in result.output


def test_error_rate_outside_an_error_experiment_is_refused() -> None:
    result = runner.invoke(cli, ["bench", "sim", "--error-rate", "0.3"])
    assert result.exit_code == 2
    assert "--error-rate applies to" in result.output


def test_bench_overhead_json_has_sizes() -> None:
    result = runner.invoke(cli, ["bench", "overhead", "--sizes", "50,100", "--decisions", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["sizes"]) == {"50", "100"}
    assert set(data["sizes"]["50"]) == {"semantic_us", "baseline_us", "evictions_per_decision"}


def test_bench_engine_json_has_both_schedulers() -> None:
    result = runner.invoke(cli, ["bench", "engine", "--requests", "14", "--repeats", "1", "--json"])  # one ESI 1
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == ["schedulers", "limit"]
    assert set(data["schedulers"]) == {"semantic", "fifo"}
    semantic = data["schedulers"]["semantic"]
    assert set(semantic) == {"ttft_p50_ms", "ttft_p99_ms", "normalized_wait_s", "evictions", "tokens_per_s"}
    assert semantic["tokens_per_s"] > 0
    # The limit: the burst's ESI 1 requests alone, under the semantic scheduler.
    assert list(data["limit"]) == ["ttft_p99_ms"]
    esi1_limit = data["limit"]["ttft_p99_ms"]["1"]
    assert esi1_limit is not None and esi1_limit > 0
    assert "1" in semantic["ttft_p99_ms"]


def test_bench_engine_vllm_runs_real_execution_on_the_cpu_against_stock_priority() -> None:
    pytest.importorskip("vllm", reason="the vllm extra is installed by `make test`")
    command = ["bench", "engine", "--engine", "vllm", "--requests", "14", "--repeats", "1", "--json"]
    result = runner.invoke(cli, command)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data) == ["executor", "schedulers", "limit"]
    assert data["executor"] == "cpu"
    assert set(data["schedulers"]) == {"semantic", "stock-priority"}
    for figures in data["schedulers"].values():
        assert set(figures) == {"ttft_p50_ms", "ttft_p99_ms", "normalized_wait_s", "preemptions", "tokens_per_s"}
        assert figures["tokens_per_s"] > 0 and "1" in figures["ttft_p99_ms"]
    assert data["schedulers"]["stock-priority"]["preemptions"] == 0  # stock vLLM never preempts for a waiting one
    assert data["limit"]["ttft_p99_ms"]["1"] > 0


def test_bench_engine_refuses_the_other_engines_baseline() -> None:
    result = runner.invoke(cli, ["bench", "engine", "--engine", "vllm", "--scheduler", "fifo"])
    assert result.exit_code == 2
    assert "unknown scheduler 'fifo'" in result.output


def test_bench_engine_refuses_an_unknown_engine() -> None:
    result = runner.invoke(cli, ["bench", "engine", "--engine", "tgi"])
    assert result.exit_code == 2
    assert "unknown engine 'tgi'" in result.output


def test_bench_vllm_scheduler_json_compares_stock_and_semantic() -> None:
    pytest.importorskip("vllm", reason="the vllm extra is installed by `make test`")
    result = runner.invoke(cli, ["bench", "vllm-scheduler", "--requests", "20", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["schedulers"]
    assert set(data) == {"stock-priority", "semantic"}
    assert set(data["semantic"]) >= {"ttft_steps_p99", "ttft_s_p99", "preemptions"}
    assert data["semantic"]["finished"] == data["stock-priority"]["finished"] == 20


def test_bench_intake_measures_a_real_stack_and_prints_json(
    small_model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRIAGE_MODEL_DIR", str(small_model_dir))
    result = runner.invoke(cli, ["bench", "intake", "--messages", "30", "--concurrency", "5", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["messages"] == 30 and figures["concurrency"] == 5
    assert figures["accepted_per_s"] > 0 and figures["baseline_per_s"] > 0
    assert 0 < figures["post_p50_ms"] <= figures["post_p99_ms"]
    assert 0 < figures["queued_p50_ms"] <= figures["queued_p99_ms"]


def test_bench_console_measures_the_server_refresh_side_by_side() -> None:
    result = runner.invoke(cli, ["bench", "console", "--incidents", "40", "--baseline", "5", "--no-browser", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["incidents"]["incidents"] == 40 and figures["baseline"]["incidents"] == 5
    assert figures["incidents"]["html_kb"] > figures["baseline"]["html_kb"] > 0
    assert figures["incidents"]["screen_refresh_interval_ms"] is None  # no browser asked for
    assert figures["incidents"]["intake_to_row_ms"] is None and figures["incidents"]["shown_rows"] is None
    table = runner.invoke(
        cli, ["bench", "console", "--incidents", "3", "--baseline", "1", "--no-browser"], env={"COLUMNS": "200"}
    )
    assert table.exit_code == 0, table.output
    assert "┃ requests/min ┃ intake to row ms ┃" in table.output
    assert [line.count("│") for line in table.output.splitlines() if line.startswith("│")] == [9, 9]  # 8 columns


def test_bench_overload_json_compares_shedding_with_none_and_the_limit() -> None:
    args = ["bench", "overload", "--duration", "20", "--repeats", "1", "--seed", "2", "--json"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert list(data["runs"]) == [
        "shedding",
        "shedding-without-overload-mode",
        "no-shedding",
        "shedding-strict-esi2",
        "limit",
    ]
    assert data["arrival_calls_per_s"] == pytest.approx(3 * data["capacity_calls_per_s"])
    assert [data["runs"]["shedding"][str(level)]["shed"] for level in (1, 2, 3)] == [0, 0, 0]
    assert data["runs"]["limit"]["1"]["within_deadline"] is None  # ESI 1 has no deadline


def test_bench_overload_refuses_a_load_of_zero() -> None:
    result = runner.invoke(cli, ["bench", "overload", "--load", "0"])
    assert result.exit_code == 2
    assert "load" in result.output
