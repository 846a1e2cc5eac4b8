"""Settings from TRIAGE_* variables: parsing, and what production refuses."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from pydantic import ValidationError

from app.settings import DEFAULT_LLM, PLACEHOLDER_SECRET, Settings

REAL = "whsec_" + base64.b64encode(b"production-secret-32-random-byte").decode()
OLD = "whsec_" + base64.b64encode(b"previous-secret-32-random-bytes!").decode()


def test_environment_variables_are_read_with_the_triage_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRIAGE_WEBHOOK_SECRETS", json.dumps({"cad": [REAL, OLD]}))
    monkeypatch.setenv("TRIAGE_REDIS_URL", "redis://cache:6379/0")
    monkeypatch.setenv("TRIAGE_ENGINE_NUM_BLOCKS", "128")
    settings = Settings()
    assert settings.webhook_secrets == {"cad": [REAL, OLD]}
    assert (settings.redis_url, settings.engine_num_blocks, settings.model) == (
        "redis://cache:6379/0",
        128,
        DEFAULT_LLM,
    )
    assert settings.database_url.startswith("sqlite:///") and settings.env == "development"
    assert settings.engine == "vllm"


def test_production_refuses_unsafe_defaults() -> None:
    with pytest.raises(ValidationError, match="placeholder webhook secret"):
        Settings(env="production", redis_url="redis://r:6379/0")
    with pytest.raises(ValidationError, match="TRIAGE_DEV_OPEN_API"):
        Settings(env="production", redis_url="redis://r:6379/0", webhook_secrets={"cad": [REAL]}, dev_open_api=True)
    with pytest.raises(ValidationError, match="TRIAGE_REDIS_URL"):
        Settings(env="production", webhook_secrets={"cad": [REAL]})
    with pytest.raises(ValidationError, match="production needs TRIAGE_ALLOWED_HOSTS"):
        Settings(env="production", redis_url="redis://r:6379/0", webhook_secrets={"cad": [REAL]})
    Settings(env="production", redis_url="redis://r:6379/0", webhook_secrets={"cad": [REAL]}, allowed_hosts=("a.b",))
    assert Settings(webhook_secrets={"cad": [PLACEHOLDER_SECRET]}).env == "development"


def test_bad_values_are_named() -> None:
    with pytest.raises(ValidationError, match="unknown engine 'tgi'; known engines: hf, vllm"):
        Settings(engine="tgi")
    with pytest.raises(ValidationError, match="must start with 'whsec_'"):
        Settings(webhook_secrets={"cad": ["hunter2"]})
    with pytest.raises(ValidationError, match="at least 24 random bytes"):
        Settings(webhook_secrets={"cad": ["whsec_" + base64.b64encode(b"short").decode()]})
    with pytest.raises(ValidationError, match="has no secret"):
        Settings(webhook_secrets={"cad": []})


def test_the_scheduling_policy_and_its_options_come_from_triage_policy_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TRIAGE_SCHEDULING_POLICY", "semantic-strict")
    monkeypatch.setenv("TRIAGE_POLICY_LEVEL_WEIGHTS", "[1, 8, 4, 2, 1]")
    monkeypatch.setenv("TRIAGE_POLICY_LEVEL_DEADLINES_S", "[null, 30, 90, null, null]")
    monkeypatch.setenv("TRIAGE_POLICY_AGING_INTERVAL_S", "none")
    settings = Settings()
    options = settings.policy_options
    assert settings.scheduling_policy == "semantic-strict"
    assert options.level_weights == (1.0, 8.0, 4.0, 2.0, 1.0)
    assert options.level_deadlines_s == (None, 30.0, 90.0, None, None)
    assert (options.aging_interval_s, options.limited_preemption, options.max_preemptions) == (None, 0.8, 3)


def test_a_policy_option_out_of_range_is_refused_with_its_name() -> None:
    with pytest.raises(ValidationError, match=r"TRIAGE_POLICY_\*: limited_preemption must be in \(0, 1\]"):
        Settings(policy_limited_preemption=1.5)
    with pytest.raises(ValidationError, match="level_weights needs five positive weights"):
        Settings(policy_level_weights=(1.0, 4.0, 0.0, 1.0, 1.0))
    with pytest.raises(ValidationError, match="scheduling_policy"):
        Settings(scheduling_policy="lottery")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"TRIAGE_POLICY_\*: strict_max_level and overload_strict_max_level"):
        Settings(policy_strict_max_level=3)
    with pytest.raises(ValidationError, match=r"TRIAGE_POLICY_\*: strict_max_level and overload_strict_max_level"):
        Settings(policy_overload_strict_max_level=0)
    with pytest.raises(ValidationError, match="overload_calm_s"):
        Settings(overload_calm_s=0)


def test_overload_shedding_comes_from_triage_variables_and_never_reaches_esi_1_2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert (Settings().shedding_options.enabled, Settings().shedding_options.min_level) == (True, 4)
    monkeypatch.setenv("TRIAGE_SHEDDING_ENABLED", "false")
    monkeypatch.setenv("TRIAGE_SHED_MIN_LEVEL", "5")
    monkeypatch.setenv("TRIAGE_POLICY_STRICT_MAX_LEVEL", "2")
    settings = Settings()
    assert (settings.shedding_options.enabled, settings.shedding_options.min_level) == (False, 5)
    assert settings.policy_options.strict_max_level == 2
    assert (Settings().policy_options.overload_strict_max_level, Settings().overload_calm_s) == (2, 30.0)
    monkeypatch.setenv("TRIAGE_POLICY_OVERLOAD_STRICT_MAX_LEVEL", "1")
    monkeypatch.setenv("TRIAGE_OVERLOAD_CALM_S", "60")
    assert (Settings().policy_options.overload_strict_max_level, Settings().overload_calm_s) == (1, 60.0)
    monkeypatch.setenv("TRIAGE_SHED_MIN_LEVEL", "2")
    with pytest.raises(ValidationError, match=r"TRIAGE_SHED_MIN_LEVEL: min_level must be within 3..5"):
        Settings()


@pytest.mark.parametrize(
    ("secrets", "problem"),
    [
        (["hunter2-Xq9zK7pLm4Rt"], "TRIAGE_WEBHOOK_SECRETS['cad']: a secret must start with 'whsec_'"),
        (["whsec_" + base64.b64encode(b"short-secret-tail").decode()], "at least 24 random bytes"),
        (["whsec_Xq9*zK7pLm4*Rt"], "the part after 'whsec_' is not base64"),
        ("whsec_" + base64.b64encode(b"a string, not a list: secret").decode(), "webhook_secrets.cad"),
    ],
)
def test_a_refused_webhook_secret_is_named_by_source_never_shown(secrets: list[str] | str, problem: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(webhook_secrets={"cad": secrets})  # type: ignore[dict-item]
    message = str(refused.value)
    assert problem in message
    secret = (secrets if isinstance(secrets, str) else secrets[0]).removeprefix("whsec_")
    assert [secret[i : i + 6] for i in range(len(secret) - 5) if secret[i : i + 6] in message] == []


def test_a_refused_production_setting_shows_neither_secrets_nor_the_database_password() -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(env="production", webhook_secrets={"cad": [REAL]}, database_url="postgresql://u:pa55word@db/triage")
    message = str(refused.value)
    assert "production needs TRIAGE_REDIS_URL" in message
    assert "pa55word" not in message and REAL[-12:] not in message


def test_the_sign_in_throttle_limits_come_from_triage_signin_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (Settings().signin_account_failures, Settings().signin_client_failures, Settings().signin_window_s) == (
        10,
        30,
        60.0,
    )
    monkeypatch.setenv("TRIAGE_SIGNIN_ACCOUNT_FAILURES", "5")
    monkeypatch.setenv("TRIAGE_SIGNIN_WINDOW_S", "300")
    assert (Settings().signin_account_failures, Settings().signin_window_s) == (5, 300.0)
    with pytest.raises(ValidationError, match="signin_client_failures"):
        Settings(signin_client_failures=0)


def test_the_session_cookie_is_secure_in_production_unless_a_plain_http_pilot_says_otherwise() -> None:
    assert Settings().session_cookie_secure is False
    assert Settings(cookie_secure=True).session_cookie_secure is True
    production = Settings().model_copy(update={"env": "production"})
    assert production.session_cookie_secure is True
    assert production.model_copy(update={"cookie_secure": False}).session_cookie_secure is False


def test_the_documented_demo_secret_is_the_placeholder_the_settings_use() -> None:
    from pathlib import Path

    from app.settings import PLACEHOLDER_SECRET

    documented = (Path(__file__).resolve().parents[2] / "docs" / "intake.md").read_text(encoding="utf-8")
    assert f"`{PLACEHOLDER_SECRET}`" in documented
    assert Settings().webhook_secrets["demo"] == [PLACEHOLDER_SECRET]


def test_an_intake_limit_limits_cannot_read_or_of_an_unknown_source_is_refused() -> None:
    with pytest.raises(ValidationError, match="intake limit of source 'cad'"):
        Settings(webhook_secrets={"cad": [PLACEHOLDER_SECRET]}, intake_limits={"cad": "lots"})
    with pytest.raises(
        ValidationError,
        match="names sources neither TRIAGE_WEBHOOK_SECRETS nor TRIAGE_TWILIO_AUTH_TOKENS has: pager",
    ):
        Settings(webhook_secrets={"cad": [PLACEHOLDER_SECRET]}, intake_limits={"pager": "10/minute"})
    assert Settings().intake_limit == "120/minute;30/10 seconds"
    twilio = Settings(twilio_auth_tokens={"phones": "t" * 32}, intake_limits={"phones": "10/minute"})
    assert twilio.intake_limits == {"phones": "10/minute"}


def test_a_live_call_limit_or_a_twilio_token_that_cannot_be_used_is_refused() -> None:
    with pytest.raises(ValidationError, match="intake limit of source '\\(TRIAGE_LIVE_CALL_LIMIT\\)'"):
        Settings(live_call_limit="lots")
    with pytest.raises(ValidationError, match="TRIAGE_TWILIO_AUTH_TOKENS\\['phones'\\]: an Auth Token has at least"):
        Settings(twilio_auth_tokens={"phones": "short"})
    with pytest.raises(ValidationError, match="twilio_public_url"):
        Settings(twilio_public_url="https://dispatch.example.org/path")
    assert Settings().live_call_limit == "600/minute;120/10 seconds"


@pytest.mark.parametrize(
    ("value", "parsed"),
    [("", ()), ("10.0.0.5", ("10.0.0.5",)), (" 10.0.0.5 , 172.18.0.0/16 ", ("10.0.0.5", "172.18.0.0/16"))],
)
def test_trusted_proxies_are_read_comma_separated(
    monkeypatch: pytest.MonkeyPatch, value: str, parsed: tuple[str, ...]
) -> None:
    monkeypatch.setenv("TRIAGE_TRUSTED_PROXIES", value)
    assert Settings().trusted_proxies == parsed


def test_trusted_proxies_must_be_addresses_and_production_refuses_anyone() -> None:
    with pytest.raises(ValidationError, match="'proxy' is not an IP address or network"):
        Settings(trusted_proxies=("proxy",))
    production: dict[str, Any] = {
        "env": "production",
        "redis_url": "redis://r:6379/0",
        "webhook_secrets": {"cad": [REAL]},
        "allowed_hosts": ("dispatch.example.org",),
    }
    with pytest.raises(ValidationError, match="production refuses TRIAGE_TRUSTED_PROXIES=\\*"):
        Settings(**production, trusted_proxies=("*",))
    assert Settings(**production, trusted_proxies=("172.30.0.10",)).trusted_proxies == ("172.30.0.10",)


def test_two_sources_sharing_a_secret_are_refused_without_the_secret() -> None:
    """A signature covers the call's id, time and body, not the source it is posted to (Standard Webhooks): with one
    secret, each source could send as the other. A secret belongs to one source."""
    shared = "whsec_" + base64.b64encode(b"cad-and-pager-secret-32-random!!").decode()
    own = "whsec_" + base64.b64encode(b"pager-own-secret-32-random-bytes").decode()
    with pytest.raises(ValidationError) as refused:
        Settings(webhook_secrets={"cad": [shared], "pager": [own, shared]})
    said = str(refused.value)
    assert (
        "TRIAGE_WEBHOOK_SECRETS: sources 'cad' and 'pager' share a secret; a secret belongs to one source only"
    ) in said
    assert shared.removeprefix("whsec_")[:12] not in said
    Settings(webhook_secrets={"cad": [shared, shared], "pager": [own]})  # one source listing it twice is harmless


def test_the_development_sources_each_have_their_own_placeholder_and_production_refuses_both() -> None:
    from app.settings import PLACEHOLDER_SECRETS

    secrets = Settings().webhook_secrets
    assert secrets["console"] != secrets["demo"]
    assert {secret for values in secrets.values() for secret in values} == set(PLACEHOLDER_SECRETS)
    with pytest.raises(ValidationError, match="placeholder webhook secret \\(sources: console, demo\\)"):
        Settings(env="production", redis_url="redis://r:6379/0", allowed_hosts=("a.b",))
