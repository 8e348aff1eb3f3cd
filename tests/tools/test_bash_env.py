"""Bash sees a short allowlist of variables and never a secret, in every mode."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import Settings
from harness.tools._protocol import ToolInput
from harness.tools.builtin._bash import BashTool
from harness.tools.sandbox import DEFAULT_PATH, EnvironmentFilter, is_forbidden_name

SECRETS = {
    "OPENAI_API_KEY": "sk-test-openai-0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-test-0123456789",
    "FEISHU_APP_SECRET": "feishu-secret-0123456789",
    "FEISHU_VERIFICATION_TOKEN": "feishu-token-0123456789",
    "MY_TOKEN": "my-token-0123456789",
    "DB_PASSWORD": "db-password-0123456789",
    "aws_secret_access_key": "aws-secret-0123456789",
    "HARNESS_STATE_DIR": "/state-dir-0123456789",
    "HARNESS_APPROVAL_KEY": "approval-key-0123456789",
    "OPENAI_BASE_URL": "http://base-url-0123456789",
}


def env_of(tool: BashTool, workdir: Path) -> str:
    return tool.run(ToolInput({"command": "env"}, workdir)).text


def test_secrets_are_not_in_the_environment(
    tmp_path: Path,
    make_bash: Callable[..., BashTool],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    # Harness's own environment too: a root harness included (Landlock, capabilities dropped).
    tool = make_bash()
    shown = env_of(tool, tmp_path)
    shown += tool.run(ToolInput({"command": "tr '\\0' '\\n' < /proc/$PPID/environ"}, tmp_path)).text

    for name, value in SECRETS.items():
        assert name not in shown
        assert value not in shown


def test_listing_a_secret_in_harness_bash_env_does_not_pass_it(
    tmp_path: Path,
    make_bash: Callable[..., BashTool],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    mode: str,
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PROJECT_MODE", "fast")
    caplog.set_level(logging.WARNING)

    tool = make_bash(env_names=[*SECRETS, "PROJECT_MODE", "PROJECT_MODE"])
    shown = env_of(tool, tmp_path) + env_of(tool, tmp_path)

    for value in SECRETS.values():
        assert value not in shown
    assert shown.count("PROJECT_MODE=fast") == 2
    warned = [r.getMessage() for r in caplog.records if "HARNESS_BASH_ENV" in r.getMessage()]
    assert len(warned) == len(SECRETS)  # once per refused name, not once per call
    assert all("never passed to bash" in message for message in warned)
    for value in SECRETS.values():
        assert all(value not in message for message in warned)


def test_the_allowlist_and_the_non_interactive_overrides_pass(
    tmp_path: Path, make_bash: Callable[..., BashTool], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("UNLISTED_VARIABLE", "nope")
    monkeypatch.setenv("PAGER", "less")

    shown = env_of(make_bash(), tmp_path).splitlines()

    assert "LC_ALL=C.UTF-8" in shown and "TZ=UTC" in shown
    assert "PAGER=cat" in shown and "GIT_TERMINAL_PROMPT=0" in shown
    assert any(line.startswith("PATH=") for line in shown)
    assert not any(line.startswith("UNLISTED_VARIABLE=") for line in shown)


def test_a_missing_path_gets_a_default() -> None:
    assert EnvironmentFilter().apply({})["PATH"] == DEFAULT_PATH


def test_malformed_names_are_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)

    env = EnvironmentFilter(["A=B", "OK_NAME"]).apply({"A=B": "x", "OK_NAME": "y"})

    assert env.get("OK_NAME") == "y" and "A=B" not in env
    assert "not a variable name" in caplog.text


def test_settings_read_the_bash_variables() -> None:
    settings = Settings.from_env(
        {
            "HARNESS_BASH_SANDBOX": "required",
            "HARNESS_BASH_NETWORK": "on",
            "HARNESS_BASH_ENV": "PROJECT_MODE, CI",
        }
    )

    assert settings.bash_sandbox == "required"
    assert settings.bash_network is True
    assert settings.bash_env == ("PROJECT_MODE", "CI")
    defaults = Settings()
    assert (defaults.bash_sandbox, defaults.bash_network, defaults.bash_env) == ("auto", False, ())


@pytest.mark.parametrize(
    "variable,value", [("HARNESS_BASH_SANDBOX", "sometimes"), ("HARNESS_BASH_NETWORK", "maybe")]
)
def test_bad_bash_settings_name_the_variable(variable: str, value: str) -> None:
    from harness.core.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match=variable):
        Settings.from_env({variable: value})


_NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)
_SECRETISH = st.builds(
    lambda prefix, word, suffix: prefix + word + suffix,
    _NAME | st.just(""),
    st.sampled_from(["KEY", "key", "Token", "SECRET", "passWord"]),
    st.from_regex(r"[A-Za-z0-9_]{0,10}", fullmatch=True),
) | st.builds(
    lambda prefix, rest: prefix + rest,
    st.sampled_from(["HARNESS_", "harness_", "FEISHU_", "OPENAI_", "Anthropic_"]),
    st.from_regex(r"[A-Za-z0-9_]{0,10}", fullmatch=True),
)


@pytest.mark.deep
@given(names=st.lists(_SECRETISH, min_size=1, max_size=5), other=st.lists(_NAME, max_size=5))
def test_no_secret_looking_name_ever_passes(names: list[str], other: list[str]) -> None:
    source = {name: "value" for name in [*names, *other]}

    env = EnvironmentFilter([*names, *other]).apply(source)

    assert not any(is_forbidden_name(name) for name in env)
    assert not set(names) & set(env)


@pytest.mark.deep
@given(name=_NAME)
def test_a_plain_listed_name_passes_unless_forbidden(name: str) -> None:
    env = EnvironmentFilter([name]).apply({name: "v"})

    assert (name in env) is not is_forbidden_name(name)


def test_the_sandbox_package_exports_a_sorted_surface() -> None:
    import harness.tools.sandbox as sandbox

    exported = list(sandbox.__all__)
    constants = [name for name in exported if name.isupper()]
    assert exported[: len(constants)] == sorted(constants)
    assert all(getattr(sandbox, name) is not None for name in exported)
    assert "choose_sandbox" in exported and "ShellLauncher" in exported


@pytest.mark.parametrize(
    "name",
    [
        "GEMINI_API_BASE",
        "GOOGLE_GEMINI_BASE_URL",
        "GOOGLE_CLOUD_PROJECT",
        "AWS_PROFILE",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
        "AZURE_OPENAI_ENDPOINT",
        "OPENAI_BASE_URL",
    ],
)
def test_every_provider_s_variables_are_refused_by_the_wire_registry_s_prefixes(
    name: str,
) -> None:
    # Base URLs, profiles and projects hold no key but belong to a provider's account.
    assert is_forbidden_name(name)
    assert name not in EnvironmentFilter([name]).apply({name: "x"})
