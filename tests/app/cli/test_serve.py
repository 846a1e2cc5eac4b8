"""`triage-dispatch serve` as a process: whatever signal stops it, no child it started is left running, and a second
instance on the same data directory is refused."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from app.cli.serve import AnotherInstanceError, Children, die_with_parent, instance_lock, stop_group
from app.redis.local import free_port

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from scheduler.engines.tiny_models import build_tiny_llama

    return build_tiny_llama(tmp_path_factory.mktemp("model"))


def test_a_second_lock_on_the_same_data_directory_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    with instance_lock(tmp_path):
        assert (tmp_path / "serve.lock").read_text() == f"{os.getpid()}\n"
        refused = pytest.raises(AnotherInstanceError, match=f"pid {os.getpid()}\\) is running on {tmp_path}")
        with refused, instance_lock(tmp_path):
            pass
    with instance_lock(tmp_path):  # released when the block ends
        pass


def start_serve(home: Path, tiny_llama: Path, small_model_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "HOME": str(home),
        "TRIAGE_DATABASE_URL": f"sqlite:///{home / 'triage.db'}",
        "TRIAGE_ENGINE": "hf",  # starts in a second: this test is about the processes, not the engine
        "TRIAGE_MODEL": str(tiny_llama),
        "TRIAGE_MODEL_DIR": str(small_model_dir),
    }
    env.pop("TRIAGE_REDIS_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=(home / "serve.log").open("ab"),
        stderr=subprocess.STDOUT,
    )


def wait_for_children(serve: subprocess.Popen[bytes], port: int, home: Path) -> list[psutil.Process]:
    """Every process of the instance once the web app answers: redis-server, Celery (and its pool), the engine
    worker."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.5)
    else:
        raise AssertionError("serve did not answer /healthz\n" + (home / "serve.log").read_text(errors="replace"))
    descendants = psutil.Process(serve.pid).children(recursive=True)
    names = " ".join(" ".join(process.cmdline()) for process in descendants)
    assert "redis-server" in names and " worker" in names and "engine run" in names, names
    return descendants


def redis_server_pids() -> set[int]:
    return {process.pid for process in psutil.process_iter(["name"]) if process.info["name"] == "redis-server"}


def stop_and_assert_no_child_left(
    serve: subprocess.Popen[bytes], stop: signal.Signals, descendants: list[psutil.Process], home: Path
) -> None:
    serve.send_signal(stop)  # to serve alone, not to its process group
    serve.wait(timeout=90)
    _gone, alive = psutil.wait_procs(descendants, timeout=60)
    assert alive == [], [" ".join(process.cmdline()) for process in alive]
    if stop != signal.SIGKILL:
        assert serve.returncode == 0, (home / "serve.log").read_text(errors="replace")


def kill_what_is_left(serve: subprocess.Popen[bytes], descendants: list[psutil.Process]) -> None:
    for process in descendants:
        with contextlib.suppress(psutil.Error):
            process.kill()
    if serve.poll() is None:
        serve.kill()


# SIGTERM is the next test's stop (one instance started for both claims: CI time).
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP, signal.SIGKILL])
def test_a_signal_to_serve_alone_leaves_no_child_running(
    stop: signal.Signals, tmp_path: Path, tiny_llama: Path, small_model_dir: Path
) -> None:
    port = free_port()
    serve = start_serve(tmp_path, tiny_llama, small_model_dir, port)
    descendants: list[psutil.Process] = []
    try:
        descendants = wait_for_children(serve, port, tmp_path)
        stop_and_assert_no_child_left(serve, stop, descendants, tmp_path)
    finally:
        kill_what_is_left(serve, descendants)


def test_a_second_serve_on_the_same_data_directory_is_refused_and_a_sigterm_to_the_first_leaves_no_child(
    tmp_path: Path, tiny_llama: Path, small_model_dir: Path
) -> None:
    port = free_port()
    first = start_serve(tmp_path, tiny_llama, small_model_dir, port)
    descendants: list[psutil.Process] = []
    try:
        descendants = wait_for_children(first, port, tmp_path)
        redis_servers_before = redis_server_pids()
        second = subprocess.run(
            [sys.executable, "-m", "app.cli.main", "serve", "--port", str(free_port())],
            env={**os.environ, "HOME": str(tmp_path), "TRIAGE_DATABASE_URL": f"sqlite:///{tmp_path / 'triage.db'}"},
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 1
        assert f"another `triage-dispatch serve` (pid {first.pid}) is running on" in " ".join(second.stdout.split())
        assert redis_server_pids() == redis_servers_before  # the second one started no redis-server
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
        stop_and_assert_no_child_left(first, signal.SIGTERM, descendants, tmp_path)
    finally:
        kill_what_is_left(first, descendants)


def test_serve_prints_a_database_url_without_its_password() -> None:
    from app.cli.serve import _safe_url

    assert _safe_url("postgresql+psycopg://triage:pa55word@db.example:5432/triage") == (
        "postgresql+psycopg://triage:***@db.example:5432/triage"
    )
    assert _safe_url("sqlite:////srv/triage.db") == "sqlite:////srv/triage.db"


def test_a_child_stopped_is_stopped_with_the_processes_it_left_in_its_group() -> None:
    """A child that ends without stopping its own children (the engine worker killed while vLLM's engine core loads
    the model, say) orphans them in its process group: `serve` stops them too, and says which."""
    script = "import subprocess, time; print(subprocess.Popen(['sleep', '600']).pid, flush=True); time.sleep(600)"
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, preexec_fn=die_with_parent)
    assert child.stdout is not None
    orphan = psutil.Process(int(child.stdout.readline()))
    children = Children()
    children.add(child)
    try:
        children.stop()  # SIGTERM ends the child at once (Python's default), not its `sleep`
        assert child.returncode == -signal.SIGTERM
        assert psutil.wait_procs([orphan], timeout=5)[1] == []
    finally:
        with contextlib.suppress(psutil.Error):
            orphan.kill()
    assert stop_group(child.pid) == []  # nothing left to stop
