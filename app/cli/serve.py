"""`triage-dispatch serve`: one instance per data directory, its children stopped whatever signal stops it."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import IO, Annotated, Any

import typer
from rich.console import Console

_out = Console()
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
CHILD_STOP_S = 20.0
"""How long each child gets to stop after SIGTERM before it is killed."""


class AnotherInstanceError(RuntimeError):
    """A `serve` already runs on this data directory."""


@contextmanager
def instance_lock(data_dir: Path) -> Iterator[IO[str]]:
    """Hold `<data_dir>/serve.lock` for the block (released by the kernel whenever the process ends, even killed),
    or refuse with the pid of the instance holding it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "serve.lock"
    handle = path.open("a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise AnotherInstanceError(
            f"another `triage-dispatch serve` (pid {holder}) is running on {data_dir}; stop it first, or give this "
            "one its own HOME (the data directory) and TRIAGE_DATABASE_URL"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    try:
        yield handle
    finally:
        handle.close()


GROUP_SETTLE_S = 2.0
"""After a child has stopped, how long the rest of its process group gets to end by itself (Python's resource tracker
ends when its parent does)."""
GROUP_STOP_S = 5.0
"""Then how long what is still left of the group gets after SIGTERM before SIGKILL."""


class Children:
    """The processes `serve` started, stopped in reverse order (redis-server, started first, stops last), each with
    whatever it started itself: every child leads a process group of its own (`die_with_parent`), which its own
    children join, vLLM's engine core and model workers included."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen[bytes]] = []

    def add(self, process: subprocess.Popen[bytes]) -> None:
        self.processes.append(process)

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=CHILD_STOP_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            stop_group(process.pid)


def stop_group(pgid: int, settle_s: float = GROUP_SETTLE_S, grace_s: float = GROUP_STOP_S) -> list[str]:
    """End what is left of a stopped child's process group, after `settle_s` for it to end by itself (a child killed
    before it could stop its own children orphans them there): SIGTERM, then SIGKILL after `grace_s`. The command
    lines of the processes it had to stop (said on the console)."""
    if not _group_outlives(pgid, settle_s):
        return []
    left = list(_group_members(pgid).values())
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
    if _group_outlives(pgid, grace_s):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
    _out.print(f"stopped {len(left)} process(es) left in process group {pgid}: {'; '.join(left)}", markup=False)
    return left


def _group_outlives(pgid: int, timeout_s: float) -> bool:
    """Whether a process of the group still runs after up to `timeout_s` (waited for as long as one does)."""
    deadline = time.monotonic() + timeout_s
    while _group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return bool(_group_members(pgid))


def _group_members(pgid: int) -> dict[int, str]:
    """The group's running processes (zombies, waiting for init to reap them, are not) by pid: their command lines."""
    members = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                members[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except (OSError, IndexError, ValueError):
            continue
    return members


class _Stop(SystemExit):
    """Raised from a signal handler so that `serve`'s cleanup runs instead of the default action."""


def _raise_stop(signum: int, _frame: FrameType | None) -> None:
    raise _Stop(128 + signum)


@contextmanager
def stop_on_signals(server: Any) -> Iterator[None]:
    """While serving: SIGHUP asks uvicorn to shut down as SIGTERM and SIGINT do; after uvicorn re-raises the signal
    it caught (it does, once shut down), `_Stop` unwinds to the cleanup instead of the default action (for SIGTERM
    and SIGHUP, death without cleanup: the children were left running)."""

    def hangup(_signum: int, _frame: FrameType | None) -> None:
        server.should_exit = True

    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _raise_stop)
    signal.signal(signal.SIGHUP, hangup)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Run everything one machine needs: Redis (started if TRIAGE_REDIS_URL is unset), migrations, a Celery
    worker, the engine worker and the web app. One instance per data directory; SIGTERM, SIGINT or SIGHUP to this
    process alone stops every child it started."""
    from app.settings import DATA_DIR

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        with instance_lock(DATA_DIR):
            _serve_locked(host, port)
    except AnotherInstanceError as error:
        _out.print(f"[red]{error}[/red]")
        raise typer.Exit(1) from None
    except _Stop as stop:
        raise typer.Exit(0) from stop


def _serve_locked(host: str, port: int) -> None:
    import uvicorn

    from app.api.main import create_app
    from app.api.server import uvicorn_config
    from app.cli.ops import checked_settings
    from app.db.migrate import upgrade
    from app.settings import get_settings

    checked_settings()
    children = Children()
    signal.signal(signal.SIGTERM, _raise_stop)  # until uvicorn runs: a signal during start-up stops the children
    signal.signal(signal.SIGHUP, _raise_stop)
    try:
        env = _start_redis(children)
        settings = get_settings()
        upgrade(settings.database_url)
        _out.print(f"database: {_safe_url(settings.database_url)}")
        cli = [sys.executable, "-m", "app.cli.main"]
        children.add(subprocess.Popen([*cli, "worker"], env=env, preexec_fn=die_with_parent))
        children.add(subprocess.Popen([*cli, "engine", "run"], env=env, preexec_fn=die_with_parent))
        _out.print(f"engine: {settings.engine} serving {settings.model}")
        setup_link = _print_addresses(settings, host, port)
        app = create_app(settings, setup_link=setup_link)
        server = uvicorn.Server(uvicorn_config(app, settings, host, port))
        with stop_on_signals(server):
            server.run()
    finally:
        children.stop()


def _print_addresses(settings: Any, host: str, port: int) -> Any:
    """Where to go: the console (or, with no user yet, a one-time link that creates the first supervisor), the API
    and a sample call; the setup link when there is one."""
    from app.console.first_run import SETUP_PATH, SetupLink, needs_setup

    base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    link = None
    if needs_setup(settings.database_url):
        token, link = SetupLink.issue()
        _out.print(f"[bold]first run: create the first supervisor at {base}{SETUP_PATH}?token={token}[/bold]")
        _out.print("  (a one-time link; or `triage-dispatch users add NAME --role supervisor`)")
    else:
        _out.print(f"[bold]console: {base}/console/[/bold]")
    _out.print(f"API: {base}/docs · webhooks: {base}/v1/intake/<source> · health: {base}/readyz")
    _out.print("send sample calls: triage-dispatch demo")
    return link


def die_with_parent() -> None:
    """In a child, before it runs: the kernel sends it SIGTERM if `serve` dies, even by SIGKILL (Linux); and its
    own process group, so that a terminal's Ctrl-C reaches `serve` alone, which stops the children in order (the
    engine worker stops vLLM's engine core itself, redis-server goes last) instead of all of them at once."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    os.setpgid(0, 0)


def _stop_orphaned_redis(directory: Path) -> None:
    """A redis-server left on these files by an instance that could not clean up (we hold the lock now)."""
    pidfile = directory / "redis.pid"
    try:
        pid = int(pidfile.read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return
    if b"redis-server" in cmdline:
        os.kill(pid, signal.SIGTERM)
        _out.print(f"stopped redis-server pid {pid}, left running on {directory} by an earlier instance")


def _start_redis(children: Children) -> dict[str, str]:
    """The children's environment, with a local redis-server started (a child) when TRIAGE_REDIS_URL is unset."""
    from app.redis.local import start_redis_server
    from app.settings import DATA_DIR, get_settings

    env = dict(os.environ)
    if get_settings().redis_url is None:
        _stop_orphaned_redis(DATA_DIR / "redis")
        process, url = start_redis_server(DATA_DIR / "redis", preexec_fn=die_with_parent)
        (DATA_DIR / "redis" / "redis.pid").write_text(f"{process.pid}\n", encoding="utf-8")
        children.add(process)
        env["TRIAGE_REDIS_URL"] = os.environ["TRIAGE_REDIS_URL"] = url
        get_settings.cache_clear()
        _out.print(f"started redis-server at {url} (data in {DATA_DIR / 'redis'})")
    return env


def _safe_url(url: str) -> str:
    """A database URL with its password masked."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
