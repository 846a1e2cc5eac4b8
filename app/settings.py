"""Settings from `TRIAGE_*` environment variables, with embedded defaults and the checks production needs."""

from __future__ import annotations

import base64
import binascii
import functools
import ipaddress
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app.incidents.text_limits import FreeTextLimits
from app.intake.limits import DEFAULT_INTAKE_LIMIT, DEFAULT_LIVE_CALL_LIMIT, IntakeLimitError, parse_limit
from app.redis.urls import RedisURL
from scheduler.cost_model import PROFILES
from scheduler.engines.base import ENGINE_NAMES
from scheduler.policy import DEFAULT_POLICY, PolicyOptions
from scheduler.shedding import OVERLOAD_CALM_S, SheddingOptions

DATA_DIR = Path.home() / ".local" / "share" / "triage-dispatch"
DEFAULT_LLM = "Qwen/Qwen2.5-0.5B-Instruct"
"""The small instruct model the engine serves by default: downloaded once from the Hugging Face hub (internet
needed once), or any local directory with the same files."""
PLACEHOLDER_SECRET = "whsec_" + base64.b64encode(b"triage-dispatch development secret").decode()
"""The `demo` source's secret out of the box on a laptop (`triage-dispatch demo` signs with it); refused in
production."""
CONSOLE_PLACEHOLDER_SECRET = "whsec_" + base64.b64encode(b"triage-dispatch console development secret").decode()
"""The `console` source's, likewise: a secret belongs to one source only, placeholders included."""
PLACEHOLDER_SECRETS = (PLACEHOLDER_SECRET, CONSOLE_PLACEHOLDER_SECRET)


_POLICY_DEFAULTS = PolicyOptions()
MEASURE_COST_MODEL = "measure"
"""`TRIAGE_ENGINE_COST_MODEL`: the engine worker measures its engine's step times at start-up."""


class SettingsError(ValueError):
    """A setting that cannot be used (named, with the reason)."""


def secret_problem(secret: str) -> str:
    """Why `secret` cannot sign a source's calls ("" when it can): `whsec_` and at least 24 bytes of base64."""
    if not secret.startswith("whsec_"):
        return "a secret must start with 'whsec_'"
    try:
        key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except binascii.Error:
        return "the part after 'whsec_' is not base64"
    return "a secret needs at least 24 random bytes" if len(key) < 24 else ""


def _check_secret(source: str, secret: str) -> None:
    if problem := secret_problem(secret):
        raise SettingsError(f"TRIAGE_WEBHOOK_SECRETS[{source!r}]: {problem}")


def _check_one_source_per_secret(webhook_secrets: dict[str, list[str]]) -> None:
    """A secret belongs to one source: a Standard Webhooks signature covers the call's id, time and body, not the
    source it is posted to, so two sources sharing a secret could each send as the other (named, never echoed)."""
    owners: dict[bytes, str] = {}
    for source, secrets in webhook_secrets.items():
        for secret in secrets:
            owner = owners.setdefault(secret_key(secret), source)
            if owner != source:
                raise SettingsError(
                    f"TRIAGE_WEBHOOK_SECRETS: sources {owner!r} and {source!r} share a secret; a secret belongs to "
                    "one source only (a signature does not cover the source it is posted to, so each could send as "
                    "the other): give each source its own (.env.example shows how to make one)"
                )


def secret_key(secret: str) -> bytes:
    """The HMAC key a `whsec_` secret stands for (two spellings of one key are one secret)."""
    return base64.b64decode(secret.removeprefix("whsec_"))


def _comma_separated(value: object) -> object:
    """`a, b` from the environment as ("a", "b"); a list or tuple given in code as is."""
    if isinstance(value, str):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    return value


CommaSeparated = Annotated[tuple[str, ...], NoDecode]
"""A list setting written `a,b,c` in the environment (not JSON)."""


class Settings(BaseSettings):
    """Everything a deployment configures; read once per process (`get_settings`)."""

    model_config = SettingsConfigDict(
        env_prefix="TRIAGE_", extra="ignore", env_parse_none_str="none", hide_input_in_errors=True
    )
    """`none` as a value turns an optional setting off (TRIAGE_POLICY_AGING_INTERVAL_S=none). A refused value is
    named, never echoed: pydantic would otherwise print the input (a webhook secret's tail, a database password)."""

    env: Literal["development", "production"] = "development"
    eido_agency_id: str = Field(default="psap.invalid", pattern=r"^[A-Za-z0-9.-]+$")
    """The centre's NENA Agency Identifier (a domain name) in exported EIDO documents (`docs/eido.md`)."""
    note_max_chars: int = Field(default=2000, ge=100, le=100_000)
    """A note's length at most (`app.incidents.text_limits`)."""
    reason_max_chars: int = Field(default=500, ge=50, le=10_000)
    """An override, card-switch, take-over, correction, merge or close reason's length at most."""
    incident_note_limit: int = Field(default=200, ge=1)
    """Notes one incident may hold."""
    user_note_limit: int = Field(default=30, ge=1)
    """Notes one user may add per `user_note_window_s` (429 with Retry-After past it)."""
    user_note_window_s: float = Field(default=60.0, gt=0)
    cookie_secure: bool | None = None
    """The console's session cookie only over HTTPS; None: in production. Set false for a pilot served over plain
    HTTP (the browser would otherwise never send the cookie back, and sign-in would not stick)."""
    trusted_proxies: CommaSeparated = ()
    """Addresses or networks (`10.0.0.5,172.18.0.0/16`) whose X-Forwarded-For and X-Forwarded-Proto the web app
    believes: the client address the sign-in throttle counts, and https behind a TLS proxy. Empty: nobody's (`serve`
    answers browsers itself, so a forged header changes nothing); the compose pilot names its Caddy proxy. `*`
    (anyone) is refused in production."""
    allowed_hosts: CommaSeparated = ("*",)
    """The names (and addresses) browsers and probes reach the web app by, comma-separated, ports left out
    (`dispatch.example.org,127.0.0.1`; `*.example.org` for subdomains): any other `Host` gets 400 (Starlette's
    TrustedHostMiddleware). `*`: any, refused in production."""
    metrics_token: SecretStr | None = None
    """`/metrics` answers only `Authorization: Bearer <this>` (Prometheus: `authorization: credentials_file`), at least
    16 characters; unset: open in development, off (404) in production."""
    database_url: str = f"sqlite:///{DATA_DIR / 'triage.db'}"
    redis_url: RedisURL | None = None
    """None: `serve` starts a local redis-server; every other process needs it set. `redis://`, `rediss://`,
    `unix://`, or `redis+sentinel://[[user]:password@]host:port[,host:port...]/service[/db][?sentinel_password=...]`
    (`app/redis/urls.py`)."""
    webhook_secrets: dict[str, list[str]] = Field(
        default_factory=lambda: {"console": [CONSOLE_PLACEHOLDER_SECRET], "demo": [PLACEHOLDER_SECRET]}
    )
    """Source name -> its `whsec_` secrets (several during a rotation); a secret belongs to one source only."""
    webhook_tolerance_s: int = 300
    intake_limit: str = DEFAULT_INTAKE_LIMIT
    """Each source's intake limit in `limits` notation (every window must hold); past it a call gets 429 with
    Retry-After and nothing is stored (docs/intake.md#per-source-limits)."""
    intake_limits: dict[str, str] = Field(default_factory=dict)
    """Source name -> its own limit, in place of `intake_limit`."""
    twilio_auth_tokens: dict[str, SecretStr] = Field(default_factory=dict)
    """Source name -> the Twilio account's Auth Token that signs its Real-Time Transcription callbacks
    (`X-Twilio-Signature`) at `POST /v1/intake/twilio/{source}/transcription` (docs/intake.md#live-calls)."""
    twilio_public_url: str | None = Field(default=None, pattern=r"^https?://[^/?#]+$")
    """The scheme and host Twilio calls (`https://dispatch.example.org`) when a proxy sits in front: the URL Twilio
    signed is this plus the path and query; unset: the URL the request reached."""
    live_call_limit: str = DEFAULT_LIVE_CALL_LIMIT
    """Each live call's events (utterances, partials) in `limits` notation: a runaway stream is refused with 429 and
    Retry-After while the source's other calls go on; the source's own limit counts calls, not events."""
    live_stream_timeout_s: float = Field(default=60.0, gt=0)
    """A live call whose stream has sent nothing for this long, and never said it stopped, is ended as "stream
    ended" (its partials kept as final, nothing lost)."""
    secret_grace_s: float = Field(default=86_400.0, gt=0)
    """After `sources rotate-secret`, the secrets it replaces are still accepted this long."""
    max_body_bytes: int = 65_536
    client_header_timeout_s: float = Field(default=10.0, gt=0)
    """`serve`: a request's head (request line and headers) is due this long after the connection opens (or after
    the first byte of the next request on a kept-alive one); else the connection is closed."""
    client_body_timeout_s: float = Field(default=20.0, gt=0)
    """A request's whole body is due this long after its head; else 408 and the connection is closed (bodies are at
    most TRIAGE_MAX_BODY_BYTES, the console's 1 MiB)."""
    dev_open_api: bool = False
    """Development only: the incident API without a token, for local tools."""
    signin_account_failures: int = Field(default=10, ge=1)
    """Failed console sign-ins to one user name within `signin_window_s` before the next attempt gets 429."""
    signin_client_failures: int = Field(default=30, ge=1)
    """Failed console sign-ins from one client address (any user name) within the window before 429."""
    signin_window_s: float = Field(default=60.0, gt=0)
    """The sliding window of the sign-in throttle (kept in Redis when TRIAGE_REDIS_URL is set)."""

    engine: str = "vllm"
    """The embedded engine: `vllm` (the default, measured faster on the CPU: docs/benchmarks.md) or `hf`."""
    model: str = DEFAULT_LLM
    """The LLM the engine serves: a hub id (downloaded once) or a local directory."""
    engine_num_blocks: int = 512
    engine_block_size: int = 16
    engine_max_batch_tokens: int = 512
    engine_max_requests: int = 16
    max_new_tokens: int = 256
    engine_lease_s: float = 30.0
    """An incident taken by an engine worker goes back to the queue if the worker stops renewing this long."""
    engine_cost_model: str = MEASURE_COST_MODEL
    """The engine's step-time cost model, by which the heap and the engine estimate remaining work: `measure` (the
    engine worker times its engine on this machine at start-up, a few seconds), a named profile
    (`scheduler.cost_model.PROFILES`), or the JSON file `triage-dispatch engine profile --out` wrote. The engine
    publishes the model it runs in its heartbeat; the pipeline scores calls with that one."""
    vllm_gpu_memory_utilization: float = 0.85
    """The GPU memory vLLM may take (on a GPU only: on the CPU, `vllm_kv_cache_gib` sizes its cache)."""
    vllm_kv_cache_gib: float | None = Field(default=None, gt=0)
    """vLLM's KV cache; unset: from `vllm_gpu_memory_utilization` on a GPU, and on the CPU from
    `VLLM_CPU_KVCACHE_SPACE` or 1 GiB."""
    vllm_max_model_len: int = Field(default=4096, ge=64)
    """The longest prompt plus answer vLLM serves (capped by the model's own positions)."""
    vllm_enforce_eager: bool | None = None
    """Skip torch.compile: vLLM starts sooner and steps slower; unset: eager on the CPU, compiled on a GPU."""
    vllm_kv_offloading_gib: float | None = None

    model_dir: Path | None = None
    """The triage classifier's directory (default: trained on first use into the user cache)."""
    triage_backend: Literal["trained", "llm"] = "trained"
    """`llm`: the engine's own model (TRIAGE_ENGINE, TRIAGE_MODEL) assigns the ESI level through the product's
    engine; the red-flag rules still set the floor and the trained model answers whenever the LLM fails."""
    triage_llm_timeout_s: float = Field(default=20.0, gt=0)
    """The llm backend's wait for an answer (engine start included); past it the trained model's level is used."""
    outbox_redeliver_s: float = 30.0
    """A stored message not yet classified is handed to the workers again after this long."""
    reconcile_interval_s: float = 2.0
    celery_visibility_timeout_s: int = 300
    queue_prefix: str = "triage"
    # The scheduling policy every queue and engine orders by, and its options (`scheduler.policy.PolicyOptions`,
    # whose defaults these are).
    scheduling_policy: Literal["semantic", "semantic-strict"] = DEFAULT_POLICY
    policy_limited_preemption: float | None = _POLICY_DEFAULTS.limited_preemption
    policy_max_preemptions: int | None = _POLICY_DEFAULTS.max_preemptions
    policy_aging_interval_s: float | None = _POLICY_DEFAULTS.aging_interval_s
    policy_reserved_kv_share: float = _POLICY_DEFAULTS.reserved_kv_share
    policy_level_weights: tuple[float, float, float, float, float] = _POLICY_DEFAULTS.level_weights
    policy_level_deadlines_s: tuple[float | None, float | None, float | None, float | None, float | None] = (
        _POLICY_DEFAULTS.level_deadlines_s
    )
    policy_deadline_window_s: float = _POLICY_DEFAULTS.deadline_window_s
    policy_max_deferred_steps: int = _POLICY_DEFAULTS.max_deferred_steps
    policy_held_prefill_share: float = _POLICY_DEFAULTS.held_prefill_share
    policy_strict_max_level: int = _POLICY_DEFAULTS.strict_max_level
    policy_overload_strict_max_level: int = _POLICY_DEFAULTS.overload_strict_max_level
    overload_calm_s: float = Field(default=OVERLOAD_CALM_S, gt=0)
    """The overload mode holds this long after the last projected miss."""
    # Overload: a waiting call of ESI `shed_min_level`..5 that the queue would make miss its level's deadline gets
    # template guidance at once (`scheduler.shedding`, `app.incidents.overload`); ESI 1-2 are never shed.
    shedding_enabled: bool = True
    shed_min_level: int = 4
    cards_dir: Path | None = None
    """A centre's own reviewed copy of the protocol card library (docs/guidance.md); None: the shipped library.
    Read once when a process first needs a card."""

    @field_validator("engine")
    @classmethod
    def _known_engine(cls, value: str) -> str:
        if value not in ENGINE_NAMES:
            raise ValueError(f"unknown engine {value!r}; known engines: {', '.join(ENGINE_NAMES)}")
        return value

    @field_validator("engine_cost_model")
    @classmethod
    def _known_cost_model(cls, value: str) -> str:
        if value == MEASURE_COST_MODEL or value in PROFILES or value.endswith(".json"):
            return value
        raise ValueError(
            f"unknown engine cost model {value!r}: choose {MEASURE_COST_MODEL}, a profile ({', '.join(PROFILES)}) "
            "or the .json file `triage-dispatch engine profile --out` wrote"
        )

    @field_validator("trusted_proxies", "allowed_hosts", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        return _comma_separated(value)

    @field_validator("trusted_proxies")
    @classmethod
    def _addresses(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            if entry == "*":
                continue
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"{entry!r} is not an IP address or network (10.0.0.5, 172.18.0.0/16) nor *") from None
        return value

    @model_validator(mode="after")
    def _safe(self) -> Settings:
        try:
            self.policy_options  # noqa: B018 - built to check the TRIAGE_POLICY_* settings together
        except ValueError as error:
            raise SettingsError(f"TRIAGE_POLICY_*: {error}") from None
        try:
            self.shedding_options  # noqa: B018 - built to check TRIAGE_SHEDDING_ENABLED and TRIAGE_SHED_MIN_LEVEL
        except ValueError as error:
            raise SettingsError(f"TRIAGE_SHED_MIN_LEVEL: {error}") from None
        if not self.webhook_secrets:
            raise SettingsError("TRIAGE_WEBHOOK_SECRETS names no source")
        if self.metrics_token is not None and len(self.metrics_token.get_secret_value()) < 16:
            raise SettingsError("TRIAGE_METRICS_TOKEN needs at least 16 characters (`openssl rand -hex 24`)")
        for source, secrets in self.webhook_secrets.items():
            if not secrets:
                raise SettingsError(f"TRIAGE_WEBHOOK_SECRETS[{source!r}] has no secret")
            for secret in secrets:
                _check_secret(source, secret)
        _check_one_source_per_secret(self.webhook_secrets)
        try:
            parse_limit("(TRIAGE_INTAKE_LIMIT)", self.intake_limit)
            for source, limit in self.intake_limits.items():
                parse_limit(source, limit)
            parse_limit("(TRIAGE_LIVE_CALL_LIMIT)", self.live_call_limit)
        except IntakeLimitError as error:
            raise SettingsError(f"TRIAGE_INTAKE_LIMIT(S): {error}") from None
        unknown = sorted(set(self.intake_limits) - set(self.webhook_secrets) - set(self.twilio_auth_tokens))
        if unknown:
            raise SettingsError(
                "TRIAGE_INTAKE_LIMITS names sources neither TRIAGE_WEBHOOK_SECRETS nor TRIAGE_TWILIO_AUTH_TOKENS "
                f"has: {', '.join(unknown)}"
            )
        for source, token in self.twilio_auth_tokens.items():
            if len(token.get_secret_value()) < 16:
                raise SettingsError(f"TRIAGE_TWILIO_AUTH_TOKENS[{source!r}]: an Auth Token has at least 16 characters")
        if self.env == "production":
            placeholders = [
                source
                for source, secrets in self.webhook_secrets.items()
                if any(secret in PLACEHOLDER_SECRETS for secret in secrets)
            ]
            if placeholders:
                raise SettingsError(
                    "production refuses the development placeholder webhook secret "
                    f"(sources: {', '.join(placeholders)}); set TRIAGE_WEBHOOK_SECRETS"
                )
            if self.dev_open_api:
                raise SettingsError("production refuses TRIAGE_DEV_OPEN_API: the incident API needs authentication")
            if self.redis_url is None:
                raise SettingsError("production needs TRIAGE_REDIS_URL (no embedded redis-server)")
            if "*" in self.allowed_hosts:
                raise SettingsError(
                    "production needs TRIAGE_ALLOWED_HOSTS: the names browsers reach the console by (`*` lets any Host "
                    "header through, into the console's own links)"
                )
            if "*" in self.trusted_proxies:
                raise SettingsError(
                    "production refuses TRIAGE_TRUSTED_PROXIES=*: anyone could forge the client address the sign-in "
                    "throttle counts; name the proxy's address or network"
                )
        return self

    @property
    def policy_options(self) -> PolicyOptions:
        """The policy's options as the schedulers take them (checked when the settings are read)."""
        return PolicyOptions(
            limited_preemption=self.policy_limited_preemption,
            max_preemptions=self.policy_max_preemptions,
            aging_interval_s=self.policy_aging_interval_s,
            reserved_kv_share=self.policy_reserved_kv_share,
            level_weights=self.policy_level_weights,
            level_deadlines_s=self.policy_level_deadlines_s,
            deadline_window_s=self.policy_deadline_window_s,
            max_deferred_steps=self.policy_max_deferred_steps,
            held_prefill_share=self.policy_held_prefill_share,
            strict_max_level=self.policy_strict_max_level,
            overload_strict_max_level=self.policy_overload_strict_max_level,
        )

    @property
    def free_text_limits(self) -> FreeTextLimits:
        return FreeTextLimits(
            note_chars=self.note_max_chars,
            reason_chars=self.reason_max_chars,
            notes_per_incident=self.incident_note_limit,
            notes_per_user=self.user_note_limit,
            user_window_s=self.user_note_window_s,
        )

    @property
    def shedding_options(self) -> SheddingOptions:
        """Overload shedding's options (checked when the settings are read)."""
        return SheddingOptions(enabled=self.shedding_enabled, min_level=self.shed_min_level)

    @property
    def session_cookie_secure(self) -> bool:
        """Whether the session cookie is `Secure` (`cookie_secure`, else production)."""
        return self.env == "production" if self.cookie_secure is None else self.cookie_secure

    @property
    def hsts(self) -> bool:
        """Whether answers carry Strict-Transport-Security: when the cookie is `Secure`, the console is on HTTPS."""
        return self.session_cookie_secure

    @property
    def api_docs(self) -> bool:
        """Whether /docs, /redoc and /openapi.json are served (not in production)."""
        return self.env != "production"

    @property
    def api_open(self) -> bool:
        return self.dev_open_api and self.env == "development"


@functools.cache
def get_settings() -> Settings:
    """The process's settings, read from the environment once."""
    return Settings()
