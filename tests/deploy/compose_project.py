"""The compose pilot as the test drives it: Compose 1.29 (Debian's docker-compose) on the pilot's Docker Engine, in a
scratch project directory holding the compose files, the Caddyfile and the .env an operator writes."""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT_FILES = ("docker-compose.yml", "deploy/Caddyfile", "deploy/sentinel.env", "deploy/pilot/compose.local.yml")


class ComposeError(RuntimeError):
    """A docker-compose or docker command failed: its command line and what it printed."""


def run(command: list[str], stdin: str | None = None, timeout_s: float = 900) -> str:
    """Run `command`, its standard output; ComposeError with its output when it fails."""
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=timeout_s, check=False)
    if done.returncode != 0:
        raise ComposeError(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return done.stdout


@dataclass
class ComposeProject:
    """One compose project: `docker-compose -f docker-compose.yml -f deploy/pilot/compose.local.yml`, reading the
    variables of `env_file` (the project's .env unless another file, such as .env plus deploy/sentinel.env, is set)."""

    directory: Path
    name: str = "triage-pilot"
    env_file: str = ".env"

    @classmethod
    def create(cls, directory: Path, env: str) -> ComposeProject:
        """A project directory with the repository's compose files and `env` as its .env (the app's env_file)."""
        for name in PROJECT_FILES:
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, directory / name)
        (directory / "deploy" / "certs").mkdir(exist_ok=True)
        (directory / ".env").write_text(env, encoding="utf-8")
        return cls(directory)

    def compose(self, *arguments: str, stdin: str | None = None, timeout_s: float = 900) -> str:
        files = ("-f", str(self.directory / PROJECT_FILES[0]), "-f", str(self.directory / PROJECT_FILES[3]))
        return run(
            [
                "docker-compose",
                "--project-name",
                self.name,
                "--project-directory",
                str(self.directory),
                "--env-file",
                str(self.directory / self.env_file),
                *files,
                *arguments,
            ],
            stdin,
            timeout_s,
        )

    def container(self, service: str) -> str:
        """The id of the service's container."""
        return self.compose("ps", "-q", service).strip()

    def health(self, service: str) -> str:
        """`healthy`, `starting`, `unhealthy`, or the state of a container without a health check."""
        return run(
            [
                "docker",
                "inspect",
                "--format",
                "{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}",
                self.container(service),
            ]
        ).strip()

    def wait_healthy(self, services: tuple[str, ...], timeout_s: float) -> float:
        """Seconds until every service is healthy; ComposeError naming the ones that are not, with their logs."""
        start = time.monotonic()
        while True:
            states = {service: self.health(service) for service in services}
            if all(state == "healthy" for state in states.values()):
                return time.monotonic() - start
            if time.monotonic() - start > timeout_s:
                late = [service for service, state in states.items() if state != "healthy"]
                logs = self.compose("logs", "--no-color", "--tail", "40", *late)
                raise ComposeError(f"not healthy within {timeout_s:.0f} s: {states}\n{logs}")
            time.sleep(3)
