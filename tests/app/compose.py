"""What `docker compose config` does with docker-compose.yml, in Python (no Docker CLI here): env files read the way
compose-go reads them, `${VAR}` interpolation, profiles, and validation against the Compose spec's JSON schema
(`tests/app/deploy_schema/`). Only the parts the pilot uses; anything else is refused rather than guessed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = Path(__file__).with_name("deploy_schema") / "compose-spec.json"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_OPERATORS = (":-", ":?", ":+", "-", "?", "+")

Lookup = Callable[[str], str | None]


class InterpolationError(ValueError):
    """A `${VAR:?message}` whose variable is unset or empty (Compose stops with the message), or a malformed `$`."""


@dataclass
class Interpolation:
    """One interpolation pass: the variables read with no default, and those that were unset (Compose warns and uses
    an empty string)."""

    lookup: Lookup
    without_default: set[str] = field(default_factory=set)
    unset: set[str] = field(default_factory=set)

    def substitute(self, text: str) -> str:
        """`text` with `$$`, `$VAR` and `${VAR[op]word}` replaced (op: `:-` `-` `:?` `?` `:+` `+`; word is itself
        interpolated, only when used)."""
        out: list[str] = []
        index = 0
        while index < len(text):
            char = text[index]
            if char != "$":
                out.append(char)
                index += 1
                continue
            following = text[index + 1 : index + 2]
            if following == "$":
                out.append("$")
                index += 2
            elif following == "{":
                end = _closing_brace(text, index + 2)
                out.append(self._braced(text[index + 2 : end]))
                index = end + 1
            else:
                match = _NAME.match(text, index + 1)
                if match is None:
                    raise InterpolationError(f"invalid interpolation format in {text!r}")
                out.append(self._value(match.group(), None, ""))
                index = match.end()
        return "".join(out)

    def _braced(self, body: str) -> str:
        match = _NAME.match(body)
        if match is None:
            raise InterpolationError(f"invalid interpolation format: ${{{body}}}")
        rest = body[match.end() :]
        if not rest:
            return self._value(match.group(), None, "")
        operator = next((op for op in _OPERATORS if rest.startswith(op)), None)
        if operator is None:
            raise InterpolationError(f"invalid interpolation format: ${{{body}}}")
        return self._value(match.group(), operator, rest[len(operator) :])

    def _value(self, name: str, operator: str | None, word: str) -> str:
        value = self.lookup(name)
        if operator in (None, "?", ":?"):
            self.without_default.add(name)
        if operator is None:
            if value is None:
                self.unset.add(name)
            return value or ""
        empty_counts = operator.startswith(":")
        missing = value is None or (empty_counts and value == "")
        if operator in (":-", "-"):
            return self.substitute(word) if missing else str(value)
        if operator in (":?", "?"):
            if missing:
                raise InterpolationError(f"required variable {name} is missing a value: {self.substitute(word)}")
            return str(value)
        return "" if missing else self.substitute(word)  # :+ and +

    def walk(self, node: Any) -> Any:
        """A YAML document with every string value interpolated (mapping keys are left as they are)."""
        if isinstance(node, dict):
            return {key: self.walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [self.walk(value) for value in node]
        if isinstance(node, str):
            return self.substitute(node)
        return node


def _closing_brace(text: str, start: int) -> int:
    depth = 1
    index = start
    while index < len(text):
        if text.startswith("${", index):
            depth += 1
            index += 2
            continue
        if text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise InterpolationError(f"unclosed ${{ in {text!r}")


def parse_env_file(text: str, lookup: Lookup, into: dict[str, str] | None = None) -> dict[str, str]:
    """An env file as compose-go's dotenv reads the forms used here, `KEY=value` (a ` #` starts a comment;
    interpolated), `KEY='literal'` and `KEY="interpolated"`, written into `into` (the variables of the files read
    before, which a later line overrides); a name is looked up with `lookup` (the shell) first, then in `into`."""
    values = {} if into is None else into
    interpolation = Interpolation(lambda name: value if (value := lookup(name)) is not None else values.get(name))
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, equals, value = line.partition("=")
        if not equals or not _ENV_KEY.fullmatch(key):
            raise ValueError(f"line {number}: not KEY=VALUE: {raw!r}")
        if value.startswith("'"):
            if len(value) < 2 or not value.endswith("'") or "'" in value[1:-1]:
                raise ValueError(f"line {number}: a single-quoted value must close at the end of the line")
            values[key] = value[1:-1]
        elif value.startswith('"'):
            if len(value) < 2 or not value.endswith('"') or '"' in value[1:-1] or "\\" in value:
                raise ValueError(f"line {number}: only simple double-quoted values are supported here")
            values[key] = interpolation.substitute(value[1:-1])
        else:
            values[key] = interpolation.substitute(value.split(" #", 1)[0].strip())
    return values


def project_environment(env_files: Iterable[Path], shell: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables Compose interpolates with: the env files in order (each may use the ones before it, and the
    shell's), the shell's own winning over all of them (compose-go `GetEnvFromFile`, `Mapping.Merge`)."""
    shell = dict(shell or {})
    loaded: dict[str, str] = {}
    for path in env_files:
        parse_env_file(path.read_text(encoding="utf-8"), shell.get, loaded)
    return {**loaded, **shell}


def active_profiles(environment: Mapping[str, str], flags: Iterable[str] = ()) -> set[str]:
    """`--profile` flags if any, else COMPOSE_PROFILES (compose-go `WithDefaultProfiles`)."""
    chosen = list(flags) or environment.get("COMPOSE_PROFILES", "").split(",")
    return {profile.strip() for profile in chosen if profile.strip()}


def load(path: Path = ROOT / "docker-compose.yml") -> dict[str, Any]:
    """The compose file as YAML (anchors and `<<` merges resolved), before interpolation."""
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def config(
    environment: Mapping[str, str], path: Path = ROOT / "docker-compose.yml"
) -> tuple[dict[str, Any], Interpolation]:
    """The interpolated compose file and what the interpolation read."""
    interpolation = Interpolation(environment.get)
    return interpolation.walk(load(path)), interpolation


def compose_schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return loaded


def validate(project: Mapping[str, Any]) -> None:
    """jsonschema.ValidationError unless `project` is a valid Compose file (the published schema, draft 7)."""
    schema = compose_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(project)


def enabled_services(project: Mapping[str, Any], profiles: Iterable[str]) -> set[str]:
    """The services `up` starts with these profiles active: those without profiles, and those with an active one."""
    active = set(profiles)
    return {
        name
        for name, service in project["services"].items()
        if not service.get("profiles") or "*" in active or active & set(service["profiles"])
    }


def missing_dependencies(project: Mapping[str, Any], enabled: set[str]) -> set[tuple[str, str]]:
    """(service, dependency) for each required `depends_on` of an enabled service that is not enabled (Compose
    refuses to start the project then)."""
    missing: set[tuple[str, str]] = set()
    for name in enabled:
        depends = project["services"][name].get("depends_on", {})
        items = {dependency: {} for dependency in depends} if isinstance(depends, list) else depends
        for dependency, options in items.items():
            if dependency not in enabled and options.get("required", True):
                missing.add((name, dependency))
    return missing


def undeclared_volumes(project: Mapping[str, Any]) -> set[tuple[str, str]]:
    """(service, volume) for each named volume a service mounts (short syntax) that the top-level `volumes` does
    not declare (Compose refuses the project: "refers to undefined volume")."""
    declared = set(project.get("volumes") or {})
    undeclared: set[tuple[str, str]] = set()
    for name, service in project["services"].items():
        for mount in service.get("volumes", []):
            source = mount.split(":", 1)[0]
            if ":" in mount and not source.startswith((".", "/", "~")) and source not in declared:
                undeclared.add((name, source))
    return undeclared
